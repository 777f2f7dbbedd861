import { isAscii } from "node:buffer";
import {
  LazyLine,
  LINE_CRLF,
  LINE_INVALID_UTF8,
  LINE_UNTERMINATED,
  readLineBytes,
  readLines,
  type HeldTail,
  type LineSourceFacts,
  type LineStart,
  type RawLine,
  type Source,
} from "../io/scan/index.js";
import { FileRangeReader } from "../io/store.js";
import { messageBody } from "./body.js";
import { diag } from "./codes.js";
import { extractFields } from "./extract.js";
import { IdIndex } from "./ids.js";
import { NewRec } from "./rec.js";
import { CHECK_TABLES, FULL_TABLES, type FieldTables, type ScanDetail } from "./fields.js";
import { isObject } from "./json.js";
import { skeletonRec } from "./skeleton.js";
import { entryTime } from "./time.js";
import { CURRENT_VERSION, KNOWN_ENTRY_TYPES, v1Id, type Session } from "./session.js";
import type { Detail, EntryRec, Rec } from "./detail.js";
import type { Diagnostic, EntryFields, EntryStore, Header } from "./types.js";

export interface LoadOptions<D extends Detail = Detail> {
  /** Name for output and diagnostics; defaults to the path, or "-" for a stream. */
  name?: string;
  /**
   * Called now and then with bytes read so far, for progress display: at most every PROGRESS_EVERY_MS, and not in
   * the first PROGRESS_AFTER_MS (a short load shows nothing).
   */
  onProgress?: (bytes: number) => void;
  /**
   * "full" (default): every EntryFields field but `body`. "skeleton": only the fields the tree, paths, labels and references
   * need (ids, parents, types, roles, timestamps, label and session-info fields, compaction and branch-summary
   * references); previews, usage and tool names are left out. "spend": the skeleton's fields and what spend
   * counting reads (usage objects, the model and provider of assistant messages and usage entries, usage entries'
   * kind; fields.ts's spend rows). "tables": the spend detail's fields and, on message records, `body` (what
   * `pisess tables` reads of a message: model/body.ts), wherever the scanner read it from the bytes or the line was
   * parsed whole (a record without it is one the caller must read back). "preview": every field but those only spend
   * counting reads (usage, an assistant's provider and model, a usage entry's fields), for the text views. The full,
   * skeleton, spend, tables and preview loads read most lines with the byte scanner. "check": the skeleton's fields
   * and what validate's checks read (fields.ts's check rows: tool call ids and names), from lines parsed whole.
   * The session's records have only the fields of their detail (detail.ts's Rec<D>, derived from fields.ts).
   */
  detail?: D;
  /** Use the byte-level pre-pass for long lines (default true); false parses every line whole (for tests). */
  fastScan?: boolean;
  /**
   * The time (ms since the epoch) the snapshot rule compares the file's mtime with (io/scan/lines.ts,
   * LIVE_WINDOW_MS); default: the clock when the file is opened. Tests set it instead of waiting.
   */
  now?: number;
  /**
   * Called with each entry as it is indexed: its record, its whole parsed value and its text (validate's content
   * checks run here instead of reading and parsing every line a second time). Every line is then parsed whole, the
   * value is only lent (not kept by the loader), and the version is the one the file settled.
   */
  onEntry?(rec: Rec<D>, value: Record<string, unknown>, text: string, at: { file: string; version: number }): void;
}

/**
 * loadSession indexes the ids of the entries past this many once the file is read (model/ids.ts): a million Map.set
 * calls among the records being made were a third of a skeleton load, but sorting a small file's ids after its load
 * cost more than the Map (usage over 1,000 sessions of ~1,000 entries: 1.43 → 2.26 CPU-s). Where the two meet, in
 * one process as a command runs them (cold): 65,793 ids take 46–72 ms to sort and 22–25 ms into a Map, 130,000 about
 * 120 ms both ways, 500,000 241 against 671 ms.
 */
export const IDS_AT_END_FROM = 1 << 17;
const PROGRESS_AFTER_MS = 1000;
const PROGRESS_EVERY_MS = 100;

/** Column (1-based) from V8's JSON.parse message, where it names a position. */
function errorColumn(err: unknown, text: string): number | undefined {
  const msg = err instanceof Error ? err.message : "";
  const m = /position (\d+)/.exec(msg);
  if (m?.[1] !== undefined) return Number(m[1]) + 1;
  if (/Unexpected end of JSON input/.test(msg)) return text.length + 1;
  return undefined;
}

function errorReason(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  // V8 appends a long excerpt of the line; keep the reason only.
  return msg
    .replace(/, "[\s\S]*$/, "")
    .replace(/ in JSON at position \d+.*$/, "")
    .slice(0, 120);
}

class MemoryStore implements EntryStore {
  private readonly lines = new Map<number, string>();
  put(line: number, text: string): void {
    this.lines.set(line, text);
  }
  rawLine(rec: EntryFields): string {
    const t = this.lines.get(rec.line);
    if (t === undefined) throw new Error(`line ${rec.line} is not held in memory`);
    return t;
  }
  close(): void {}
}

class FileStore implements EntryStore {
  private readonly reader: FileRangeReader;
  constructor(path: string) {
    this.reader = new FileRangeReader(path);
  }
  rawLine(rec: EntryFields): string {
    return this.reader.read(rec.offset, rec.length);
  }
  rawBytes(rec: EntryFields): Buffer {
    return this.reader.readBytes(rec.offset, rec.length);
  }
  close(): void {
    this.reader.close();
  }
}

/**
 * Reads a session in one streaming pass and builds its index. Never writes; never throws for bad content (every
 * problem becomes a diagnostic), only for I/O errors. The session knows its detail: its records have only the fields
 * `options.detail` fills ("full" when it is not given).
 */
export async function loadSession<D extends Detail = "full">(source: Source, options: LoadOptions<D> = {}): Promise<Session<D>> {
  const file = options.name ?? (source.kind === "file" ? source.path : source.name);
  const memory = source.kind === "file" ? null : new MemoryStore();
  const store: EntryStore = source.kind === "file" ? new FileStore(source.path) : (memory as MemoryStore);
  const ix = createIndexer(file, source.kind === "file" ? source.path : undefined, store, memory, options, IDS_AT_END_FROM);
  const snapshot = options.now === undefined ? {} : { now: options.now };
  // Most lines are read by the byte-level scanner (skeleton.ts) straight from the chunk; the lines it is unsure
  // about, and everything before the first parsed line, take the ordinary path. The check detail parses every line
  // whole (its per-entry checks read the values).
  const skeleton = options.detail !== "check" && memory === null && options.fastScan !== false && options.onEntry === undefined;
  let facts: LineSourceFacts;
  try {
    facts =
      skeleton && source.kind === "file"
        ? await readLineBytes(source.path, ix.onBytes, 1 << 20, snapshot)
        : await readLines(source, ix.onLine, 1 << 20, { lazyText: true, ...snapshot });
  } catch (err) {
    store.close();
    throw err;
  }
  return ix.finish(facts);
}

/**
 * What the loader needs to go on indexing a file from where a load of it stopped: its state after the last line it
 * read, before finish's whole-file findings (plain data, for the index to keep). Records as the load made them
 * (their `index` and `time` are made again on resuming).
 */
export interface IndexerState {
  /** Where the next line starts: the line end the load stopped at. */
  start: LineStart;
  entries: EntryFields[];
  diagnostics: Diagnostic[];
  skipped: Session["skipped"];
  header: Header;
  headerLine: number;
  crlfLines: number;
  labels: [string, string][];
  sessionName: string | undefined;
}

/** A session loaded with the state to go on from (undefined where a later read could not simply go on: see resumable). */
export interface Resumable<D extends Detail> {
  session: Session<D>;
  state: IndexerState | undefined;
}

/**
 * Loads a file as loadSession does and keeps the indexer's state to go on from. Only a current-version file with a
 * header and no repeated id, read up to a line end, can be gone on with: a v1/v2 file pi touches is rewritten whole,
 * and a repeated id or an unterminated last line read as a line make the old part's reading depend on what follows.
 */
export async function loadResumable<D extends Detail>(path: string, options: LoadOptions<D> & { detail: D }): Promise<Resumable<D>> {
  const store = new FileStore(path);
  const ix = new Indexer(options.name ?? path, path, store, null, options, IDS_AT_END_FROM);
  return readOn(ix, path, options, store, undefined);
}

/**
 * Goes on indexing `path` from `state` (made by loadResumable or resumeSession with the same detail): only the bytes
 * from `state.start` are read. The session is the one loadSession would give of the whole file, as long as the bytes
 * before the start are still those the state was made of (the caller's check: the format only appends).
 */
export async function resumeSession<D extends Detail>(
  path: string,
  state: IndexerState,
  options: LoadOptions<D> & { detail: D },
): Promise<Resumable<D>> {
  const store = new FileStore(path);
  const ix = new Indexer(options.name ?? path, path, store, null, options, Number.POSITIVE_INFINITY);
  ix.restore(state);
  return readOn(ix, path, options, store, state.start);
}

/**
 * The session as `state` left it, without reading the file: what a whole read of the lines before `state.start` gave
 * (its records' message bodies as far as the state kept them).
 */
export function restoredSession<D extends Detail>(path: string, state: IndexerState, options: LoadOptions<D> & { detail: D }): Session<D> {
  const ix = new Indexer(options.name ?? path, path, new FileStore(path), null, options, Number.POSITIVE_INFINITY);
  ix.restore(state);
  const { offset, line, bom } = state.start;
  return ix.finish({ bom, bytes: offset, lines: line, finalNewline: true }) as unknown as Session<D>;
}

async function readOn<D extends Detail>(
  ix: Indexer,
  path: string,
  options: LoadOptions<D>,
  store: EntryStore,
  start: LineStart | undefined,
): Promise<Resumable<D>> {
  let facts: LineSourceFacts;
  try {
    facts = await readLineBytes(path, ix.onBytes, 1 << 20, options.now === undefined ? {} : { now: options.now }, start);
  } catch (err) {
    store.close();
    throw err;
  }
  const state = ix.state(facts);
  const session = ix.finish(facts) as unknown as Session<D>;
  const repeated = session.diagnostics.some((d) => d.code === "duplicate-id");
  return { session, state: repeated ? undefined : state };
}

/** The finding for a live file's unterminated last line, left out of the reading (the snapshot rule). */
export function heldTailDiagnostic(file: string, tail: HeldTail): Diagnostic {
  return diag("incomplete-last-line", file, tail.line, { bytes: tail.length });
}

/**
 * Builds a session index line by line, in file order: what loadSession does for a whole file, and what
 * `pisess follow` does for lines as they are appended.
 */
export interface SessionIndexer<D extends Detail = "full"> {
  /** Feeds the next line; returns the entry it added to the index, if it added one. */
  line(raw: RawLine): Rec<D> | undefined;
  onLine(raw: RawLine): void;
  onBytes(buf: Buffer, start: number, end: number, line: number, offset: number, flags: number): void;
  /** The session as indexed so far (it shares the index, which goes on growing with further lines). */
  session(facts: LineSourceFacts): Session<D>;
  /** The session once every line is in: whole-file findings added, v1 bookkeeping dropped. Call once. */
  finish(facts: LineSourceFacts): Session<D>;
}

/** An indexer for `file`, whose entries `store` reads back (`memory`: the store that keeps the lines, for streams). */
export function createIndexer<D extends Detail = "full">(
  file: string,
  path: string | undefined,
  store: EntryStore,
  memory: LineMemory | null,
  options: LoadOptions<D> = {},
  /**
   * The entries from this position on have their ids indexed once every line is in (finish), not line by line: with
   * more entries than that, byId is then an IdIndex, and a session taken before finish lacks their ids. loadSession
   * gives IDS_AT_END_FROM; follow indexes every line as it comes.
   */
  idsAtEndFrom = Number.POSITIVE_INFINITY,
): SessionIndexer<D> {
  // The records are made with every field of EntryFields; the session hands them out as its detail's.
  return new Indexer(file, path, store, memory, options, idsAtEndFrom) as unknown as SessionIndexer<D>;
}

/** Where a stream's lines are kept, to be read back. */
interface LineMemory {
  put(line: number, text: string): void;
}

/** parseValue's answer for a line it skipped (blank or malformed, with its finding). */
const SKIPPED: unique symbol = Symbol("skipped");

/** The loader's state over one file; its methods are the steps of indexing a line. */
class Indexer implements SessionIndexer<Detail> {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly entries: EntryFields[] = [];
  private byId: Map<string, EntryFields> = new Map<string, EntryFields>();
  /** For entry idsAtEndFrom + k: how many diagnostics there were when its duplicate-id would have been reported. */
  private diagAt = new Int32Array(0);
  private readonly skipped: Session["skipped"] = [];
  private header: Header | null = null;
  private headerLine: number | null = null;
  private version = 1;
  private sawFirstParsed = false;
  private crlfLines = 0;
  // pi's v1 migration indexes every parsed value, the header being 0; remember which line each index was.
  private readonly parsedLines: number[] = [];
  private readonly entryByLine = new Map<number, EntryFields>();
  private prevV1Id: string | null = null;
  private lastProgress = 0;
  private lastProgressAt: number;
  private readonly bodies: boolean;
  private readonly scanDetail: ScanDetail;
  private readonly tables: FieldTables;
  private readonly onEntry: LoadOptions<Detail>["onEntry"];
  private readonly labels = new Map<string, string>();
  private sessionName: string | undefined;
  private added: EntryFields | undefined;
  private idRepeated = false;
  // Set when the first line shows another program's format: the rest is not read as pi entries.
  private foreign = false;
  /** Set by parseValue: the line's text. */
  private lineText = "";

  constructor(
    private readonly file: string,
    private readonly path: string | undefined,
    private readonly store: EntryStore,
    private readonly memory: LineMemory | null,
    private readonly options: LoadOptions<Detail>,
    private readonly idsAtEndFrom: number,
  ) {
    this.bodies = options.detail === "tables";
    this.scanDetail = options.detail === undefined || options.detail === "check" ? "full" : options.detail;
    // Lines parsed whole fill every field, but for the check detail, which reads only its own rows.
    this.tables = options.detail === "check" ? CHECK_TABLES : FULL_TABLES;
    this.onEntry = options.onEntry;
    this.lastProgressAt = Date.now() + PROGRESS_AFTER_MS - PROGRESS_EVERY_MS;
  }

  line(raw: RawLine): EntryRec | undefined {
    this.added = undefined;
    this.onLine(raw);
    return this.added as EntryRec | undefined;
  }

  readonly onLine = (raw: RawLine): void => {
    if (raw.crlf) this.crlfLines++;
    if (raw.invalidUtf8) this.diagnostics.push(diag("invalid-utf8", this.file, raw.line));
    this.progress(raw.offset);
    this.parseLine(raw);
  };

  readonly onBytes = (buf: Buffer, start: number, end: number, line: number, offset: number, flags: number): void => {
    if ((flags & LINE_CRLF) !== 0) this.crlfLines++;
    const invalidUtf8 = (flags & LINE_INVALID_UTF8) !== 0;
    if (invalidUtf8) this.diagnostics.push(diag("invalid-utf8", this.file, line));
    this.progress(offset);
    if (!invalidUtf8 && this.sawFirstParsed && typeof this.version === "number" && this.version >= 2) {
      const rec = skeletonRec(buf, start, end, this.entries.length, line, offset, this.scanDetail);
      if (rec !== null) {
        this.addRec(rec, line);
        return;
      }
    }
    const bytes = buf.subarray(start, end);
    this.parseLine(
      new LazyLine(
        line,
        offset,
        end - start,
        (flags & LINE_CRLF) !== 0,
        (flags & LINE_UNTERMINATED) !== 0,
        invalidUtf8,
        bytes,
        isAscii(bytes),
      ),
    );
  };

  private progress(offset: number): void {
    const onProgress = this.options.onProgress;
    if (onProgress && offset - this.lastProgress > 8 << 20) {
      this.lastProgress = offset;
      const now = Date.now();
      if (now - this.lastProgressAt >= PROGRESS_EVERY_MS) {
        this.lastProgressAt = now;
        onProgress(offset);
      }
    }
  }

  /** Indexes a record made by either path: role migration, type check, ids (last duplicate wins), labels. */
  private addRec(rec: EntryFields, line: number): void {
    this.entries.push(rec);
    this.added = rec;
    if ((this.version as unknown as number) < 3 && rec.role === "hookMessage") rec.role = "custom";
    if (!KNOWN_ENTRY_TYPES.has(rec.type)) {
      this.diagnostics.push(diag("unknown-entry-type", this.file, line, { type: rec.type }, rec.id ? { entryId: rec.id } : {}));
    }
    const late = this.entries.length - 1 - this.idsAtEndFrom;
    if (late >= 0) this.markLate(late);
    else if (rec.id !== undefined) this.addId(rec, rec.id, line);
    this.addLabel(rec);
  }

  /** Notes where the duplicate-id finding of an entry indexed at the end would go (indexIds puts it there). */
  private markLate(late: number): void {
    if (late === this.diagAt.length) {
      const grown = new Int32Array(Math.max(1024, late * 2));
      grown.set(this.diagAt);
      this.diagAt = grown;
    }
    this.diagAt[late] = this.diagnostics.length;
  }

  private addId(rec: EntryFields, id: string, line: number): void {
    // Until an id repeats, one set does: a set that does not grow the map met a duplicate, and the entry it
    // replaced is the last earlier one with that id. A lookup before each set was a large part of indexing.
    let earlier: EntryFields | undefined;
    if (this.idRepeated) earlier = this.byId.get(id);
    const size = this.byId.size;
    this.byId.set(id, rec);
    if (!this.idRepeated && this.byId.size === size) {
      this.idRepeated = true;
      earlier = this.lastWithId(id, this.entries.length - 2);
    }
    if (earlier) {
      this.diagnostics.push(diag("duplicate-id", this.file, line, { id, firstLine: earlier.line }, { entryId: id }));
    }
  }

  /** The entry at or before position `from` with this id (there is one: the map held it). */
  private lastWithId(id: string, from: number): EntryFields {
    const entries = this.entries;
    for (let i = from; i >= 0; i--) if ((entries[i] as EntryFields).id === id) return entries[i] as EntryFields;
    throw new Error(`no earlier entry with id ${id}`);
  }

  private addLabel(rec: EntryFields): void {
    // Labels and the name resolve as pi resolves them, in file order.
    if (rec.type === "label" && rec.targetId !== undefined) {
      if (rec.labelText) this.labels.set(rec.targetId, rec.labelText);
      else this.labels.delete(rec.targetId);
    } else if (rec.type === "session_info" && rec.name !== undefined && rec.name.trim() !== "") {
      this.sessionName = rec.name.trim();
    }
  }

  private parseLine(raw: RawLine): void {
    if (this.foreign) return;
    const value = this.parseValue(raw);
    if (value === SKIPPED) return;
    // Only v1 files use it, whose version is settled by the first parsed line.
    if (!this.sawFirstParsed || (this.version as unknown as number) < 2) this.parsedLines.push(raw.line);
    const firstParsed = !this.sawFirstParsed;
    this.sawFirstParsed = true;
    if (!isObject(value)) {
      this.skipped.push({ line: raw.line, reason: "non-object" });
      const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
      this.diagnostics.push(diag("non-object-line", this.file, raw.line, { kind }));
      if (firstParsed) this.diagnostics.push(diag("header-missing", this.file, raw.line, { found: kind }));
      return;
    }
    if (value.type === "session") this.headerValue(value, raw.line, firstParsed);
    else if (firstParsed && value.kind === "header") this.foreignHeader(value, raw.line);
    else this.entryValue(value, raw, firstParsed);
  }

  /** The line's value (its text left in lineText), or SKIPPED for a blank or malformed line. */
  private parseValue(raw: RawLine): unknown {
    const text = raw.text;
    this.lineText = text;
    if (text.trim() === "") {
      this.skipped.push({ line: raw.line, reason: "blank" });
      this.diagnostics.push(diag("blank-line", this.file, raw.line));
      return SKIPPED;
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      this.skipped.push({ line: raw.line, reason: "malformed" });
      const column = errorColumn(err, text);
      const code = raw.unterminated ? "truncated-line" : "malformed-json";
      this.diagnostics.push(diag(code, this.file, raw.line, { reason: errorReason(err) }, column === undefined ? {} : { column }));
      return SKIPPED;
    }
  }

  /** A `session` line: the header when it comes first, else an extra header pi skips. */
  private headerValue(value: Record<string, unknown>, line: number, firstParsed: boolean): void {
    if (!firstParsed) {
      this.skipped.push({ line, reason: "header" });
      this.diagnostics.push(diag("extra-header", this.file, line, { headerLine: this.headerLine }));
      return;
    }
    this.header = value as Header;
    this.headerLine = line;
    if (typeof value.id !== "string") this.diagnostics.push(diag("header-invalid-id", this.file, line));
    const version = (value.version ?? 1) as number;
    this.version = version;
    if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
      this.diagnostics.push(diag("version-unknown", this.file, line, { version: JSON.stringify(value.version) }));
    } else if (version > CURRENT_VERSION) {
      this.diagnostics.push(diag("version-future", this.file, line, { version, supported: CURRENT_VERSION }));
    }
  }

  /** pi agent-core's own JSONL store (`{"kind":"header","version":4,…}`), which no pi CLI writes yet. */
  private foreignHeader(value: Record<string, unknown>, line: number): void {
    this.foreign = true;
    this.diagnostics.push(
      diag("foreign-format", this.file, line, {
        format: "agent-core",
        version: typeof value.version === "number" ? value.version : JSON.stringify(value.version ?? null),
        supported: CURRENT_VERSION,
      }),
    );
  }

  /** An entry line parsed: its record, v1 migration, indexing, and onEntry. */
  private entryValue(value: Record<string, unknown>, raw: RawLine, firstParsed: boolean): void {
    if (firstParsed) {
      this.diagnostics.push(diag("header-missing", this.file, raw.line, { found: typeof value.type === "string" ? value.type : "object" }));
      // Without a header there is no version: entries that carry ids are read as current, others as v1.
      this.version = typeof value.id === "string" ? CURRENT_VERSION : 1;
    }
    const text = this.lineText;
    this.memory?.put(raw.line, text);
    const rec = makeRec(value, raw, this.entries.length, this.tables);
    if (this.bodies && rec.type === "message") {
      try {
        rec.body = messageBody(value.message);
      } catch {
        // Tool call arguments nested too deep to write back: the caller parses the entry back and fails as it did.
      }
    }
    // Only v1 migration looks entries up by line (the version is settled by the first parsed line).
    if ((this.version as unknown as number) < 2) this.migrateV1(rec, value, raw.line);
    else if (rec.id === undefined) {
      this.diagnostics.push(diag("missing-id", this.file, raw.line, { found: value.id === undefined ? "none" : typeof value.id }));
    }
    this.addRec(rec, raw.line);
    this.onEntry?.(rec, value, text, { file: this.file, version: this.version });
  }

  /** A v1 entry: its id from its line, its parent the entry before, a compaction's kept entry from its index. */
  private migrateV1(rec: EntryFields, value: Record<string, unknown>, line: number): void {
    this.entryByLine.set(line, rec);
    rec.id = v1Id(line);
    rec.parentId = this.prevV1Id;
    this.prevV1Id = rec.id;
    if (rec.type === "compaction" && typeof value.firstKeptEntryIndex === "number") {
      rec.firstKeptEntryIndex = value.firstKeptEntryIndex;
      // Only targets already given an id resolve, as in pi, where a forward index finds no id yet.
      const targetLine = this.parsedLines[value.firstKeptEntryIndex];
      const target = targetLine === undefined ? undefined : this.entryByLine.get(targetLine);
      if (target?.id !== undefined) rec.firstKeptEntryId = target.id;
      else delete rec.firstKeptEntryId;
    }
  }

  /**
   * Past idsAtEndFrom entries: byId for every entry, and each duplicate-id finding of an entry from there on put
   * where indexing line by line reports it (after the findings of the lines before, and the line's own). Those of
   * earlier entries were reported as their lines came.
   */
  private indexIds(): void {
    const { index, repeated } = IdIndex.build(this.entries);
    this.byId = index;
    const late = repeated.filter((r) => r.rec.index >= this.idsAtEndFrom);
    if (late.length === 0) return;
    const diagnostics = this.diagnostics;
    const merged: Diagnostic[] = [];
    let k = 0;
    for (const { rec, earlier } of late) {
      const at = this.diagAt[rec.index - this.idsAtEndFrom] as number;
      while (k < at) merged.push(diagnostics[k++] as Diagnostic);
      merged.push(
        diag("duplicate-id", this.file, rec.line, { id: rec.id as string, firstLine: earlier.line }, { entryId: rec.id as string }),
      );
    }
    while (k < diagnostics.length) merged.push(diagnostics[k++] as Diagnostic);
    diagnostics.length = 0;
    for (const d of merged) diagnostics.push(d);
  }

  /** The state to go on from (see loadResumable), taken once every line is in and before finish. */
  state(facts: LineSourceFacts): IndexerState | undefined {
    if (this.foreign || this.idRepeated || this.header === null || this.headerLine === null || this.version !== CURRENT_VERSION)
      return undefined;
    // The next line starts after the last line end read: before a held tail, or at the end of a file that ends in one.
    let start: LineStart;
    if (facts.heldTail !== undefined) start = { offset: facts.heldTail.offset, line: facts.heldTail.line - 1, bom: facts.bom };
    else if (facts.finalNewline) start = { offset: facts.bytes, line: facts.lines, bom: facts.bom };
    else return undefined;
    return {
      start,
      entries: this.entries,
      diagnostics: this.diagnostics.slice(),
      skipped: this.skipped.slice(),
      header: this.header,
      headerLine: this.headerLine,
      crlfLines: this.crlfLines,
      labels: [...this.labels],
      sessionName: this.sessionName,
    };
  }

  /** Takes up a state (a fresh indexer's first call): its records (their index and time set), ids and labels. */
  restore(state: IndexerState): void {
    this.header = state.header;
    this.headerLine = state.headerLine;
    this.version = CURRENT_VERSION;
    this.sawFirstParsed = true;
    this.crlfLines = state.crlfLines;
    this.sessionName = state.sessionName;
    for (const d of state.diagnostics) this.diagnostics.push(d);
    for (const k of state.skipped) this.skipped.push(k);
    for (const [target, label] of state.labels) this.labels.set(target, label);
    // The state's records are taken as they are (a copy of each was a tenth of going on with a large session).
    for (const [i, rec] of state.entries.entries()) {
      rec.index = i;
      rec.time = entryTime(rec.timestamp);
      this.entries.push(rec);
      // A state has no repeated id (state()), so every id is set once.
      if (rec.id !== undefined) this.byId.set(rec.id, rec);
    }
  }

  session(facts: LineSourceFacts): Session {
    const entries = this.entries as EntryRec[];
    return {
      file: this.file,
      path: this.path,
      header: this.header,
      headerLine: this.headerLine,
      version: this.version,
      entries,
      byId: this.byId as Map<string, EntryRec>,
      labels: this.labels,
      sessionName: this.sessionName,
      defaultLeaf: entries[entries.length - 1] ?? null,
      diagnostics: this.diagnostics,
      facts: { ...facts, crlfLines: this.crlfLines },
      skipped: this.skipped,
      store: this.store,
    };
  }

  finish(facts: LineSourceFacts): Session {
    const { diagnostics, file } = this;
    if (this.entries.length > this.idsAtEndFrom) this.indexIds();
    if (facts.heldTail !== undefined) diagnostics.push(heldTailDiagnostic(file, facts.heldTail));
    if (facts.bom) diagnostics.push(diag("bom", file, 1));
    if (this.crlfLines > 0) diagnostics.push(diag("crlf", file, null, { lines: this.crlfLines }));
    if (!this.sawFirstParsed) diagnostics.push(diag("header-missing", file, null, { found: "empty" }));
    // The one rule for input that is no session at all (prose, a binary, an empty file or stdin): nothing to read.
    if (this.header === null && this.entries.length === 0 && !this.foreign) {
      diagnostics.push(diag("not-a-session", file, null, { empty: (facts.stat?.size ?? facts.bytes) === 0 }));
    }
    // The entries index was only needed for v1 migration.
    this.entryByLine.clear();
    return this.session(facts);
  }
}

/** The full index record of a parsed entry (before migration). Exported for tests. */
export function makeRec(
  o: Record<string, unknown>,
  raw: Pick<RawLine, "line" | "offset" | "length">,
  index: number,
  tables: FieldTables = FULL_TABLES,
): EntryFields {
  const rec = new NewRec(
    index,
    raw.line,
    raw.offset,
    raw.length,
    typeof o.id === "string" && o.id !== "" ? o.id : undefined,
    o.parentId === null ? null : typeof o.parentId === "string" ? o.parentId : undefined,
    typeof o.type === "string" ? o.type : "",
    o.timestamp,
    entryTime(o.timestamp),
  );
  extractFields(rec, o, tables);
  return rec;
}

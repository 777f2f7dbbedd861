import { isAscii } from "node:buffer";
import {
  CONDENSE_MIN_LINE,
  condenseLine,
  LazyLine,
  LINE_CRLF,
  LINE_INVALID_UTF8,
  LINE_UNTERMINATED,
  protectedKeys,
  readLineBytes,
  readLines,
  type HeldTail,
  type LineSourceFacts,
  type RawLine,
  type Source,
} from "../io/scan/index.js";
import { FileRangeReader } from "../io/store.js";
import { messageBody } from "./body.js";
import { diag } from "./codes.js";
import { extractFields } from "./extract.js";
import { IdIndex } from "./ids.js";
import { NewRec } from "./rec.js";
import { CHECK_TABLES, FULL_KEYS, FULL_TABLES, type FieldTables, type ScanDetail } from "./fields.js";
import { isObject } from "./json.js";
import { skeletonRec } from "./skeleton.js";
import { entryTime } from "./time.js";
import { CURRENT_VERSION, KNOWN_ENTRY_TYPES, v1Id, type Session } from "./session.js";
import type { Diagnostic, EntryRec, EntryStore, Header } from "./types.js";

export interface LoadOptions {
  /** Name for output and diagnostics; defaults to the path, or "-" for a stream. */
  name?: string;
  /**
   * Called now and then with bytes read so far, for progress display: at most every PROGRESS_EVERY_MS, and not in
   * the first PROGRESS_AFTER_MS (a short load shows nothing).
   */
  onProgress?: (bytes: number) => void;
  /**
   * "full" (default): every EntryRec field. "skeleton": only the fields the tree, paths, labels and references
   * need (ids, parents, types, roles, timestamps, label and session-info fields, compaction and branch-summary
   * references); previews, usage and tool names are left out. "spend": the skeleton's fields and what spend
   * counting reads (usage objects, the model and provider of assistant messages and usage entries, usage entries'
   * kind; fields.ts's spend rows). "tables": the spend detail's fields and, on message records, `body` (what
   * `pisess tables` reads of a message: model/body.ts), wherever the scanner read it from the bytes or the line was
   * parsed whole (a record without it is one the caller must read back). "preview": every field but those only spend
   * counting reads (usage, an assistant's provider and model, a usage entry's fields), for the text views. The full,
   * skeleton, spend, tables and preview loads read most lines with the byte scanner. "check": the skeleton's fields
   * and what validate's checks read (fields.ts's check rows: tool call ids and names), from lines parsed whole.
   */
  detail?: "full" | ScanDetail | "check";
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
  onEntry?: (rec: EntryRec, value: Record<string, unknown>, text: string, at: { file: string; version: number }) => void;
}

/** The keys the pre-pass must not cut: the ones the index reads whole. */
const CONDENSE_KEYS = protectedKeys(FULL_KEYS);

/**
 * loadSession indexes the ids of the entries past this many once the file is read (model/ids.ts): a million Map.set
 * calls among the records being made were a third of a skeleton load, but sorting a small file's ids after its load
 * cost more than the Map (usage over 1,000 sessions of ~1,000 entries: 1.43 → 2.26 CPU-s).
 */
export const IDS_AT_END_FROM = 1 << 16;
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
  rawLine(rec: EntryRec): string {
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
  rawLine(rec: EntryRec): string {
    return this.reader.read(rec.offset, rec.length);
  }
  rawBytes(rec: EntryRec): Buffer {
    return this.reader.readBytes(rec.offset, rec.length);
  }
  close(): void {
    this.reader.close();
  }
}

/**
 * Reads a session in one streaming pass and builds its index. Never writes; never throws for bad content (every
 * problem becomes a diagnostic), only for I/O errors.
 */
export async function loadSession(source: Source, options: LoadOptions = {}): Promise<Session> {
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

/** The finding for a live file's unterminated last line, left out of the reading (the snapshot rule). */
export function heldTailDiagnostic(file: string, tail: HeldTail): Diagnostic {
  return diag("incomplete-last-line", file, tail.line, { bytes: tail.length });
}

/**
 * Builds a session index line by line, in file order: what loadSession does for a whole file, and what
 * `pisess follow` does for lines as they are appended.
 */
export interface SessionIndexer {
  /** Feeds the next line; returns the entry it added to the index, if it added one. */
  line(raw: RawLine): EntryRec | undefined;
  onLine(raw: RawLine): void;
  onBytes(buf: Buffer, start: number, end: number, line: number, offset: number, flags: number): void;
  /** The session as indexed so far (it shares the index, which goes on growing with further lines). */
  session(facts: LineSourceFacts): Session;
  /** The session once every line is in: whole-file findings added, v1 bookkeeping dropped. Call once. */
  finish(facts: LineSourceFacts): Session;
}

/** An indexer for `file`, whose entries `store` reads back (`memory`: the store that keeps the lines, for streams). */
export function createIndexer(
  file: string,
  path: string | undefined,
  store: EntryStore,
  memory: { put(line: number, text: string): void } | null,
  options: LoadOptions = {},
  /**
   * The entries from this position on have their ids indexed once every line is in (finish), not line by line: with
   * more entries than that, byId is then an IdIndex, and a session taken before finish lacks their ids. loadSession
   * gives IDS_AT_END_FROM; follow indexes every line as it comes.
   */
  idsAtEndFrom = Number.POSITIVE_INFINITY,
): SessionIndexer {
  const diagnostics: Diagnostic[] = [];
  const entries: EntryRec[] = [];
  let byId: Map<string, EntryRec> = new Map<string, EntryRec>();
  /** For entry idsAtEndFrom + k: how many diagnostics there were when its duplicate-id would have been reported. */
  let diagAt = new Int32Array(0);
  const skipped: Session["skipped"] = [];
  let header: Header | null = null;
  let headerLine: number | null = null;
  let version = 1;
  let sawFirstParsed = false;
  let crlfLines = 0;
  // pi's v1 migration indexes every parsed value, the header being 0; remember which line each index was.
  const parsedLines: number[] = [];
  const entryByLine = new Map<number, EntryRec>();
  let prevV1Id: string | null = null;
  let lastProgress = 0;
  const started = Date.now();
  // Condensed long lines are not whole values, which onEntry needs.
  const fast = options.fastScan !== false && options.onEntry === undefined;
  const bodies = options.detail === "tables";
  const scanDetail: ScanDetail = options.detail === undefined || options.detail === "check" ? "full" : options.detail;
  // Lines parsed whole fill every field, but for the check detail, which reads only its own rows.
  const tables = options.detail === "check" ? CHECK_TABLES : FULL_TABLES;
  let lastProgressAt = started + PROGRESS_AFTER_MS - PROGRESS_EVERY_MS;

  const progress = (offset: number): void => {
    if (options.onProgress && offset - lastProgress > 8 << 20) {
      lastProgress = offset;
      const now = Date.now();
      if (now - lastProgressAt >= PROGRESS_EVERY_MS) {
        lastProgressAt = now;
        options.onProgress(offset);
      }
    }
  };

  const onEntry = options.onEntry;
  const labels = new Map<string, string>();
  let sessionName: string | undefined;
  let added: EntryRec | undefined;
  let idRepeated = false;

  /** Indexes a record made by either path: role migration, type check, ids (last duplicate wins), labels. */
  const addRec = (rec: EntryRec, line: number): void => {
    entries.push(rec);
    added = rec;
    if ((version as unknown as number) < 3 && rec.role === "hookMessage") rec.role = "custom";
    if (!KNOWN_ENTRY_TYPES.has(rec.type)) {
      diagnostics.push(diag("unknown-entry-type", file, line, { type: rec.type }, rec.id ? { entryId: rec.id } : {}));
    }
    const late = entries.length - 1 - idsAtEndFrom;
    if (late >= 0) {
      if (late === diagAt.length) {
        const grown = new Int32Array(Math.max(1024, late * 2));
        grown.set(diagAt);
        diagAt = grown;
      }
      diagAt[late] = diagnostics.length;
    } else if (rec.id !== undefined) {
      // Until an id repeats, one set does: a set that does not grow the map met a duplicate, and the entry it
      // replaced is the last earlier one with that id. A lookup before each set was a large part of indexing.
      let earlier: EntryRec | undefined;
      if (idRepeated) earlier = byId.get(rec.id);
      const size = byId.size;
      byId.set(rec.id, rec);
      if (!idRepeated && byId.size === size) {
        idRepeated = true;
        earlier = lastWithId(rec.id, entries.length - 2);
      }
      if (earlier) {
        diagnostics.push(diag("duplicate-id", file, line, { id: rec.id, firstLine: earlier.line }, { entryId: rec.id }));
      }
    }
    addLabel(rec);
  };

  /** The entry at or before position `from` with this id (there is one: the map held it). */
  const lastWithId = (id: string, from: number): EntryRec => {
    for (let i = from; i >= 0; i--) if ((entries[i] as EntryRec).id === id) return entries[i] as EntryRec;
    throw new Error(`no earlier entry with id ${id}`);
  };

  const addLabel = (rec: EntryRec): void => {
    // Labels and the name resolve as pi resolves them, in file order.
    if (rec.type === "label" && rec.targetId !== undefined) {
      if (rec.labelText) labels.set(rec.targetId, rec.labelText);
      else labels.delete(rec.targetId);
    } else if (rec.type === "session_info" && rec.name !== undefined && rec.name.trim() !== "") {
      sessionName = rec.name.trim();
    }
  };

  const onLine = (raw: RawLine): void => {
    if (raw.crlf) crlfLines++;
    if (raw.invalidUtf8) diagnostics.push(diag("invalid-utf8", file, raw.line));
    progress(raw.offset);
    parseLine(raw);
  };

  const onBytes = (buf: Buffer, start: number, end: number, line: number, offset: number, flags: number): void => {
    if ((flags & LINE_CRLF) !== 0) crlfLines++;
    const invalidUtf8 = (flags & LINE_INVALID_UTF8) !== 0;
    if (invalidUtf8) diagnostics.push(diag("invalid-utf8", file, line));
    progress(offset);
    if (!invalidUtf8 && sawFirstParsed && typeof version === "number" && version >= 2) {
      const rec = skeletonRec(buf, start, end, entries.length, line, offset, scanDetail);
      if (rec !== null) {
        addRec(rec, line);
        return;
      }
    }
    const bytes = buf.subarray(start, end);
    parseLine(
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

  // Set when the first line shows another program's format: the rest is not read as pi entries.
  let foreign = false;

  const parseLine = (raw: RawLine): void => {
    if (foreign) return;
    let value: unknown;
    // Set when the value was parsed from the condensed line: its long strings are cut.
    let condensedValue = false;
    // Fast path for long lines after the header: parse the line with the tails of long strings cut out (see
    // io/scan/condense.ts); anything unusual takes the ordinary path below, which also words the errors.
    if (fast && sawFirstParsed && memory === null && raw.bytes !== undefined && raw.length >= CONDENSE_MIN_LINE && !raw.invalidUtf8) {
      const condensed = condenseLine(raw.bytes, CONDENSE_KEYS);
      if (condensed !== null) {
        try {
          value = JSON.parse(condensed);
          condensedValue = true;
        } catch {
          value = undefined;
        }
      }
    }
    let text = "";
    if (value === undefined) {
      text = raw.text;
      if (text.trim() === "") {
        skipped.push({ line: raw.line, reason: "blank" });
        diagnostics.push(diag("blank-line", file, raw.line));
        return;
      }
      try {
        value = JSON.parse(text);
      } catch (err) {
        skipped.push({ line: raw.line, reason: "malformed" });
        const column = errorColumn(err, text);
        const code = raw.unterminated ? "truncated-line" : "malformed-json";
        diagnostics.push(diag(code, file, raw.line, { reason: errorReason(err) }, column === undefined ? {} : { column }));
        return;
      }
    }
    // Only v1 files use it, whose version is settled by the first parsed line.
    if (!sawFirstParsed || (version as unknown as number) < 2) parsedLines.push(raw.line);
    const firstParsed = !sawFirstParsed;
    sawFirstParsed = true;
    if (!isObject(value)) {
      skipped.push({ line: raw.line, reason: "non-object" });
      const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
      diagnostics.push(diag("non-object-line", file, raw.line, { kind }));
      if (firstParsed) diagnostics.push(diag("header-missing", file, raw.line, { found: kind }));
      return;
    }
    if (value.type === "session") {
      if (firstParsed) {
        header = value as Header;
        headerLine = raw.line;
        if (typeof value.id !== "string") diagnostics.push(diag("header-invalid-id", file, raw.line));
        version = (value.version ?? 1) as number;
        if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
          diagnostics.push(diag("version-unknown", file, raw.line, { version: JSON.stringify(value.version) }));
        } else if (version > CURRENT_VERSION) {
          diagnostics.push(diag("version-future", file, raw.line, { version, supported: CURRENT_VERSION }));
        }
      } else {
        skipped.push({ line: raw.line, reason: "header" });
        diagnostics.push(diag("extra-header", file, raw.line, { headerLine }));
      }
      return;
    }
    if (firstParsed && value.kind === "header") {
      // pi agent-core's own JSONL store (`{"kind":"header","version":4,…}`), which no pi CLI writes yet.
      foreign = true;
      diagnostics.push(
        diag("foreign-format", file, raw.line, {
          format: "agent-core",
          version: typeof value.version === "number" ? value.version : JSON.stringify(value.version ?? null),
          supported: CURRENT_VERSION,
        }),
      );
      return;
    }
    if (firstParsed) {
      diagnostics.push(diag("header-missing", file, raw.line, { found: typeof value.type === "string" ? value.type : "object" }));
      // Without a header there is no version: entries that carry ids are read as current, others as v1.
      version = typeof value.id === "string" ? CURRENT_VERSION : 1;
    }
    memory?.put(raw.line, text);
    const rec = makeRec(value, raw, entries.length, tables);
    if (bodies && !condensedValue && rec.type === "message") {
      try {
        rec.body = messageBody(value.message);
      } catch {
        // Tool call arguments nested too deep to write back: the caller parses the entry back and fails as it did.
      }
    }
    // Only v1 migration looks entries up by line (the version is settled by the first parsed line).
    if ((version as unknown as number) < 2) entryByLine.set(raw.line, rec);
    if ((version as unknown as number) < 2) {
      rec.id = v1Id(raw.line);
      rec.parentId = prevV1Id;
      prevV1Id = rec.id;
      if (rec.type === "compaction" && typeof value.firstKeptEntryIndex === "number") {
        rec.firstKeptEntryIndex = value.firstKeptEntryIndex;
        // Only targets already given an id resolve, as in pi, where a forward index finds no id yet.
        const targetLine = parsedLines[value.firstKeptEntryIndex];
        const target = targetLine === undefined ? undefined : entryByLine.get(targetLine);
        if (target?.id !== undefined) rec.firstKeptEntryId = target.id;
        else delete rec.firstKeptEntryId;
      }
    } else if (rec.id === undefined) {
      diagnostics.push(diag("missing-id", file, raw.line, { found: value.id === undefined ? "none" : typeof value.id }));
    }
    addRec(rec, raw.line);
    onEntry?.(rec, value, text, { file, version });
  };

  /**
   * Past idsAtEndFrom entries: byId for every entry, and each duplicate-id finding of an entry from there on put
   * where indexing line by line reports it (after the findings of the lines before, and the line's own). Those of
   * earlier entries were reported as their lines came.
   */
  const indexIds = (): void => {
    const { index, repeated } = IdIndex.build(entries);
    byId = index;
    const late = repeated.filter((r) => r.rec.index >= idsAtEndFrom);
    if (late.length === 0) return;
    const merged: Diagnostic[] = [];
    let k = 0;
    for (const { rec, earlier } of late) {
      const at = diagAt[rec.index - idsAtEndFrom] as number;
      while (k < at) merged.push(diagnostics[k++] as Diagnostic);
      merged.push(diag("duplicate-id", file, rec.line, { id: rec.id as string, firstLine: earlier.line }, { entryId: rec.id as string }));
    }
    while (k < diagnostics.length) merged.push(diagnostics[k++] as Diagnostic);
    diagnostics.length = 0;
    for (const d of merged) diagnostics.push(d);
  };

  const session = (facts: LineSourceFacts): Session => ({
    file,
    path,
    header,
    headerLine,
    version,
    entries,
    byId,
    labels,
    sessionName,
    defaultLeaf: entries[entries.length - 1] ?? null,
    diagnostics,
    facts: { ...facts, crlfLines },
    skipped,
    store,
  });

  return {
    line(raw) {
      added = undefined;
      onLine(raw);
      return added;
    },
    onLine,
    onBytes,
    session,
    finish(facts) {
      if (entries.length > idsAtEndFrom) indexIds();
      if (facts.heldTail !== undefined) diagnostics.push(heldTailDiagnostic(file, facts.heldTail));
      if (facts.bom) diagnostics.push(diag("bom", file, 1));
      if (crlfLines > 0) diagnostics.push(diag("crlf", file, null, { lines: crlfLines }));
      if (!sawFirstParsed) diagnostics.push(diag("header-missing", file, null, { found: "empty" }));
      // The one rule for input that is no session at all (prose, a binary, an empty file or stdin): nothing to read.
      if (header === null && entries.length === 0 && !foreign) {
        diagnostics.push(diag("not-a-session", file, null, { empty: (facts.stat?.size ?? facts.bytes) === 0 }));
      }
      // The entries index was only needed for v1 migration.
      entryByLine.clear();
      return session(facts);
    },
  };
}

/** The full index record of a parsed entry (before migration). Exported for tests. */
export function makeRec(
  o: Record<string, unknown>,
  raw: Pick<RawLine, "line" | "offset" | "length">,
  index: number,
  tables: FieldTables = FULL_TABLES,
): EntryRec {
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

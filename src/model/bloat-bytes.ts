/**
 * `pisess bloat`'s measure: every byte of a session file attributed to a kind (text, thinking, tool output, …) and a
 * place, by walking each line's JSON bytes (io/scan/json-bytes.ts) in one pass. It lives beside the store, the one
 * way above the model to the byte scanners; ops/bloat.ts gives each entry its place.
 */
import { base64Decoded, JsonBytes, Keys, LINE_CRLF, LINE_UNTERMINATED, readLineBytes } from "../io/scan/index.js";
import type { Session } from "./session.js";
import type { EntryRec } from "./detail.js";

/**
 * Where a byte sits. Every byte has exactly one place: a fork's copied entries count as "fork-copy" wherever they
 * are; the header, BOM and defective lines are "file".
 */
const PLACES = ["context", "summarised", "edited-out", "path-other", "other-branches", "fork-copy", "file"] as const;
export type Place = (typeof PLACES)[number];

/** What a byte holds. Every byte of the file has exactly one kind. */
const KINDS = [
  "text",
  "thinking",
  "thinkingSignature",
  "toolCallArguments",
  "toolOutput",
  "image",
  "details",
  "summary",
  "custom",
  "jsonOverhead",
  "header",
  "defective",
  "lineEndings",
  "bom",
] as const;
export type Kind = (typeof KINDS)[number];

export interface TopEntry {
  line: number;
  id: string | null;
  type: string;
  role: string | null;
  tool: string | null;
  bytes: number;
  place: Place;
  onPath: boolean;
}

export interface TopBlock {
  line: number;
  id: string | null;
  kind: Kind;
  tool: string | null;
  mimeType: string | null;
  bytes: number;
}

export interface ImageRow {
  mimeType: string;
  count: number;
  base64Bytes: number;
  decodedBytes: number;
}

export interface BloatMeasure {
  bytes: number;
  byType: { type: string; bytes: number; entries: number }[];
  byRole: { role: string; bytes: number; entries: number }[];
  byKind: { kind: Kind; bytes: number }[];
  byPlace: { place: Place; bytes: number; entries: number; tokens: number }[];
  toolOutputByTool: { tool: string; bytes: number; results: number }[];
  toolCallArgumentsByTool: { tool: string; bytes: number; calls: number }[];
  customByType: { customType: string; bytes: number; entries: number }[];
  images: { count: number; base64Bytes: number; decodedBytes: number; tokens: number; byMime: ImageRow[] };
  top: TopEntry[];
  topBlocks: TopBlock[];
}

/** pi's estimate counts an image as 4,800 characters, 1,200 tokens. */
const IMAGE_TOKENS = 1200;

class Sums<K extends string> {
  readonly m = new Map<K, { bytes: number; n: number }>();
  add(k: K, bytes: number, n = 1): void {
    const r = this.m.get(k);
    if (r) {
      r.bytes += bytes;
      r.n += n;
    } else this.m.set(k, { bytes, n });
  }
  rows(): [K, { bytes: number; n: number }][] {
    return [...this.m].sort((a, b) => b[1].bytes - a[1].bytes || (a[0] < b[0] ? -1 : 1));
  }
}

/** Keeps the n largest items seen, largest first; ties keep the earlier one. */
class TopN<T extends { bytes: number }> {
  readonly items: T[] = [];
  constructor(private readonly n: number) {}
  /** Whether an item of this size would get in (checked before building one: most lines are not among the largest). */
  accepts(bytes: number): boolean {
    return this.n > 0 && (this.items.length < this.n || (this.items[this.n - 1] as T).bytes < bytes);
  }
  offer(item: T): void {
    if (this.n <= 0) return;
    if (this.items.length === this.n && (this.items[this.n - 1] as T).bytes >= item.bytes) return;
    let i = this.items.length;
    while (i > 0 && (this.items[i - 1] as T).bytes < item.bytes) i--;
    this.items.splice(i, 0, item);
    if (this.items.length > this.n) this.items.pop();
  }
}

const SKIP_TYPE: Record<string, string> = {
  blank: "(blank)",
  malformed: "(malformed)",
  "non-object": "(non-object)",
  header: "(extra header)",
};

const KIND_INDEX = new Map<Kind, number>(KINDS.map((k, i) => [k, i]));

/** What one entry's walk found: bytes per kind, and the characters pi's estimate would count (as UTF-8 bytes). */
interface EntryTally {
  /** Bytes per kind, indexed as KINDS. */
  kinds: Float64Array;
  estimateBytes: number;
  images: number;
  tool: string | null;
}

/** A value's span as found by a walk: kind, [start, end), and what the largest-blocks list shows with it. */
type BlockSink = (kind: Kind, start: number, end: number, tool: string | null, mimeType: string | null) => void;

interface WalkCtx {
  j: JsonBytes;
  add: (k: Kind, start: number, end: number, estimate: boolean) => void;
  block: BlockSink;
  image: (start: number, end: number, mime: string) => void;
  toolCall: (tool: string, bytes: number) => void;
  setTool: (tool: string) => void;
}

/**
 * One streaming pass over the file: every line's bytes read once, attributed by walking its JSON, one line at a
 * time (memory: the index plus the longest line). `places[rec.index]` is the entry's place (see entryPlaces).
 * The per-line work allocates nothing but what it keeps (see io/scan/json-bytes.ts): the walk state is created once.
 */
export async function measureBloat(
  session: Session,
  file: string,
  places: readonly Place[],
  onPath: Uint8Array,
  top: number,
): Promise<BloatMeasure> {
  const sums = bloatSums(top);
  const { byType, byRole, byKind, byPlace, placeTokens, toolOut, toolArgs, custom, mimes, topEntries, topBlocks } = sums;
  const entries = session.entries;
  const skipped = new Map(session.skipped.map((s) => [s.line, s.reason]));
  let ei = 0;

  const j = new JsonBytes(Buffer.alloc(0), 0);
  const t: EntryTally = { kinds: new Float64Array(KINDS.length), estimateBytes: 0, images: 0, tool: null };
  let curLine = 0;
  let curId: string | null = null;
  const ctx: WalkCtx = {
    j,
    add: (k, start, end, estimate) => {
      const n = end - start;
      const i = KIND_INDEX.get(k) as number;
      t.kinds[i] = (t.kinds[i] as number) + n;
      if (estimate) t.estimateBytes += Math.max(0, n - 2);
    },
    block: (kind, start, end, tool, mimeType) => {
      const bytes = end - start;
      if (topBlocks.accepts(bytes)) topBlocks.offer({ line: curLine, id: curId, kind, tool, mimeType, bytes });
    },
    image: (start, end, mime) => {
      const decoded = base64Decoded(j.buf, start, end);
      let row = mimes.get(mime);
      if (row === undefined) {
        row = { mimeType: mime, count: 0, base64Bytes: 0, decodedBytes: 0 };
        mimes.set(mime, row);
      }
      row.count++;
      row.base64Bytes += end - start;
      row.decodedBytes += decoded;
      t.images++;
    },
    toolCall: (tool, n) => toolArgs.add(tool, n),
    setTool: (tool) => {
      t.tool = tool;
    },
  };

  const sink = (buf: Buffer, start: number, end: number, line: number, _offset: number, flags: number): void => {
    const ending = ((flags & LINE_UNTERMINATED) === 0 ? 1 : 0) + ((flags & LINE_CRLF) !== 0 ? 1 : 0);
    const len = end - start;
    while (ei < entries.length && (entries[ei] as EntryRec).line < line) ei++;
    const rec = entries[ei];
    if (rec && rec.line === line) {
      const place = places[rec.index] ?? "other-branches";
      byType.add(rec.type === "" ? "(no type)" : rec.type, len);
      if (rec.type === "message") byRole.add(rec.role ?? "(none)", len);
      byPlace.add(place, len + ending);
      curLine = line;
      curId = rec.id ?? null;
      t.kinds.fill(0);
      t.estimateBytes = 0;
      t.images = 0;
      t.tool = null;
      j.reset(buf, end);
      const root = j.skipWs(start);
      if (j.isObject(root)) walkEntryObject(ctx, root, j.valueEnd(root), rec);
      let attributed = 0;
      for (let k = 0; k < KINDS.length; k++) {
        const n = t.kinds[k] as number;
        if (n === 0) continue;
        byKind.add(KINDS[k] as Kind, n);
        attributed += n;
      }
      byKind.add("jsonOverhead", len - attributed);
      if (t.tool !== null && rec.type === "message" && rec.role === "toolResult")
        toolOut.add(t.tool, t.kinds[KIND_INDEX.get("toolOutput") as number] as number);
      if (rec.type === "custom" || rec.type === "custom_message") custom.add(`${rec.type}:${rec.customType ?? "?"}`, len);
      const tokens = Math.ceil(t.estimateBytes / 4) + t.images * IMAGE_TOKENS;
      placeTokens.set(place, (placeTokens.get(place) ?? 0) + tokens);
      if (topEntries.accepts(len))
        topEntries.offer({
          line,
          id: rec.id ?? null,
          type: rec.type,
          role: rec.role ?? null,
          tool: t.tool,
          bytes: len,
          place,
          onPath: onPath[rec.index] === 1,
        });
    } else {
      const reason = skipped.get(line);
      const type = line === session.headerLine ? "(header)" : reason ? (SKIP_TYPE[reason] ?? "(malformed)") : "(not read)";
      byType.add(type, len);
      byKind.add(type === "(header)" ? "header" : "defective", len);
      byPlace.add("file", len + ending);
    }
    if (ending > 0) {
      byType.add("(line endings)", ending, 0);
      byKind.add("lineEndings", ending);
    }
  };

  // The loader's chunk size: its read buffer, handed back when the load finished, serves this pass too.
  const facts = await readLineBytes(file, sink, 1 << 20);
  if (facts.bom) {
    byType.add("(bom)", 3, 0);
    byKind.add("bom", 3);
    byPlace.add("file", 3, 0);
  }
  return bloatResult(sums, facts.bytes);
}

/** The tallies one pass of measureBloat fills. */
function bloatSums(top: number) {
  return {
    byType: new Sums<string>(),
    byRole: new Sums<string>(),
    byKind: new Sums<Kind>(),
    byPlace: new Sums<Place>(),
    placeTokens: new Map<Place, number>(),
    toolOut: new Sums<string>(),
    toolArgs: new Sums<string>(),
    custom: new Sums<string>(),
    mimes: new Map<string, ImageRow>(),
    topEntries: new TopN<TopEntry>(top),
    topBlocks: new TopN<TopBlock>(top),
  };
}

/** The measure a finished pass's tallies make, over a file of `bytes` bytes. */
function bloatResult(sums: ReturnType<typeof bloatSums>, bytes: number): BloatMeasure {
  const { byType, byRole, byKind, byPlace, placeTokens, toolOut, toolArgs, custom, mimes, topEntries, topBlocks } = sums;
  const imageRows = [...mimes.values()].sort((a, b) => b.base64Bytes - a.base64Bytes || (a.mimeType < b.mimeType ? -1 : 1));
  const images = {
    count: imageRows.reduce((n, r) => n + r.count, 0),
    base64Bytes: imageRows.reduce((n, r) => n + r.base64Bytes, 0),
    decodedBytes: imageRows.reduce((n, r) => n + r.decodedBytes, 0),
    tokens: 0,
    byMime: imageRows,
  };
  images.tokens = images.count * IMAGE_TOKENS;
  return {
    bytes,
    byType: byType.rows().map(([type, r]) => ({ type, bytes: r.bytes, entries: r.n })),
    byRole: byRole.rows().map(([role, r]) => ({ role, bytes: r.bytes, entries: r.n })),
    byKind: byKind.rows().map(([kind, r]) => ({ kind, bytes: r.bytes })),
    byPlace: byPlace.rows().map(([place, r]) => ({ place, bytes: r.bytes, entries: r.n, tokens: placeTokens.get(place) ?? 0 })),
    toolOutputByTool: toolOut.rows().map(([tool, r]) => ({ tool, bytes: r.bytes, results: r.n })),
    toolCallArgumentsByTool: toolArgs.rows().map(([tool, r]) => ({ tool, bytes: r.bytes, calls: r.n })),
    customByType: custom.rows().map(([customType, r]) => ({ customType, bytes: r.bytes, entries: r.n })),
    images,
    top: topEntries.items,
    topBlocks: topBlocks.items,
  };
}

// One key table per call site (see Keys): a walk at one level never re-enters its own site before reading it.
const ENTRY = new Keys(["message", "summary", "details", "systemMessage", "data", "content", "replacement"]);
const [E_MESSAGE, E_SUMMARY, E_DETAILS, E_SYSTEM, E_DATA, E_CONTENT, E_REPLACEMENT] = [0, 1, 2, 3, 4, 5, 6];
const REPLACEMENT = new Keys(["content"]);
const MESSAGE = new Keys(["role", "toolName", "content", "details", "output", "sections"]);
const [M_ROLE, M_TOOL, M_CONTENT, M_DETAILS, M_OUTPUT, M_SECTIONS] = [0, 1, 2, 3, 4, 5];
const BLOCK = new Keys(["type", "text", "thinking", "thinkingSignature", "name", "arguments", "data", "mimeType"]);
const [B_TYPE, B_TEXT, B_THINKING, B_SIGNATURE, B_NAME, B_ARGUMENTS, B_DATA, B_MIME] = [0, 1, 2, 3, 4, 5, 6, 7];

function walkEntryObject(c: WalkCtx, start: number, end: number, rec: EntryRec): void {
  const { j } = c;
  const k = ENTRY;
  j.pick(start, end, k);
  switch (rec.type) {
    case "message": {
      if (k.has(E_MESSAGE) && j.isObject(k.start(E_MESSAGE))) walkMessage(c, k.start(E_MESSAGE), k.end(E_MESSAGE));
      break;
    }
    case "compaction":
    case "branch_summary": {
      if (k.has(E_SUMMARY)) {
        c.add("summary", k.start(E_SUMMARY), k.end(E_SUMMARY), true);
        c.block("summary", k.start(E_SUMMARY), k.end(E_SUMMARY), null, null);
      }
      if (k.has(E_DETAILS)) c.add("details", k.start(E_DETAILS), k.end(E_DETAILS), false);
      if (k.has(E_SYSTEM) && j.isObject(k.start(E_SYSTEM))) walkMessage(c, k.start(E_SYSTEM), k.end(E_SYSTEM));
      break;
    }
    case "custom": {
      if (k.has(E_DATA)) {
        c.add("custom", k.start(E_DATA), k.end(E_DATA), false);
        c.block("custom", k.start(E_DATA), k.end(E_DATA), rec.customType ?? null, null);
      }
      break;
    }
    case "custom_message": {
      const details = k.has(E_DETAILS);
      const ds = k.start(E_DETAILS);
      const de = k.end(E_DETAILS);
      if (k.has(E_CONTENT)) walkContent(c, k.start(E_CONTENT), k.end(E_CONTENT), "text", null);
      if (details) c.add("details", ds, de, false);
      break;
    }
    case "context_edit": {
      if (k.has(E_REPLACEMENT) && j.isObject(k.start(E_REPLACEMENT))) {
        j.pick(k.start(E_REPLACEMENT), k.end(E_REPLACEMENT), REPLACEMENT);
        if (REPLACEMENT.has(0)) walkContent(c, REPLACEMENT.start(0), REPLACEMENT.end(0), "text", null);
      }
      break;
    }
    default:
      break;
  }
}

function walkMessage(c: WalkCtx, start: number, end: number): void {
  const { j } = c;
  const k = MESSAGE;
  j.pick(start, end, k);
  const role = j.name(k.start(M_ROLE), k.end(M_ROLE));
  const tool = role === "toolResult" ? (j.name(k.start(M_TOOL), k.end(M_TOOL)) ?? "?") : role === "bashExecution" ? "(! command)" : null;
  if (tool !== null) c.setTool(tool);
  // walkContent picks from BLOCK only, so MESSAGE's spans stay valid after it.
  if (k.has(M_CONTENT)) walkContent(c, k.start(M_CONTENT), k.end(M_CONTENT), role === "toolResult" ? "toolOutput" : "text", tool);
  if (k.has(M_DETAILS)) c.add("details", k.start(M_DETAILS), k.end(M_DETAILS), false);
  if (role === "bashExecution" && k.has(M_OUTPUT)) {
    c.add("toolOutput", k.start(M_OUTPUT), k.end(M_OUTPUT), true);
    c.block("toolOutput", k.start(M_OUTPUT), k.end(M_OUTPUT), tool, null);
  }
  if (role === "system" && k.has(M_SECTIONS)) c.add("text", k.start(M_SECTIONS), k.end(M_SECTIONS), true);
}

function walkContent(c: WalkCtx, start: number, end: number, textKind: Kind, tool: string | null): void {
  const { j } = c;
  if (j.isString(start)) {
    c.add(textKind, start, end, true);
    c.block(textKind, start, end, tool, null);
    return;
  }
  if (!j.isArray(start)) return;
  const k = BLOCK;
  for (let el = j.firstElement(start, end); el >= 0; ) {
    const elEnd = j.valueEnd(el);
    if (j.isObject(el)) {
      j.pick(el, elEnd, k);
      const type = j.name(k.start(B_TYPE), k.end(B_TYPE));
      if (type === "text") {
        if (k.has(B_TEXT)) {
          c.add(textKind, k.start(B_TEXT), k.end(B_TEXT), true);
          c.block(textKind, k.start(B_TEXT), k.end(B_TEXT), tool, null);
        }
      } else if (type === "thinking") {
        if (k.has(B_THINKING)) {
          c.add("thinking", k.start(B_THINKING), k.end(B_THINKING), true);
          c.block("thinking", k.start(B_THINKING), k.end(B_THINKING), null, null);
        }
        if (k.has(B_SIGNATURE)) c.add("thinkingSignature", k.start(B_SIGNATURE), k.end(B_SIGNATURE), false);
      } else if (type === "toolCall") {
        const name = j.name(k.start(B_NAME), k.end(B_NAME)) ?? "?";
        if (k.has(B_ARGUMENTS)) {
          const s = k.start(B_ARGUMENTS);
          const e = k.end(B_ARGUMENTS);
          c.add("toolCallArguments", s, e, true);
          c.block("toolCallArguments", s, e, name, null);
          c.toolCall(name, e - s);
        }
      } else if (type === "image") {
        const mime = j.name(k.start(B_MIME), k.end(B_MIME)) ?? "?";
        if (k.has(B_DATA)) {
          const s = k.start(B_DATA);
          const e = k.end(B_DATA);
          c.add("image", s, e, false);
          c.block("image", s, e, tool, mime);
          if (j.isString(s)) c.image(s, e, mime);
        }
      }
    }
    el = j.nextElement(elEnd, end);
  }
}

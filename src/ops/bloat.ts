import { readLineBytes, LINE_CRLF, LINE_UNTERMINATED } from "../io/scan/index.js";
import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { base64Decoded, JsonBytes, type Member, type Span } from "./json-bytes.js";
import { givesMessages } from "./context.js";

/**
 * Where a byte sits. Every byte has exactly one place: a fork's copied entries count as "fork-copy" wherever they
 * are; the header, BOM and defective lines are "file".
 */
export const PLACES = ["context", "summarised", "edited-out", "path-other", "other-branches", "fork-copy", "file"] as const;
export type Place = (typeof PLACES)[number];

/** What a byte holds. Every byte of the file has exactly one kind. */
export const KINDS = [
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

/** byType rows for what is not an entry. */
export const NON_ENTRY_TYPES = [
  "(header)",
  "(bom)",
  "(line endings)",
  "(blank)",
  "(malformed)",
  "(non-object)",
  "(extra header)",
  "(not read)",
];

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

/** What `pisess bloat` reports: the measure, and the leaf and fork facts it was taken with. */
export interface BloatData extends BloatMeasure {
  file: string;
  leaf: { id: string | null; line: number };
  /** Where the path ran into a parent cycle, the places are those of an empty path. */
  pathCycle: boolean;
  /** What a /fork of the active path would leave behind: the entries not on it. */
  fork: { leftBehindBytes: number; leftBehindTokens: number; keptBytes: number };
  /** The fork parent's file, when one was read to find the copied entries. */
  forkParent: string | null;
}

/** pi's estimate counts an image as 4,800 characters, 1,200 tokens. */
export const IMAGE_TOKENS = 1200;

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

/** What one entry's walk found: bytes per kind, and the characters pi's estimate would count (as UTF-8 bytes). */
interface EntryTally {
  kinds: Map<Kind, number>;
  estimateBytes: number;
  images: number;
  tool: string | null;
}

/**
 * One streaming pass over the file: every line's bytes read once, attributed by walking its JSON, one line at a
 * time (memory: the index plus the longest line). `places[rec.index]` is the entry's place (see entryPlaces).
 */
export async function measureBloat(
  session: Session,
  file: string,
  places: readonly Place[],
  onPath: Uint8Array,
  top: number,
): Promise<BloatMeasure> {
  const byType = new Sums<string>();
  const byRole = new Sums<string>();
  const byKind = new Sums<Kind>();
  const byPlace = new Sums<Place>();
  const placeTokens = new Map<Place, number>();
  const toolOut = new Sums<string>();
  const toolArgs = new Sums<string>();
  const custom = new Sums<string>();
  const mimes = new Map<string, ImageRow>();
  const topEntries = new TopN<TopEntry>(top);
  const topBlocks = new TopN<TopBlock>(top);
  const entries = session.entries;
  const skipped = new Map(session.skipped.map((s) => [s.line, s.reason]));
  let ei = 0;

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
      const tally = walkEntry(new JsonBytes(buf, end), start, rec, (kind, s, tool, mimeType) => {
        topBlocks.offer({ line, id: rec.id ?? null, kind, tool, mimeType, bytes: s.end - s.start });
      });
      let attributed = 0;
      for (const [k, n] of tally.kinds) {
        byKind.add(k, n);
        attributed += n;
      }
      byKind.add("jsonOverhead", len - attributed);
      if (tally.tool !== null && rec.type === "message" && rec.role === "toolResult")
        toolOut.add(tally.tool, tally.kinds.get("toolOutput") ?? 0);
      if (rec.type === "custom" || rec.type === "custom_message") custom.add(`${rec.type}:${rec.customType ?? "?"}`, len);
      const tokens = Math.ceil(tally.estimateBytes / 4) + tally.images * IMAGE_TOKENS;
      placeTokens.set(place, (placeTokens.get(place) ?? 0) + tokens);
      topEntries.offer({
        line,
        id: rec.id ?? null,
        type: rec.type,
        role: rec.role ?? null,
        tool: tally.tool,
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

  // Only the walk callbacks need these: tool-call argument sizes per tool, image rows.
  const walkEntry = (j: JsonBytes, start: number, rec: EntryRec, block: BlockSink): EntryTally => {
    const t: EntryTally = { kinds: new Map(), estimateBytes: 0, images: 0, tool: null };
    const add = (k: Kind, s: Span, estimate: boolean) => {
      const n = s.end - s.start;
      t.kinds.set(k, (t.kinds.get(k) ?? 0) + n);
      if (estimate) t.estimateBytes += Math.max(0, n - 2);
    };
    const ctx: WalkCtx = {
      j,
      add,
      block,
      image: (s, mime) => {
        const decoded = base64Decoded(j.buf, s);
        const row = mimes.get(mime) ?? { mimeType: mime, count: 0, base64Bytes: 0, decodedBytes: 0 };
        row.count++;
        row.base64Bytes += s.end - s.start;
        row.decodedBytes += decoded;
        mimes.set(mime, row);
        t.images++;
      },
      toolCall: (tool, n) => toolArgs.add(tool, n),
      setTool: (tool) => {
        t.tool = tool;
      },
    };
    const top = j.valueEnd(j.skipWs(start));
    const root = { start: j.skipWs(start), end: top };
    if (!j.isObject(root)) return t;
    walkEntryObject(ctx, j.members(root), rec);
    return t;
  };

  const facts = await readLineBytes(file, sink);
  if (facts.bom) {
    byType.add("(bom)", 3, 0);
    byKind.add("bom", 3);
    byPlace.add("file", 3, 0);
  }
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
    bytes: facts.bytes,
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

type BlockSink = (kind: Kind, s: Span, tool: string | null, mimeType: string | null) => void;

interface WalkCtx {
  j: JsonBytes;
  add: (k: Kind, s: Span, estimate: boolean) => void;
  block: BlockSink;
  image: (s: Span, mime: string) => void;
  toolCall: (tool: string, bytes: number) => void;
  setTool: (tool: string) => void;
}

function member(ms: Member[], key: string): Member | undefined {
  // The last duplicate key wins, as in JSON.parse.
  for (let i = ms.length - 1; i >= 0; i--) if ((ms[i] as Member).key === key) return ms[i];
  return undefined;
}

function walkEntryObject(c: WalkCtx, ms: Member[], rec: EntryRec): void {
  const { j } = c;
  switch (rec.type) {
    case "message": {
      const m = member(ms, "message");
      if (m && j.isObject(m)) walkMessage(c, j.members(m));
      break;
    }
    case "compaction":
    case "branch_summary": {
      const s = member(ms, "summary");
      if (s) {
        c.add("summary", s, true);
        c.block("summary", s, null, null);
      }
      const d = member(ms, "details");
      if (d) c.add("details", d, false);
      const sys = member(ms, "systemMessage");
      if (sys && j.isObject(sys)) walkMessage(c, j.members(sys));
      break;
    }
    case "custom": {
      const d = member(ms, "data");
      if (d) {
        c.add("custom", d, false);
        c.block("custom", d, rec.customType ?? null, null);
      }
      break;
    }
    case "custom_message": {
      const content = member(ms, "content");
      if (content) walkContent(c, content, "text", null);
      const d = member(ms, "details");
      if (d) c.add("details", d, false);
      break;
    }
    case "context_edit": {
      const r = member(ms, "replacement");
      const content = r && j.isObject(r) ? member(j.members(r), "content") : undefined;
      if (content) walkContent(c, content, "text", null);
      break;
    }
    default:
      break;
  }
}

function walkMessage(c: WalkCtx, ms: Member[]): void {
  const { j } = c;
  const role = j.name(member(ms, "role"));
  const tool = role === "toolResult" ? (j.name(member(ms, "toolName")) ?? "?") : role === "bashExecution" ? "(! command)" : null;
  if (tool !== null) c.setTool(tool);
  const content = member(ms, "content");
  if (content) walkContent(c, content, role === "toolResult" ? "toolOutput" : "text", tool);
  const details = member(ms, "details");
  if (details) c.add("details", details, false);
  if (role === "bashExecution") {
    const out = member(ms, "output");
    if (out) {
      c.add("toolOutput", out, true);
      c.block("toolOutput", out, tool, null);
    }
  }
  if (role === "system") {
    const sections = member(ms, "sections");
    if (sections) c.add("text", sections, true);
  }
}

function walkContent(c: WalkCtx, content: Span, textKind: Kind, tool: string | null): void {
  const { j } = c;
  if (j.isString(content)) {
    c.add(textKind, content, true);
    c.block(textKind, content, tool, null);
    return;
  }
  if (!j.isArray(content)) return;
  for (const el of j.elements(content)) {
    if (!j.isObject(el)) continue;
    const bm = j.members(el);
    const type = j.name(member(bm, "type"));
    if (type === "text") {
      const t = member(bm, "text");
      if (t) {
        c.add(textKind, t, true);
        c.block(textKind, t, tool, null);
      }
    } else if (type === "thinking") {
      const t = member(bm, "thinking");
      if (t) {
        c.add("thinking", t, true);
        c.block("thinking", t, null, null);
      }
      const sig = member(bm, "thinkingSignature");
      if (sig) c.add("thinkingSignature", sig, false);
    } else if (type === "toolCall") {
      const name = j.name(member(bm, "name")) ?? "?";
      const a = member(bm, "arguments");
      if (a) {
        c.add("toolCallArguments", a, true);
        c.block("toolCallArguments", a, name, null);
        c.toolCall(name, a.end - a.start);
      }
    } else if (type === "image") {
      const d = member(bm, "data");
      const mime = j.name(member(bm, "mimeType")) ?? "?";
      if (d) {
        c.add("image", d, false);
        c.block("image", d, tool, mime);
        if (j.isString(d)) c.image(d, mime);
      }
    }
  }
}

/**
 * Each entry's place, from the context at the leaf as buildContext computed it: a source of one of its messages
 * ("context"), taken out by a `replacement: null` edit ("edited-out"), an entry that would add messages but sits
 * before the compaction in effect ("summarised"), any other entry on the path ("path-other"), the rest
 * ("other-branches"); entries copied from a fork parent are "fork-copy" wherever they are.
 */
export function entryPlaces(
  session: Session,
  path: readonly EntryRec[],
  ctx: { sources: readonly EntryRec[]; removed: readonly { source: EntryRec }[]; compaction: EntryRec | null },
  copied: Uint8Array | undefined,
): Place[] {
  const places: Place[] = new Array(session.entries.length).fill("other-branches");
  const cpos = ctx.compaction ? path.indexOf(ctx.compaction) : -1;
  path.forEach((rec, i) => {
    places[rec.index] = i < cpos && givesMessages(rec) ? "summarised" : "path-other";
  });
  for (const r of ctx.removed) places[r.source.index] = "edited-out";
  for (const rec of ctx.sources) places[rec.index] = "context";
  if (copied) for (const rec of session.entries) if (copied[rec.index] === 1) places[rec.index] = "fork-copy";
  return places;
}

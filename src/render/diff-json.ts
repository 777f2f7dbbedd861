import type { EntryRec } from "../model/detail.js";
import type { ContextDiff, ContextItem, ContextSide, DiffSide, Lineage, PathDiff } from "../ops/diff.js";
import type { EntryStats } from "../ops/stats.js";

/**
 * How two paths are lined up: `same-file` by entry identity; `id` by entry id (a `/fork` copies the path with its ids);
 * `content` by what the entries say (role and text), for files that share no ids.
 */
// ops/diff.ts's Align written out: the schema generator cannot index PathDiff, whose records are typed by their load.
type Align = "same-file" | "id" | "content";

type Json = Record<string, unknown>;

/** An entry named in a diff document. */
export interface DiffRefJson {
  id: string | null;
  line: number;
}

/** One side of `diff --json` (paths). */
export interface PathDiffSideJson {
  /** Two files: this side's file. */
  file?: string;
  leaf: DiffRefJson | null;
  entries: { id: string | null; line: number; type: string; role?: string }[];
  /** diff --leaves: divergent entries left out of `entries` by the cap (only when there are some). */
  more?: number;
  stats: EntryStats;
}

/** `diff --json` for two paths (and one item of `diff --leaves --json`'s "diffs"). */
export interface PathDiffJson {
  file?: string;
  align: Align;
  /** Two files only. */
  lineage?: Lineage | null;
  /** The last shared entry; with two files, `right` is its twin on the right side. */
  base: (DiffRefJson & { right?: DiffRefJson | null }) | null;
  same: boolean;
  reask: { left: DiffRefJson | null; right: DiffRefJson | null; sameText: boolean } | null;
  left: PathDiffSideJson;
  right: PathDiffSideJson;
}

/** One side of `diff --context --json`. */
export interface ContextDiffSideJson {
  file?: string;
  leaf: DiffRefJson | null;
  thinkingLevel: unknown;
  model: unknown;
  compaction: DiffRefJson | null;
  keptFrom: DiffRefJson | null;
  /** How many messages the context holds. */
  messages: number;
  entries: { index: number; role: unknown; source: PathDiffSideJson["entries"][number] | null; shared?: true }[];
  /** diff --leaves: messages left out of `entries` by the cap (only when there are some). */
  more?: number;
  stats: EntryStats;
}

/** `diff --context --json`. */
export interface ContextDiffJson {
  mode: "context";
  file?: string;
  align: Align;
  lineage?: Lineage | null;
  base: { index: number; id: string | null; line: number | null; right?: DiffRefJson | null } | null;
  same: boolean;
  left: ContextDiffSideJson;
  right: ContextDiffSideJson;
}

function ref(rec: EntryRec | null | undefined): Json | null {
  return rec ? { id: rec.id ?? null, line: rec.line } : null;
}

function entryItem(rec: EntryRec): Json {
  const o: Json = { id: rec.id ?? null, line: rec.line, type: rec.type };
  if (rec.type === "message" && rec.role !== undefined) o.role = rec.role;
  return o;
}

export interface DiffJsonOptions {
  /** One file: its name at the top. */
  file?: string;
  /** Two files: the name of each side, and how they are related. */
  files?: { left: string; right: string };
  lineage?: Lineage;
  /** List at most this many divergent entries per side, then `"more": N` (diff --leaves); default: all. */
  maxEntries?: number;
}

/** The first `max` items of a list (all without a max), and how many are left out. */
export function capped<T>(items: readonly T[], total: number, max: number | undefined): { shown: readonly T[]; more: number } {
  const shown = max === undefined || items.length <= max ? items : items.slice(0, max);
  return { shown, more: total - shown.length };
}

function sideJson(side: DiffSide, file: string | undefined, max: number | undefined): Json {
  const o: Json = {};
  if (file !== undefined) o.file = file;
  o.leaf = ref(side.leaf);
  const { shown, more } = capped(side.divergent, side.count, max);
  o.entries = shown.map(entryItem);
  if (more > 0) o.more = more;
  o.stats = side.stats;
  return o;
}

function baseJson(left: EntryRec | null, right: EntryRec | null, twoFiles: boolean): Json | null {
  if (!left) return null;
  const o = ref(left) as Json;
  if (twoFiles) o.right = ref(right);
  return o;
}

/** The JSON object of one path diff (the document for a pair; one item of `--leaves`). */
export function pathDiffObject(d: PathDiff, opts: DiffJsonOptions = {}): PathDiffJson {
  const two = opts.files !== undefined;
  const o: Json = {};
  if (opts.file !== undefined) o.file = opts.file;
  o.align = d.align;
  if (two) o.lineage = opts.lineage ?? null;
  o.base = baseJson(d.left.base, d.right.base, two);
  o.same = d.same;
  o.reask = d.reask ? { left: ref(d.reask.left), right: ref(d.reask.right), sameText: d.reask.sameText } : null;
  o.left = sideJson(d.left, opts.files?.left, opts.maxEntries);
  o.right = sideJson(d.right, opts.files?.right, opts.maxEntries);
  // Built key by key: the key order is the output's.
  return o as unknown as PathDiffJson;
}

function itemJson(it: ContextItem): Json {
  const o: Json = { index: it.index, role: it.role, source: it.source ? entryItem(it.source) : null };
  if (it.shared) o.shared = true;
  return o;
}

function contextSideJson(side: ContextSide, file: string | undefined, max: number | undefined): Json {
  const c = side.context;
  const o: Json = {};
  if (file !== undefined) o.file = file;
  o.leaf = ref(side.leaf);
  o.thinkingLevel = c.thinkingLevel;
  o.model = c.model;
  o.compaction = ref(c.compaction);
  o.keptFrom = ref(c.keptFrom);
  o.messages = c.messages.length;
  const { shown, more } = capped(side.divergent, side.divergent.length, max);
  o.entries = shown.map(itemJson);
  if (more > 0) o.more = more;
  o.stats = side.stats;
  return o;
}

/** The JSON object of `diff --context`. */
export function contextDiffObject(d: ContextDiff, opts: DiffJsonOptions = {}): ContextDiffJson {
  const two = opts.files !== undefined;
  const o: Json = { mode: "context" };
  if (opts.file !== undefined) o.file = opts.file;
  o.align = d.align;
  if (two) o.lineage = opts.lineage ?? null;
  const lb = d.left.base;
  const rb = d.right.base;
  if (lb) {
    const b: Json = { index: lb.index, ...(ref(lb.source) ?? { id: null, line: null }) };
    if (two) b.right = ref(rb?.source);
    o.base = b;
  } else o.base = null;
  o.same = d.same;
  o.left = contextSideJson(d.left, opts.files?.left, opts.maxEntries);
  o.right = contextSideJson(d.right, opts.files?.right, opts.maxEntries);
  return o as unknown as ContextDiffJson;
}

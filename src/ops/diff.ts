import { isObject } from "../model/json.js";
import { basename, dirname, isAbsolute, join, normalize } from "node:path";
import { forkParentRef } from "../io/discover.js";
import type { SessionContext } from "./context.js";
import type { Session } from "../model/session.js";
import type { EntryRec, Rec } from "../model/detail.js";
import { pathTo } from "./path.js";
import { stampedMarks } from "./marks.js";
import { computeStats, type EntryStats, StatsSum } from "./stats.js";
import { resolveParent, type SessionTree } from "./tree.js";
import { toJson } from "../model/json-text.js";

/**
 * How two paths are lined up: `same-file` by entry identity; `id` by entry id (a `/fork` copies the path with its
 * ids); `content` by what the entries say (role and text), for files that share no ids.
 */
type Align = "same-file" | "id" | "content";

/** diff reads full loads (its stats count spend and tools, its context reads previews). */
type DiffRec = Rec<"full">;

type Reader = (rec: EntryRec) => Record<string, unknown>;

/** One side of a diff as given: a session and a leaf in it (null for a session without entries). */
export interface SideInput {
  session: Session<"full">;
  leaf: DiffRec | null;
  read: Reader;
}

type SidePath = { ok: true; path: DiffRec[] } | { ok: false; leaf: DiffRec; cycle: DiffRec[] };

type ParentOf = (rec: DiffRec) => DiffRec | null;

/**
 * resolveParent through a built tree's parents: the same answer without an id lookup per entry (on a million
 * entries most of a walk's time). Where the tree has none but a parent id is written (dangling, or a self-parent,
 * which pi's rule resolves to the last entry with that id), resolveParent answers.
 */
export function treeParent(session: Session<"full">, tree: Pick<SessionTree<"full">, "parent">): ParentOf {
  return (rec) => tree.parent[rec.index] ?? (typeof rec.parentId === "string" ? resolveParent(session, rec) : null);
}

const pathMarks = stampedMarks();

/** sidePath, walking up through `parentOf` (treeParent); a parent cycle is left to sidePath to find and word. */
export function sidePathVia(session: Session<"full">, parentOf: ParentOf, leaf: DiffRec | null): SidePath {
  if (!leaf) return { ok: true, path: [] };
  const { seen, stamp } = pathMarks(session);
  const walked: DiffRec[] = [];
  for (let cur: DiffRec | null = leaf; cur; cur = parentOf(cur)) {
    if (seen[cur.index] === stamp) return sidePath(session, leaf);
    seen[cur.index] = stamp;
    walked.push(cur);
  }
  return { ok: true, path: walked.reverse() };
}

/** Root → leaf, or the cycle the walk runs into; an empty path for no leaf. */
export function sidePath(session: Session<"full">, leaf: DiffRec | null): SidePath {
  if (!leaf) return { ok: true, path: [] };
  const r = pathTo(session, leaf);
  return r.ok ? { ok: true, path: r.path } : { ok: false, leaf, cycle: r.cycle };
}

export interface DiffSide {
  session: Session<"full">;
  leaf: DiffRec | null;
  path: DiffRec[];
  /** The last entry this side shares with the other (the fork point), or null when nothing is shared. */
  base: DiffRec | null;
  /**
   * The path after the base, root side first; with diff --leaves's cap, only its first entries (`count` says how
   * many there are).
   */
  divergent: DiffRec[];
  /** Entries after the base (divergent.length unless the list was capped). */
  count: number;
  /** Stats over every entry after the base. */
  stats: EntryStats;
}

/** The paths share a base and both divergent parts start with a user message: the same point was asked again. */
interface ReAsk {
  left: DiffRec;
  right: DiffRec;
  /** The two prompts say the same (role and text). */
  sameText: boolean;
}

export interface PathDiff {
  align: Align;
  left: DiffSide;
  right: DiffSide;
  reask: ReAsk | null;
  /** Both paths are the same (nothing divergent on either side). */
  same: boolean;
}

/** Every text block of a content value, joined by newlines (a string content as is). */
function fullText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const b of content) if (isObject(b) && b.type === "text" && typeof b.text === "string") parts.push(b.text);
  return parts.join("\n");
}

function toolCalls(content: unknown): [string, unknown][] {
  if (!Array.isArray(content)) return [];
  const out: [string, unknown][] = [];
  for (const b of content)
    if (isObject(b) && b.type === "toolCall") out.push([typeof b.name === "string" ? b.name : "?", b.arguments ?? null]);
  return out;
}

/** JSON text of a key's parts, on any stack (message content can nest deeper than JSON.stringify recurses). */
const jsonKey = (v: unknown): string => toJson(v) as string;

/** What a message says, without ids or timestamps: the key for lining up messages by content. */
function messageKey(m: unknown): string {
  if (!isObject(m)) return jsonKey(["?", m ?? null]);
  const role = typeof m.role === "string" ? m.role : "?";
  switch (role) {
    case "user":
    case "custom":
    case "hookMessage":
      return jsonKey(["user-like", role === "user" ? "user" : "custom", fullText(m.content)]);
    case "assistant":
      return jsonKey(["assistant", fullText(m.content), toolCalls(m.content)]);
    case "toolResult":
      return jsonKey(["toolResult", m.toolName ?? null, fullText(m.content), m.isError === true]);
    case "bashExecution":
      return jsonKey(["bashExecution", m.command ?? null, m.output ?? null, m.exitCode ?? null]);
    case "branchSummary":
    case "compactionSummary":
      return jsonKey([role, m.summary ?? null]);
    default: {
      const { timestamp: _t, ...rest } = m;
      return jsonKey([role, rest]);
    }
  }
}

const ID_FIELDS = new Set(["id", "parentId", "timestamp", "firstKeptEntryId", "fromId", "targetId"]);

/** What an entry says, without ids or timestamps (see messageKey). */
export function entryKey(entry: Record<string, unknown>): string {
  const type = typeof entry.type === "string" ? entry.type : "?";
  switch (type) {
    case "message":
      return `message:${messageKey(entry.message)}`;
    case "compaction":
    case "branch_summary":
      return `${type}:${jsonKey(entry.summary ?? null)}`;
    case "label":
      return `label:${jsonKey(entry.label ?? null)}`;
    default: {
      const rest: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(entry)) if (!ID_FIELDS.has(k)) rest[k] = v;
      return `${type}:${jsonKey(rest)}`;
    }
  }
}

/** A memoised content key per entry; an entry that cannot be read back gets a key that matches nothing. */
function keyer(read: Reader): (rec: DiffRec) => string {
  const cache = new Map<DiffRec, string>();
  return (rec) => {
    let k = cache.get(rec);
    if (k === undefined) {
      try {
        k = entryKey(read(rec));
      } catch {
        k = `\u0000unreadable:${rec.line}`;
      }
      cache.set(rec, k);
    }
    return k;
  };
}

/**
 * The alignment two paths call for: identity within one session; ids when both files carry real ids (v2+; v1 ids
 * are derived from line numbers and mean nothing across files) and their roots share one; content otherwise.
 */
export function chooseAlign(left: Session<"full">, right: Session<"full">, lp: DiffRec[], rp: DiffRec[]): Align {
  if (left === right) return "same-file";
  const realIds = (s: Session<"full">) => typeof s.version === "number" && s.version >= 2;
  const a = lp[0];
  const b = rp[0];
  if (realIds(left) && realIds(right) && a?.id !== undefined && a.id === b?.id) return "id";
  return "content";
}

/**
 * Entries each side holds as copies of the other (a fork and its parent, by the rule of src/ops/fork-copy.ts: the
 * fork's copies, the parent's copied entries): shared, so never divergent, wherever they sit on the path.
 */
export interface SharedCopies {
  left?: Uint8Array;
  right?: Uint8Array;
}

/**
 * How far two root-first paths agree under an alignment: the length of each side's shared part (the base is the
 * last entry of it). By id, label entries that do not match are stepped over on either side: pi's /fork leaves
 * them out of the copied path (and re-chains the entry after each) and re-creates them after it, so a fork's path
 * holds the parent's entries without the parent's labels.
 */
function commonPrefix(left: SideInput, lp: DiffRec[], right: SideInput, rp: DiffRec[], align: Align): [number, number] {
  const n = Math.min(lp.length, rp.length);
  let k = 0;
  if (align === "same-file") {
    while (k < n && lp[k] === rp[k]) k++;
  } else if (align === "id") {
    let i = 0;
    let j = 0;
    let ki = 0;
    let kj = 0;
    for (;;) {
      const a = lp[i];
      const b = rp[j];
      if (a !== undefined && b !== undefined && a.id !== undefined && a.id === b.id) {
        i++;
        j++;
        ki = i;
        kj = j;
      } else if (a?.type === "label") i++;
      else if (b?.type === "label") j++;
      else break;
    }
    return [ki, kj];
  } else {
    const kl = keyer(left.read);
    const kr = keyer(right.read);
    while (k < n && kl(lp[k] as DiffRec) === kr(rp[k] as DiffRec)) k++;
  }
  return [k, k];
}

function isUser(rec: DiffRec | undefined): rec is DiffRec {
  return rec !== undefined && rec.type === "message" && rec.role === "user";
}

/**
 * Where two root-first paths part: the last common entry (the base) and what follows it on each side, with stats
 * per side. `align` defaults to chooseAlign; entries `shared` marks are left out of the divergent parts.
 */
export function diffPaths(
  left: SideInput,
  lp: DiffRec[],
  right: SideInput,
  rp: DiffRec[],
  align?: Align,
  shared: SharedCopies = {},
): PathDiff {
  const how = align ?? chooseAlign(left.session, right.session, lp, rp);
  const [kl, kr] = commonPrefix(left, lp, right, rp, how);
  const side = (input: SideInput, path: DiffRec[], k: number, copies: Uint8Array | undefined): DiffSide => {
    const rest = path.slice(k);
    const divergent = copies === undefined ? rest : rest.filter((rec) => copies[rec.index] !== 1);
    return {
      session: input.session,
      leaf: input.leaf,
      path,
      base: k > 0 ? (path[k - 1] as DiffRec) : null,
      divergent,
      count: divergent.length,
      stats: computeStats(divergent, input.read),
    };
  };
  const l = side(left, lp, kl, shared.left);
  const r = side(right, rp, kr, shared.right);
  return {
    align: how,
    left: l,
    right: r,
    reask: reAsk(kl > 0 && kr > 0, left, l.divergent[0], right, r.divergent[0]),
    same: l.count === 0 && r.count === 0,
  };
}

/** A re-ask is a new prompt at the same point: only when the paths share a base. */
function reAsk(shared: boolean, left: SideInput, a: DiffRec | undefined, right: SideInput, b: DiffRec | undefined): ReAsk | null {
  if (!shared || !isUser(a) || !isUser(b)) return null;
  const ka = keyer(left.read)(a);
  const kb = keyer(right.read)(b);
  return { left: a, right: b, sameText: ka === kb && !ka.startsWith("\u0000") };
}

/** A leaf of diff --leaves: its comparison with the active path, or the parent cycle its path runs into. */
export type LeafDiff = { leaf: DiffRec; diff: PathDiff } | { leaf: DiffRec; cycle: DiffRec[] };

const leafMarks = stampedMarks();

/**
 * diff --leaves (paths): every leaf against the active path (`active`: the session, its active leaf and reader), in the order given, each as diffPaths would give it
 * (same-file alignment) but with each side's entry list cut to its first `cap` entries when a cap is given.
 * Linear in the entries compared rather than leaves × path length: each leaf's walk stops where it meets the active
 * path (its fork point), and the active side's stats, the path after each fork point, are summed once, from the
 * active leaf upwards, for every fork point the leaves have.
 */
export function* leafPathDiffs(
  active: SideInput,
  activePath: DiffRec[],
  leaves: DiffRec[],
  parentOf: ParentOf,
  cap?: number,
): Generator<LeafDiff> {
  const session = active.session;
  const onActive = new Int32Array(session.entries.length).fill(-1);
  activePath.forEach((rec, j) => {
    onActive[rec.index] = j;
  });
  // The entries from the leaf up to (not including) the active path, leaf first; null on a parent cycle.
  const walk = (leaf: DiffRec, out: DiffRec[] | null): number | null => {
    const { seen, stamp } = leafMarks(session);
    let cur: DiffRec | null = leaf;
    while (cur && (onActive[cur.index] as number) < 0) {
      if (seen[cur.index] === stamp) return null;
      seen[cur.index] = stamp;
      out?.push(cur);
      cur = parentOf(cur);
    }
    return cur ? (onActive[cur.index] as number) + 1 : 0;
  };
  // Shared entries per leaf (-1: a cycle); then the active side's stats for each, summed from the leaf up.
  const shared = new Int32Array(leaves.length);
  leaves.forEach((leaf, i) => {
    shared[i] = walk(leaf, null) ?? -1;
  });
  const wanted = [...new Set(shared)].filter((k) => k >= 0).sort((a, b) => b - a);
  const suffix = new Map<number, EntryStats>();
  const sum = new StatsSum(active.read);
  let j = activePath.length;
  for (const k of wanted) {
    while (j > k) {
      j--;
      sum.add(activePath[j] as DiffRec, j);
    }
    suffix.set(k, sum.stats());
  }
  for (let i = 0; i < leaves.length; i++) {
    const leaf = leaves[i] as DiffRec;
    const k = shared[i] as number;
    if (k < 0) {
      // The same walk as pathTo's, so it finds the same cycle (and words it the same way).
      const r = pathTo(session, leaf);
      if (r.ok) throw new Error(`diff --leaves: the walk from line ${leaf.line} found a cycle that pathTo did not`);
      yield { leaf, cycle: r.cycle };
      continue;
    }
    const divergent: DiffRec[] = [];
    walk(leaf, divergent);
    divergent.reverse();
    const base = k > 0 ? (activePath[k - 1] as DiffRec) : null;
    const l: DiffSide = {
      session,
      leaf: active.leaf,
      path: activePath,
      base,
      divergent: activePath.slice(k, cap === undefined ? undefined : k + cap),
      count: activePath.length - k,
      stats: suffix.get(k) as EntryStats,
    };
    const r: DiffSide = {
      session,
      leaf,
      // The leaf's whole path only when asked for: a hundred thousand leaves deep in the tree would copy it each.
      get path() {
        return [...activePath.slice(0, k), ...divergent];
      },
      base,
      divergent: cap === undefined ? divergent : divergent.slice(0, cap),
      count: divergent.length,
      stats: computeStats(divergent, active.read),
    };
    const reask = reAsk(k > 0, active, l.divergent[0], active, r.divergent[0]);
    yield { leaf, diff: { align: "same-file", left: l, right: r, reask, same: l.count === 0 && r.count === 0 } };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Lineage of two files

export interface FileSide {
  /** The name used in output. */
  file: string;
  /** Absolute (ideally real) path on disk; undefined for stdin. */
  absPath: string | undefined;
  session: Session<"full">;
}

interface ParentLink {
  /** Header field that names the parent. */
  field: "parentSession" | "branchedFrom";
  value: string;
}

export interface Lineage {
  leftParent: ParentLink | null;
  rightParent: ParentLink | null;
  /**
   * `left-forked-from-right`, `right-forked-from-left`: a header names the other file; `siblings`: both name the
   * same parent; `none` otherwise.
   */
  relation: "left-forked-from-right" | "right-forked-from-left" | "siblings" | "none";
  /** How the header value matched the other file: the whole path, or only the file name. */
  matchedBy: "path" | "basename" | null;
}

function parentLink(session: Session<"full">): ParentLink | null {
  const p = forkParentRef(session.header);
  return p ? { field: p.legacy ? "branchedFrom" : "parentSession", value: p.ref } : null;
}

/** A header path made absolute against the folder of the file that holds it. */
function resolveFrom(value: string, holder: FileSide): string {
  if (isAbsolute(value)) return normalize(value);
  return holder.absPath ? normalize(join(dirname(holder.absPath), value)) : normalize(value);
}

function matches(link: ParentLink | null, holder: FileSide, other: FileSide): "path" | "basename" | null {
  if (!link) return null;
  const target = resolveFrom(link.value, holder);
  if (other.absPath !== undefined && target === normalize(other.absPath)) return "path";
  const otherName = basename(other.absPath ?? other.file);
  if (otherName !== "" && otherName !== "-" && basename(target) === otherName) return "basename";
  return null;
}

/** How two files are related through their headers (`parentSession`, legacy `branchedFrom`). */
export function lineageOf(left: FileSide, right: FileSide): Lineage {
  const leftParent = parentLink(left.session);
  const rightParent = parentLink(right.session);
  const l = matches(leftParent, left, right);
  if (l) return { leftParent, rightParent, relation: "left-forked-from-right", matchedBy: l };
  const r = matches(rightParent, right, left);
  if (r) return { leftParent, rightParent, relation: "right-forked-from-left", matchedBy: r };
  if (leftParent && rightParent) {
    const a = resolveFrom(leftParent.value, left);
    const b = resolveFrom(rightParent.value, right);
    if (a === b) return { leftParent, rightParent, relation: "siblings", matchedBy: "path" };
    if (basename(a) === basename(b)) return { leftParent, rightParent, relation: "siblings", matchedBy: "basename" };
  }
  return { leftParent, rightParent, relation: "none", matchedBy: null };
}

// ---------------------------------------------------------------------------------------------------------------
// Contexts (what the model saw)

/** What `buildContext` returns; a type-only import, so this module does not load context building. */
type BuiltContext = SessionContext;

export interface ContextItem {
  /** Position in the context's message list. */
  index: number;
  role: string;
  source: EntryRec | undefined;
  /** Raw (unsanitized) one-line preview, cut to a few hundred characters. */
  preview: string;
  /** Also among the other side's divergent messages (e.g. messages a compaction kept). */
  shared: boolean;
}

export interface ContextSide {
  session: Session<"full">;
  leaf: DiffRec | null;
  context: BuiltContext;
  /** The last message both contexts share in the same position, or null. */
  base: ContextItem | null;
  divergent: ContextItem[];
  /** Stats over the source entries of the divergent messages. */
  stats: EntryStats;
}

export interface ContextDiff {
  align: Align;
  left: ContextSide;
  right: ContextSide;
  same: boolean;
}

const PREVIEW = 240;

/** A one-line preview of a context message (raw text; the renderer sanitizes and cuts it). */
function messagePreview(m: unknown): string {
  if (!isObject(m)) return "";
  let text: string;
  switch (m.role) {
    case "assistant": {
      text = fullText(m.content);
      const names = toolCalls(m.content).map(([n]) => n);
      if (names.length > 0) text = `${text} → ${names.join(", ")}`.trim();
      break;
    }
    case "toolResult":
      text = `[${typeof m.toolName === "string" ? m.toolName : "tool"}] ${fullText(m.content)}`;
      break;
    case "bashExecution":
      text = typeof m.command === "string" ? `$ ${m.command}` : "";
      break;
    case "branchSummary":
    case "compactionSummary":
      text = typeof m.summary === "string" ? m.summary : "";
      break;
    default:
      text = fullText(m.content);
  }
  return text.length > PREVIEW ? text.slice(0, PREVIEW) : text;
}

function roleOf(m: unknown): string {
  return isObject(m) && typeof m.role === "string" ? m.role : "?";
}

/**
 * Compares two contexts message by message: the common leading messages (same source entry, under the
 * alignment, and same content), then what each side holds after that. A divergent message that also occurs among
 * the other side's divergent messages is marked `shared`, so a compaction that keeps part of the history shows as
 * such rather than as a wholesale change.
 */
export function diffContexts(
  left: SideInput & { context: BuiltContext },
  right: SideInput & { context: BuiltContext },
  align: Align,
): ContextDiff {
  const sourceKey = (rec: EntryRec | undefined): string => {
    if (!rec) return "";
    if (align === "same-file") return `#${rec.index}`;
    if (align === "id") return rec.id ?? `#${rec.line}`;
    return "";
  };
  const keys = (input: SideInput & { context: BuiltContext }): string[] =>
    input.context.messages.map((m, i) => `${sourceKey(input.context.sources[i])}\u0000${messageKey(m)}`);
  const lk = keys(left);
  const rk = keys(right);
  const n = Math.min(lk.length, rk.length);
  let k = 0;
  while (k < n && lk[k] === rk[k]) k++;
  const rightRest = new Set(rk.slice(k));
  const leftRest = new Set(lk.slice(k));
  const side = (input: SideInput & { context: BuiltContext }, own: string[], otherRest: Set<string>): ContextSide => {
    const ctx = input.context;
    const item = (i: number): ContextItem => ({
      index: i,
      role: roleOf(ctx.messages[i]),
      source: ctx.sources[i],
      preview: messagePreview(ctx.messages[i]),
      shared: i >= k && otherRest.has(own[i] as string),
    });
    const divergent: ContextItem[] = [];
    for (let i = k; i < ctx.messages.length; i++) divergent.push(item(i));
    const sources: DiffRec[] = [];
    const seen = new Set<DiffRec>();
    for (const it of divergent) {
      // The session's own record (the context's sources are its entries), typed as its full load's.
      const source = it.source === undefined ? undefined : (input.session.entries[it.source.index] as DiffRec);
      if (source && !seen.has(source)) {
        seen.add(source);
        sources.push(source);
      }
    }
    return {
      session: input.session,
      leaf: input.leaf,
      context: ctx,
      base: k > 0 ? item(k - 1) : null,
      divergent,
      stats: computeStats(sources, input.read),
    };
  };
  const l = side(left, lk, rightRest);
  const r = side(right, rk, leftRest);
  return { align, left: l, right: r, same: l.divergent.length === 0 && r.divergent.length === 0 };
}

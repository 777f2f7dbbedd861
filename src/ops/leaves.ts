import type { SpendRec, SpendSession } from "./totals.js";
import type { Detail, Rec } from "../model/detail.js";
import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import type { Usage } from "../model/types.js";
import {
  compareKinds,
  finishTotals,
  isAssistant,
  kindRow,
  spendOf,
  subtractKinds,
  subtractTotals,
  type KindTotals,
  type SpendKind,
  type Totals,
} from "./totals.js";
import { buildTree, resolveParent, type SessionTree, type TreeLinks, type TreeNode } from "./tree.js";

/**
 * Leaves, branch points and depths, with per-leaf token sums, in one iterative walk over the tree: every
 * quantity a leaf needs is carried down from its parent, so the cost is linear in the entries, not
 * leaves × depth. The sums cover every kind of spend (src/ops/totals.ts); only the rare non-assistant entries that
 * record spend (summaries, usage entries, tool results with usage) are walked per leaf.
 */

/**
 * The leaves, as pi's session tooling sees them: every entry that no *other* entry resolves to as its parent (pi's
 * rule: byId, the last duplicate wins, so an earlier duplicate is a leaf; a self-parent does not count), plus the
 * default leaf (the last entry in file order). File order.
 */
export function leafRecs<D extends Detail>(session: Session<D>, tree?: Pick<SessionTree, "parent">): Rec<D>[] {
  // Marks by entry index: a Set of every parent in a million-entry session costs tens of MB.
  const named = new Uint8Array(session.entries.length);
  if (tree) {
    // The tree resolved every parent already (a million id lookups saved). Where it has none but a parent id is
    // written (dangling, or the entry's own id, which names the last duplicate of that id), pi's rule decides.
    const entries = session.entries;
    for (let i = 0; i < entries.length; i++) {
      const p = tree.parent[i] ?? (typeof entries[i]?.parentId === "string" ? resolveParent(session, entries[i] as EntryRec) : null);
      if (p && p.index !== i) named[p.index] = 1;
    }
  } else {
    for (const rec of session.entries) {
      const p = resolveParent(session, rec);
      if (p && p !== rec) named[p.index] = 1;
    }
  }
  const out: Rec<D>[] = [];
  for (const rec of session.entries) {
    if (named[rec.index] !== 1 || rec === session.defaultLeaf) out.push(rec);
  }
  return out;
}

interface LeafInfo {
  rec: EntryRec;
  /** Entries above it (0 for a root): the path has depth + 1 entries. */
  depth: number;
  isDefault: boolean;
  /** The leaf's own timestamp as found. */
  lastTimestamp: unknown;
  /** The last user message on its path, or null. */
  lastUser: EntryRec | null;
  /** Labels on its path, root first. */
  labels: { rec: EntryRec; label: string }[];
  /** The last entry above the leaf with more than one child; null when the path never branches. */
  forkPoint: EntryRec | null;
  /** Tokens and cost over the whole path (root → leaf). */
  totals: Totals;
  /** Tokens and cost of the part after the fork point (the whole path when there is none). */
  ownTotals: Totals;
  /** totals by kind of spend (only kinds with entries on the path). */
  byKind: KindTotals[];
  /** ownTotals by kind of spend. */
  ownByKind: KindTotals[];
  /** The leaf sits on or below a parent cycle: pi cannot build its path; sums cover the part below the cut. */
  cycle: boolean;
}

interface BranchPoint {
  rec: EntryRec;
  children: number;
}

interface TreeShape {
  roots: EntryRec[];
  branchPoints: BranchPoint[];
  /** Deepest entry's depth (0 when every entry is a root); -1 for a session without entries. */
  maxDepth: number;
  leaves: LeafInfo[];
}

interface ShapeOptions {
  /** Entries (by index) whose usage is left out of the sums: copied fork entries. */
  exclude?: Uint8Array;
}

/** The kind of the assistant messages' spend. */
const ASSISTANT: SpendKind = { source: "assistant", kind: null };

/** Per kind of non-assistant spend, in this order: entries, then the Totals fields. */
const F = 8;
/** The Totals fields, in usageFields' order. */
const U = 7;

function usageFields(t: Totals): number[] {
  return [t.input, t.output, t.cacheRead, t.cacheWrite, t.cost, t.cacheWrite1h, t.reasoning];
}

function totalsOf(v: ArrayLike<number>, at = 0): Totals {
  return {
    input: v[at] as number,
    output: v[at + 1] as number,
    cacheRead: v[at + 2] as number,
    cacheWrite: v[at + 3] as number,
    cost: v[at + 4] as number,
    cacheWrite1h: v[at + 5] as number,
    reasoning: v[at + 6] as number,
  };
}

/**
 * The kinds of non-assistant spend in the session (entries left out by `exclude` not counted), in the documented
 * order, and each entry's slot among them (-1: none).
 */
function otherKinds(session: SpendSession, exclude: Uint8Array | undefined): { kinds: SpendKind[]; slot: Int32Array } {
  const slot = new Int32Array(session.entries.length).fill(-1);
  const found = new Map<string, number>();
  const kinds: SpendKind[] = [];
  for (const rec of session.entries) {
    if (exclude && exclude[rec.index] === 1) continue;
    const k = spendOf(rec);
    if (k === undefined || k.source === "assistant") continue;
    const key = `${k.source}\u0000${k.kind ?? ""}\u0000${k.kind === null ? 0 : 1}`;
    let s = found.get(key);
    if (s === undefined) {
      s = kinds.length;
      found.set(key, s);
      kinds.push(k);
    }
    slot[rec.index] = s;
  }
  // Renumber so that slot order is the documented order.
  const order = kinds.map((_, i) => i).sort((a, b) => compareKinds(kinds[a] as SpendKind, kinds[b] as SpendKind));
  const renum = new Int32Array(kinds.length);
  order.forEach((old, i) => {
    renum[old] = i;
  });
  for (let i = 0; i < slot.length; i++) if ((slot[i] as number) >= 0) slot[i] = renum[slot[i] as number] as number;
  return { kinds: order.map((i) => kinds[i] as SpendKind), slot };
}

interface LabelLink {
  rec: EntryRec;
  label: string;
  prev: LabelLink | null;
}

/**
 * Which entries treeShape keeps the path sums of, and at which slot: each leaf, and each entry the walk comes back
 * to (the parent of an entry it does not visit right after it).
 */
function keptSlots(walk: Walk, leafList: readonly EntryRec[], n: number): { keptAt: Int32Array; kept: number } {
  const { order } = walk;
  const keptAt = new Int32Array(n).fill(-1);
  let kept = 0;
  for (const rec of leafList) if (keptAt[rec.index] === -1) keptAt[rec.index] = kept++;
  for (let k = 0; k < order.length; k++) {
    const p = walk.parent[order[k] as number] as number;
    if (p >= 0 && (k === 0 || order[k - 1] !== p) && keptAt[p] === -1) keptAt[p] = kept++;
  }
  return { keptAt, kept };
}

/** Adds an assistant message's usage to the running sums (the Totals fields in usageFields' order). */
function addUsage(run: Float64Array, u: Usage): void {
  run[0] = (run[0] as number) + u.input;
  run[1] = (run[1] as number) + u.output;
  run[2] = (run[2] as number) + u.cacheRead;
  run[3] = (run[3] as number) + u.cacheWrite;
  run[4] = (run[4] as number) + u.cost;
  run[5] = (run[5] as number) + u.cacheWrite1h;
  run[6] = (run[6] as number) + u.reasoning;
}

/** The sums by kind above an entry (shared, never changed) with its own spend of kind `slot` added: a new array. */
function withOther(above: Float64Array | null, K: number, slot: number, usage: Usage | undefined): Float64Array {
  const v = above ? Float64Array.from(above) : new Float64Array(K * F);
  v[slot * F] = (v[slot * F] as number) + 1;
  if (usage) {
    usageFields(usage).forEach((x, f) => {
      v[slot * F + 1 + f] = (v[slot * F + 1 + f] as number) + x;
    });
  }
  return v;
}

/** The labels on a path, root first, from its chain (last label first). */
function labelsOf(chain: LabelLink | null): LeafInfo["labels"] {
  const labels: LeafInfo["labels"] = [];
  for (let l = chain; l; l = l.prev) labels.push({ rec: l.rec, label: l.label });
  return labels.reverse();
}

/**
 * The order treeShape visits the entries in (each after its parent), each one's parent in that walk (-1 for a root,
 * a cut cycle member included), how many children each has, the roots, and the entries on or below a cycle.
 */
interface Walk {
  order: Int32Array;
  parent: Int32Array;
  children: Int32Array;
  roots: EntryRec[];
  inCycle: Uint8Array;
}

/** The tree's own walk: depth first from its roots. */
function treeWalk(tree: SessionTree, n: number): Walk {
  const order = new Int32Array(n);
  const parent = new Int32Array(n).fill(-1);
  const children = new Int32Array(n);
  let k = 0;
  const stack: TreeNode[] = [];
  for (let i = tree.roots.length - 1; i >= 0; i--) stack.push(tree.roots[i] as TreeNode);
  while (stack.length > 0) {
    const node = stack.pop() as TreeNode;
    const i = node.rec.index;
    order[k++] = i;
    children[i] = node.children.length;
    for (let c = node.children.length - 1; c >= 0; c--) {
      const child = node.children[c] as TreeNode;
      parent[child.rec.index] = i;
      stack.push(child);
    }
  }
  return { order: k === n ? order : order.subarray(0, k), parent, children, roots: tree.roots.map((r) => r.rec), inCycle: tree.inCycle };
}

/**
 * File order, where every parent comes before its children (as pi writes them; then there is no cycle either):
 * the walk without the tree's nodes. Null where some parent comes later.
 */
function linksWalk(session: Session, links: TreeLinks): Walk | null {
  const { entries } = session;
  const n = entries.length;
  const parent = new Int32Array(n);
  const children = new Int32Array(n);
  const roots: EntryRec[] = [];
  for (let i = 0; i < n; i++) {
    const p = links.parent[i];
    if (!p) {
      parent[i] = -1;
      roots.push(entries[i] as EntryRec);
      continue;
    }
    if (p.index >= i) return null;
    parent[i] = p.index;
    children[p.index] = (children[p.index] as number) + 1;
  }
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return { order, parent, children, roots, inCycle: new Uint8Array(n) };
}

/**
 * Walks the tree once and describes its shape and every leaf. Given only the tree's links (treeLinks), it walks the
 * entries in file order where every parent comes first, and builds the tree only where one does not.
 */
export function treeShape(session: SpendSession, tree: SessionTree | TreeLinks, opts: ShapeOptions = {}): TreeShape {
  const n = session.entries.length;
  const walk = "nodes" in tree ? treeWalk(tree as SessionTree, n) : (linksWalk(session, tree) ?? treeWalk(buildTree(session), n));
  const depth = new Int32Array(n);
  const forkPoint = new Int32Array(n).fill(-1);
  const lastUser = new Int32Array(n).fill(-1);
  // Assistant messages (most of a session) are summed down the tree in arrays. The other entries that record spend
  // are rare: each gets the sums by kind of its path in a small array, shared by every entry below it up to the next.
  // The seven sums (the Totals fields in usageFields' order) are carried along the walk in `run`, and kept, side by
  // side in one array, only for the entries read again: a leaf, or one the walk comes back to (the parent of an
  // entry it does not visit right after it, every branch point among them). Seven sums per entry of a million were
  // most of this walk's time.
  const leafList = leafRecs(session, tree);
  const { order, children } = walk;
  const { keptAt, kept } = keptSlots(walk, leafList, n);
  const cum = new Float64Array(kept * U);
  const run = new Float64Array(U);
  let prev = -1;
  const turns = new Int32Array(n);
  const other = otherKinds(session, opts.exclude);
  const K = other.kinds.length;
  const otherCum: (Float64Array | null)[] = new Array(n).fill(null);
  const labelChain: (LabelLink | null)[] = new Array(n).fill(null);
  const branchPoints: BranchPoint[] = [];
  let maxDepth = n === 0 ? -1 : 0;
  const labels = session.labels.size > 0 ? session.labels : null;

  for (let k = 0; k < order.length; k++) {
    const i = order[k] as number;
    const rec = session.entries[i] as SpendRec;
    const p = walk.parent[i] as number;
    if (p >= 0) {
      depth[i] = (depth[p] as number) + 1;
      forkPoint[i] = (children[p] as number) > 1 ? p : (forkPoint[p] as number);
      lastUser[i] = lastUser[p] as number;
      labelChain[i] = labelChain[p] ?? null;
      if (p !== prev) {
        const at = (keptAt[p] as number) * U;
        for (let f = 0; f < U; f++) run[f] = cum[at + f] as number;
      }
      turns[i] = turns[p] as number;
      otherCum[i] = otherCum[p] ?? null;
    } else run.fill(0);
    if (rec.type === "message" && rec.role === "user") lastUser[i] = i;
    const label = labels !== null && rec.id !== undefined ? labels.get(rec.id) : undefined;
    if (label !== undefined) labelChain[i] = { rec, label, prev: labelChain[i] ?? null };
    const excluded = opts.exclude !== undefined && opts.exclude[i] === 1;
    const slot = other.slot[i] as number;
    if (!excluded && isAssistant(rec)) {
      turns[i] = (turns[i] as number) + 1;
      if (rec.usage) addUsage(run, rec.usage);
    } else if (slot >= 0) otherCum[i] = withOther(otherCum[i] ?? null, K, slot, rec.usage);
    const at = keptAt[i] as number;
    if (at >= 0) cum.set(run, at * U);
    prev = i;
    if ((depth[i] as number) > maxDepth) maxDepth = depth[i] as number;
    if ((children[i] as number) > 1) branchPoints.push({ rec, children: children[i] as number });
  }

  /** Sums over the path from the root to entry i, in total and by kind. */
  const pathAt = (i: number): { totals: Totals; byKind: KindTotals[] } => {
    const at = (keptAt[i] as number) * U;
    const sum = Array.from(cum.subarray(at, at + U));
    const byKind: KindTotals[] = [];
    if ((turns[i] as number) > 0) byKind.push(kindRow(ASSISTANT, turns[i] as number, totalsOf(sum)));
    const v = otherCum[i];
    if (v) {
      for (let k = 0; k < K; k++) {
        const entries = v[k * F] as number;
        if (entries === 0) continue;
        const t = totalsOf(v, k * F + 1);
        usageFields(t).forEach((x, f) => {
          sum[f] = (sum[f] as number) + x;
        });
        const kind = other.kinds[k] as SpendKind;
        byKind.push(kindRow(kind, entries, t));
      }
    }
    return { totals: totalsOf(sum), byKind };
  };
  // The sums at each fork point, made once: a hundred thousand leaves can share one (only read, never changed).
  const atFork = new Map<number, ReturnType<typeof pathAt>>();
  const leaves: LeafInfo[] = leafList.map((rec) => {
    const i = rec.index;
    const path = pathAt(i);
    const f = forkPoint[i] as number;
    let own = path.totals;
    let ownByKind = path.byKind;
    if (f >= 0) {
      let base = atFork.get(f);
      if (base === undefined) {
        base = pathAt(f);
        atFork.set(f, base);
      }
      own = subtractTotals(path.totals, base.totals);
      ownByKind = subtractKinds(path.byKind, base.byKind);
    }
    const u = lastUser[i] as number;
    return {
      rec,
      depth: depth[i] as number,
      isDefault: rec === session.defaultLeaf,
      lastTimestamp: rec.timestamp ?? null,
      lastUser: u >= 0 ? (session.entries[u] as EntryRec) : null,
      labels: labelsOf(labelChain[i] ?? null),
      forkPoint: f >= 0 ? (session.entries[f] as EntryRec) : null,
      totals: finishTotals(path.totals),
      ownTotals: finishTotals(own),
      byKind: path.byKind,
      ownByKind,
      cycle: walk.inCycle[i] === 1,
    };
  });
  branchPoints.sort((a, b) => a.rec.index - b.rec.index);
  return { roots: walk.roots, branchPoints, maxDepth, leaves };
}

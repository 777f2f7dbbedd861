import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { finishTotals, isAssistant, type Totals } from "./totals.js";
import { resolveParent, type SessionTree, type TreeNode } from "./tree.js";

/**
 * Leaves, branch points and depths, with per-leaf token sums, in one iterative walk over the tree: every
 * quantity a leaf needs is carried down from its parent, so the cost is linear in the entries, not
 * leaves × depth.
 */

/**
 * The leaves, as pi's session tooling sees them: every entry that no *other* entry resolves to as its parent (pi's
 * rule: byId, the last duplicate wins, so an earlier duplicate is a leaf; a self-parent does not count), plus the
 * default leaf (the last entry in file order). File order.
 */
export function leafRecs(session: Session): EntryRec[] {
  const named = new Set<EntryRec>();
  for (const rec of session.entries) {
    const p = resolveParent(session, rec);
    if (p && p !== rec) named.add(p);
  }
  const out: EntryRec[] = [];
  for (const rec of session.entries) {
    if (!named.has(rec) || rec === session.defaultLeaf) out.push(rec);
  }
  return out;
}

export interface LeafInfo {
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
  /** The leaf sits on or below a parent cycle: pi cannot build its path; sums cover the part below the cut. */
  cycle: boolean;
}

export interface BranchPoint {
  rec: EntryRec;
  children: number;
}

export interface TreeShape {
  roots: EntryRec[];
  branchPoints: BranchPoint[];
  /** Deepest entry's depth (0 when every entry is a root); -1 for a session without entries. */
  maxDepth: number;
  leaves: LeafInfo[];
}

export interface ShapeOptions {
  /** Entries (by index) whose usage is left out of the sums: copied fork entries. */
  exclude?: Uint8Array;
}

interface LabelLink {
  rec: EntryRec;
  label: string;
  prev: LabelLink | null;
}

/** Walks the tree once and describes its shape and every leaf. */
export function treeShape(session: Session, tree: SessionTree, opts: ShapeOptions = {}): TreeShape {
  const n = session.entries.length;
  const depth = new Int32Array(n);
  const forkPoint = new Int32Array(n).fill(-1);
  const lastUser = new Int32Array(n).fill(-1);
  const cum = [new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n)] as const;
  const labelChain: (LabelLink | null)[] = new Array(n).fill(null);
  const branchPoints: BranchPoint[] = [];
  let maxDepth = n === 0 ? -1 : 0;

  const stack: TreeNode[] = [];
  for (let i = tree.roots.length - 1; i >= 0; i--) stack.push(tree.roots[i] as TreeNode);
  // Parent of each node in the walk: roots (cycle cuts included) have none.
  const walkParent = new Int32Array(n).fill(-1);
  while (stack.length > 0) {
    const node = stack.pop() as TreeNode;
    const rec = node.rec;
    const i = rec.index;
    const p = walkParent[i] as number;
    if (p >= 0) {
      depth[i] = (depth[p] as number) + 1;
      const parentNode = tree.nodes[p] as TreeNode;
      forkPoint[i] = parentNode.children.length > 1 ? p : (forkPoint[p] as number);
      lastUser[i] = lastUser[p] as number;
      labelChain[i] = labelChain[p] ?? null;
      for (const c of cum) c[i] = c[p] as number;
    }
    if (rec.type === "message" && rec.role === "user") lastUser[i] = i;
    const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
    if (label !== undefined) labelChain[i] = { rec, label, prev: labelChain[i] ?? null };
    if (isAssistant(rec) && rec.usage && !(opts.exclude && opts.exclude[i] === 1)) {
      const u = rec.usage;
      cum[0][i] = (cum[0][i] as number) + u.input;
      cum[1][i] = (cum[1][i] as number) + u.output;
      cum[2][i] = (cum[2][i] as number) + u.cacheRead;
      cum[3][i] = (cum[3][i] as number) + u.cacheWrite;
      cum[4][i] = (cum[4][i] as number) + u.cost;
    }
    if ((depth[i] as number) > maxDepth) maxDepth = depth[i] as number;
    if (node.children.length > 1) branchPoints.push({ rec, children: node.children.length });
    for (let k = node.children.length - 1; k >= 0; k--) {
      const child = node.children[k] as TreeNode;
      walkParent[child.rec.index] = i;
      stack.push(child);
    }
  }

  const totalsAt = (i: number): Totals => ({
    input: cum[0][i] as number,
    output: cum[1][i] as number,
    cacheRead: cum[2][i] as number,
    cacheWrite: cum[3][i] as number,
    cost: cum[4][i] as number,
  });
  const leaves: LeafInfo[] = leafRecs(session).map((rec) => {
    const i = rec.index;
    const total = totalsAt(i);
    const f = forkPoint[i] as number;
    let own = total;
    if (f >= 0) {
      const base = totalsAt(f);
      own = {
        input: total.input - base.input,
        output: total.output - base.output,
        cacheRead: total.cacheRead - base.cacheRead,
        cacheWrite: total.cacheWrite - base.cacheWrite,
        cost: total.cost - base.cost,
      };
    }
    const labels: LeafInfo["labels"] = [];
    for (let l = labelChain[i] ?? null; l; l = l.prev) labels.push({ rec: l.rec, label: l.label });
    labels.reverse();
    const u = lastUser[i] as number;
    return {
      rec,
      depth: depth[i] as number,
      isDefault: rec === session.defaultLeaf,
      lastTimestamp: rec.timestamp ?? null,
      lastUser: u >= 0 ? (session.entries[u] as EntryRec) : null,
      labels,
      forkPoint: f >= 0 ? (session.entries[f] as EntryRec) : null,
      totals: finishTotals(total),
      ownTotals: finishTotals(own),
      cycle: tree.inCycle[i] === 1,
    };
  });
  branchPoints.sort((a, b) => a.rec.index - b.rec.index);
  return { roots: tree.roots.map((r) => r.rec), branchPoints, maxDepth, leaves };
}

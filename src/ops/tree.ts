import { diag } from "../model/codes.js";
import type { Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { Detail, EntryRec, Rec } from "../model/detail.js";

/** A node of the tree of a session loaded with detail D: its record is that load's. */
export interface TreeNode<D extends Detail = Detail> {
  rec: Rec<D>;
  /** pi's getTree order: timestamp, oldest first, ties in file order; invalid timestamps last, in file order. */
  children: TreeNode<D>[];
  /** Set on the entry where pisess cut a parent cycle to show it (pi's getTree drops every cycle member). */
  cycleCut?: boolean;
}

export interface SessionTree<D extends Detail = Detail> {
  roots: TreeNode<D>[];
  /** Node of each entry, by entry index. */
  nodes: TreeNode<D>[];
  /** Resolved parent of each entry by index (pi's rule: byId, last duplicate wins); null for roots. */
  parent: (Rec<D> | null)[];
  /** Every parent cycle, each as its members in walk order (starting from the member with the lowest line). */
  cycles: Rec<D>[][];
  /** Entries on, or descending from, a parent cycle: pi cannot build their path. */
  inCycle: Uint8Array;
  problems: Diagnostic[];
}

/**
 * The parent pi resolves for an entry: none for `parentId` null or missing, itself for a self-parent, the last entry
 * with that id otherwise, none when the id is unknown (dangling).
 */
export function resolveParent<D extends Detail>(session: Session<D>, rec: EntryRec): Rec<D> | null {
  if (typeof rec.parentId !== "string") return null;
  return session.byId.get(rec.parentId) ?? null;
}

function byTime(a: TreeNode, b: TreeNode): number {
  const ta = a.rec.time;
  const tb = b.rec.time;
  const va = !Number.isNaN(ta);
  const vb = !Number.isNaN(tb);
  if (va && vb) return ta - tb || a.rec.index - b.rec.index;
  if (va !== vb) return va ? -1 : 1;
  return a.rec.index - b.rec.index;
}

/**
 * The children array of every node without children: one shared, frozen array (a million-entry chain would
 * otherwise allocate a million empty arrays). A node gets its own array with its first child.
 */
const NO_CHILDREN = Object.freeze([]) as unknown as TreeNode[];

/** Builds the tree with pi's getTree rules, plus what pi cannot show: cycles, reported and cut open. Iterative. */
export function buildTree<D extends Detail>(session: Session<D>): SessionTree<D> {
  const { entries, file } = session;
  const n = entries.length;
  const problems: Diagnostic[] = [];
  const parent = linkParents(session, problems);
  // Filled by push: `new Array(n)` of a large n makes a slow dictionary-backed array.
  const nodes: TreeNode[] = [];
  for (let i = 0; i < n; i++) nodes.push({ rec: entries[i] as EntryRec, children: NO_CHILDREN });
  const roots: TreeNode[] = [];
  for (let i = 0; i < n; i++) {
    const node = nodes[i] as TreeNode;
    const p = parent[i];
    if (!p) {
      roots.push(node);
      continue;
    }
    const pn = nodes[p.index] as TreeNode;
    if (pn.children === NO_CHILDREN) pn.children = [node];
    else pn.children.push(node);
  }

  const cycles = findCycles(entries, parent);
  const inCycle = new Uint8Array(n);
  for (const cycle of cycles) {
    const first = cycle[0] as EntryRec;
    problems.push(cycleProblem(file, cycle));
    // Cut the cycle open at its first member so every entry still appears once in the tree.
    const cutNode = nodes[first.index] as TreeNode;
    const cutParent = parent[first.index];
    if (cutParent) {
      const siblings = (nodes[cutParent.index] as TreeNode).children;
      siblings.splice(siblings.indexOf(cutNode), 1);
    }
    cutNode.cycleCut = true;
    roots.push(cutNode);
  }
  if (cycles.length > 0) {
    roots.sort((a, b) => a.rec.index - b.rec.index);
    // Everything below a cut node cannot reach a real root.
    const stack = roots.filter((r) => r.cycleCut);
    while (stack.length > 0) {
      const node = stack.pop() as TreeNode;
      inCycle[node.rec.index] = 1;
      for (const c of node.children) stack.push(c);
    }
  }

  for (const node of nodes) if (node.children.length > 1) node.children.sort(byTime);
  timestampProblems(session, problems);
  // Every record in the tree is one of the session's.
  return { roots, nodes, parent, cycles, inCycle, problems } as SessionTree as SessionTree<D>;
}

/** What buildTree resolves before it makes the nodes: each entry's parent and the problems, cycles included. */
export type TreeLinks<D extends Detail = Detail> = Pick<SessionTree<D>, "parent" | "problems">;

/**
 * buildTree's parents and problems without building the tree (its nodes and their child lists cost tens of bytes
 * per entry): for a report that needs only the diagnostics, or walks up from entries. Same parents, same problems
 * in the same order.
 */
export function treeLinks<D extends Detail>(session: Session<D>): TreeLinks<D> {
  const problems: Diagnostic[] = [];
  const parent = linkParents(session, problems);
  for (const cycle of findCycles(session.entries, parent)) problems.push(cycleProblem(session.file, cycle));
  timestampProblems(session, problems);
  // Every parent is one of the session's records.
  return { parent, problems } as TreeLinks as TreeLinks<D>;
}

/** buildTree's problems without building the tree: see treeLinks. */
export function treeProblems(session: Session): Diagnostic[] {
  return treeLinks(session).problems;
}

/**
 * Each entry's parent as pi resolves it, by entry index (null for a root), reporting dangling and self parents
 * into `problems` in file order.
 */
function linkParents(session: Session, problems: Diagnostic[]): (EntryRec | null)[] {
  const { entries, file, byId } = session;
  const n = entries.length;
  const parent: (EntryRec | null)[] = [];
  let withId = 0;
  for (let i = 0; i < n; i++) if ((entries[i] as EntryRec).id !== undefined) withId++;
  /** Every id names one entry only (byId is built from these entries). */
  const unique = withId === byId.size;
  for (let i = 0; i < n; i++) {
    const rec = entries[i] as EntryRec;
    const parentId = rec.parentId;
    if (parentId === null || parentId === undefined) {
      parent.push(null);
      if (parentId === undefined && session.version >= 2) {
        problems.push(
          diag("dangling-parent", file, rec.line, { parentId: null, missing: true }, rec.id === undefined ? {} : { entryId: rec.id }),
        );
      }
      continue;
    }
    if (parentId === rec.id) {
      parent.push(null);
      problems.push(diag("self-parent", file, rec.line, { id: rec.id }, { entryId: rec.id }));
      continue;
    }
    // In a chain the parent is the entry just before; with unique ids that entry is what byId holds for its id.
    const prev = i > 0 && unique ? (entries[i - 1] as EntryRec) : undefined;
    const p = prev !== undefined && prev.id === parentId ? prev : byId.get(parentId);
    if (!p) {
      parent.push(null);
      // An empty parentId names nothing: it has no usable parent, rather than a parent "" that is missing.
      const missing = parentId === "";
      problems.push(diag("dangling-parent", file, rec.line, { parentId, missing }, rec.id === undefined ? {} : { entryId: rec.id }));
      continue;
    }
    parent.push(p);
  }
  return parent;
}

/** invalid-timestamp for each entry whose timestamp pi's getTree cannot sort, in file order. */
function timestampProblems(session: Session, problems: Diagnostic[]): void {
  for (const rec of session.entries) {
    if (Number.isNaN(rec.time)) {
      problems.push(
        diag(
          "invalid-timestamp",
          session.file,
          rec.line,
          { timestamp: JSON.stringify(rec.timestamp) ?? "undefined" },
          rec.id ? { entryId: rec.id } : {},
        ),
      );
    }
  }
}

/**
 * Every cycle among parent links, found by walking up from each entry once (linear time, no recursion). An
 * entry is in a cycle when its walk comes back to an entry of the same walk.
 */
function findCycles(entries: EntryRec[], parent: (EntryRec | null)[]): EntryRec[][] {
  const n = entries.length;
  // 0 = unvisited, k+1 = visited in walk k
  const walkOf = new Int32Array(n);
  const cycles: EntryRec[][] = [];
  for (let start = 0; start < n; start++) {
    if (walkOf[start] !== 0) continue;
    const walk = start + 1;
    let cur: number = start;
    for (;;) {
      walkOf[cur] = walk;
      const p = parent[cur];
      if (!p) break;
      const pi = p.index;
      if (walkOf[pi] === 0) {
        cur = pi;
        continue;
      }
      if (walkOf[pi] === walk) cycles.push(collectCycle(entries, parent, pi));
      break;
    }
  }
  return cycles;
}

function collectCycle(entries: EntryRec[], parent: (EntryRec | null)[], from: number): EntryRec[] {
  const members: EntryRec[] = [];
  let cur = from;
  do {
    members.push(entries[cur] as EntryRec);
    cur = (parent[cur] as EntryRec).index;
  } while (cur !== from);
  return lowestFirst(members);
}

/** A cycle started at its lowest line, so it reads the same whatever entry a walk began at. */
function lowestFirst(members: readonly EntryRec[]): EntryRec[] {
  let low = 0;
  for (let i = 1; i < members.length; i++) if ((members[i] as EntryRec).line < (members[low] as EntryRec).line) low = i;
  return [...members.slice(low), ...members.slice(0, low)];
}

/**
 * The one producer of `parent-cycle`: a loop of parent links, members in walk order (child to parent), any member
 * first. The tree reports every loop of two or more entries it finds (a self-parent has its own code there); path,
 * context and diff report the loop a path runs into, a self-parent included.
 */
export function cycleProblem(file: string, members: readonly EntryRec[]): Diagnostic {
  const cycle = lowestFirst(members);
  const first = cycle[0] as EntryRec;
  const entryId = first.id !== undefined ? { entryId: first.id } : {};
  return diag("parent-cycle", file, first.line, { ids: cycle.map((r) => r.id ?? ""), lines: cycle.map((r) => r.line) }, entryId);
}

/** What a flat listing needs of a node: tree nodes and (filtered) view nodes both fit. */
export interface FlatNode {
  rec: EntryRec;
  children: readonly FlatNode[];
  cycleCut?: boolean;
}

/** A tree (or a filtered view of one) as a list: what `tree --json` writes. */
export interface FlatTree {
  roots: readonly FlatNode[];
  /** Every node, in file order. */
  nodes: readonly FlatNode[];
  /** The parent of each node in this tree (same position as in `nodes`); null for a root, a cut cycle member included. */
  parents: readonly (EntryRec | null)[];
}

/** The whole tree as a list: its own arrays, already in file order (nothing to walk or sort). */
export function flatTree(tree: SessionTree): FlatTree {
  if (tree.cycles.length === 0) return { roots: tree.roots, nodes: tree.nodes, parents: tree.parent };
  // A cut cycle member is a root of the tree as shown; its parent link would point back into the cycle.
  const parents = tree.parent.map((p, i) => ((tree.nodes[i] as TreeNode).cycleCut ? null : p));
  return { roots: tree.roots, nodes: tree.nodes, parents };
}

/** The nodes reachable from `roots`, in file order, each with its parent among them. Iterative. */
export function flattenNodes(roots: readonly FlatNode[]): FlatTree {
  const found: [FlatNode, EntryRec | null][] = [];
  const stack: [FlatNode, EntryRec | null][] = roots.map((r) => [r, null]);
  while (stack.length > 0) {
    const item = stack.pop() as [FlatNode, EntryRec | null];
    found.push(item);
    for (const c of item[0].children) stack.push([c, item[0].rec]);
  }
  found.sort((a, b) => a[0].rec.index - b[0].rec.index);
  return { roots, nodes: found.map((f) => f[0]), parents: found.map((f) => f[1]) };
}

import { readEntry, type Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import { contextStart, olderCompactionsKept, tokensBeforeMismatch } from "../ops/compactions.js";
import { buildContext, contextSize, hasUsableUsage } from "../ops/context.js";
import { firstKeptNotMessage, lightEntry } from "../ops/kept.js";
import { pathTo } from "../ops/path.js";
import type { SessionTree, TreeNode } from "../ops/tree.js";

/**
 * pisess's estimate of the context on `path` (the entries before a compaction), equal to what `compactions` computes
 * with every body read: bodies are read only where contextSize looks at them (from the last assistant message with
 * usage on), the rest comes from the index, so validate never holds a long path's bodies.
 */
function estimateOn(session: Session, path: EntryRec[]): number {
  const light = buildContext(session, path, (r) => lightEntry(session, r));
  const full = new Set<EntryRec>();
  let usageAt: number | null = null;
  for (let i = light.sources.length - 1; i >= 0; i--) {
    const src = light.sources[i] as EntryRec;
    full.add(src);
    if (src.type === "message" && src.role === "assistant" && hasUsableUsage(readEntry(session, src).message)) {
      usageAt = i;
      break;
    }
  }
  const read = (r: EntryRec) => (full.has(r) || r.type === "context_edit" ? readEntry(session, r) : lightEntry(session, r));
  const size = contextSize(buildContext(session, path, read), path);
  if (size.usageIndex === usageAt) return size.tokens;
  // contextSize passed over that message (it sits before the compaction's own messages): every body is needed.
  return contextSize(
    buildContext(session, path, (r) => readEntry(session, r)),
    path,
  ).tokens;
}

/**
 * Per compaction, on its own path: first-kept-not-message (warning), older-compaction-kept and tokens-before-mismatch
 * (info), from the producers `compactions` uses. Each context is built from where it starts (contextStart), found
 * through one walk of the tree: a session with thousands of compactions costs one pass plus the contexts' own
 * entries, not a path from the root per compaction (quadratic). Where ids repeat, the paths come from pathTo.
 */
export function checkCompactions(session: Session, tree: SessionTree, out: Diagnostic[]): void {
  let withId = 0;
  let compactions = 0;
  for (const rec of session.entries) {
    if (rec.id !== undefined) withId++;
    if (rec.type === "compaction") compactions++;
  }
  // No compaction, nothing to check: the tree walk below would only cost time and memory on a long session.
  if (compactions === 0) return;
  const a = withId === session.byId.size ? ancestry(session, tree) : null;
  for (const rec of session.entries) {
    if (rec.type !== "compaction" || tree.inCycle[rec.index]) continue;
    if (a === null) {
      const p = pathTo(session, rec);
      if (p.ok) checkOne(session, rec, p.path, 0, 0, out);
      continue;
    }
    if (a.noPath[rec.index] === 1) continue;
    // An entry's index on the path to `c` is its depth; -1 when it is not on that path.
    const on = (c: EntryRec) => (r: EntryRec) => (isAncestor(a, r, c) ? (a.depth[r.index] as number) : -1);
    const depth = a.depth[rec.index] as number;
    const after = contextStart(session, depth, rec, readEntry(session, rec).firstKeptEntryId, on(rec), true);
    const prevIndex = (a.prevCompaction[rec.index] as number) - 1;
    const prev = prevIndex < 0 ? null : (session.entries[prevIndex] as EntryRec);
    const before =
      prev === null
        ? 0
        : contextStart(session, a.depth[prev.index] as number, prev, readEntry(session, prev).firstKeptEntryId, on(prev), true);
    // The path from the earlier of the two starts down to the compaction, walked up through the tree's parents.
    const base = Math.min(after, before);
    const path: EntryRec[] = new Array(depth - base + 1);
    let cur: EntryRec | null = rec;
    for (let j = depth - base; j >= 0; j--) {
      path[j] = cur as EntryRec;
      cur = tree.parent[(cur as EntryRec).index] ?? null;
    }
    checkOne(session, rec, path, after - base, before - base, out);
  }
}

/**
 * The checks of compaction `rec`, the last entry of `path`: the context right after it starts at path[after], the
 * one just before it at path[before].
 */
function checkOne(session: Session, rec: EntryRec, path: EntryRec[], after: number, before: number, out: Diagnostic[]): void {
  const own = readEntry(session, rec);
  // The context right after the compaction, as `context` builds it; bodies come from the index.
  const ctx = buildContext(session, after === 0 ? path : path.slice(after), (r) => lightEntry(session, r));
  const d = firstKeptNotMessage(session.file, rec, ctx.keptFrom);
  if (d) out.push(d);
  const tb = own.tokensBefore;
  if (typeof tb === "number" && tb > 0) {
    const m = tokensBeforeMismatch(session.file, rec, tb, estimateOn(session, path.slice(before, -1)));
    if (m) out.push(m);
  }
  for (const v of olderCompactionsKept(session.file, path, rec, ctx.keptFrom)) out.push(v);
}

/** What one walk of the tree tells of each entry (by index): depth, Euler interval, nearest compaction above. */
interface Ancestry {
  depth: Int32Array;
  tin: Int32Array;
  tout: Int32Array;
  /** Index + 1 of the nearest compaction above the entry; 0: none. */
  prevCompaction: Int32Array;
  /** Below a self-parent: pathTo finds a cycle, so no path (the tree shows it as a root). */
  noPath: Uint8Array;
}

function ancestry(session: Session, tree: SessionTree): Ancestry {
  const n = session.entries.length;
  const a: Ancestry = {
    depth: new Int32Array(n),
    tin: new Int32Array(n),
    tout: new Int32Array(n),
    prevCompaction: new Int32Array(n),
    noPath: new Uint8Array(n),
  };
  let clock = 0;
  const stack: TreeNode[] = [];
  const leaving: boolean[] = [];
  for (const root of tree.roots) {
    const r = root.rec;
    if (tree.inCycle[r.index]) continue;
    a.noPath[r.index] = r.parentId === r.id ? 1 : 0;
    stack.push(root);
    leaving.push(false);
  }
  while (stack.length > 0) {
    const node = stack.pop() as TreeNode;
    const i = node.rec.index;
    if (leaving.pop()) {
      a.tout[i] = clock++;
      continue;
    }
    a.tin[i] = clock++;
    stack.push(node);
    leaving.push(true);
    const above = node.rec.type === "compaction" ? i + 1 : (a.prevCompaction[i] as number);
    for (const child of node.children) {
      const c = child.rec.index;
      a.depth[c] = (a.depth[i] as number) + 1;
      a.prevCompaction[c] = above;
      a.noPath[c] = a.noPath[i] as number;
      stack.push(child);
      leaving.push(false);
    }
  }
  return a;
}

/** `r` is `c` or one of its ancestors. */
function isAncestor(a: Ancestry, r: EntryRec, c: EntryRec): boolean {
  return (a.tin[r.index] as number) <= (a.tin[c.index] as number) && (a.tout[c.index] as number) <= (a.tout[r.index] as number);
}

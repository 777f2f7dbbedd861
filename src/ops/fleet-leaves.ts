import type { EntryRec } from "../model/detail.js";
import type { MessageBody } from "../model/types.js";
import { treeShape } from "./leaves.js";
import { isAssistant, spendModels, type SpendSession } from "./totals.js";
import type { SessionTree, TreeNode } from "./tree.js";

/** A row of the leaves table (fleet-rows.ts Row; written out here, which fleet-rows imports). */
type Row = (string | number | boolean | null)[];

/** A model seen on a path, linked to the ones seen above it (shared by every entry below, up to the next new one). */
interface ModelLink {
  model: string;
  prev: ModelLink | null;
}

/** Counts along each path that treeShape does not keep: tool calls, errored results, compactions, models, root. */
interface PathCounts {
  calls: Int32Array;
  errors: Int32Array;
  compactions: Int32Array;
  root: Int32Array;
  models: (ModelLink | null)[];
}

function hasModel(chain: ModelLink | null, model: string): boolean {
  for (let l = chain; l; l = l.prev) if (l.model === model) return true;
  return false;
}

/**
 * The walk down the tree (explicit stack, parents before children): each entry's path sums of what the leaves table
 * shows besides treeShape's totals. Entries in `exclude` (a fork's copies) add nothing, as in treeShape.
 */
function pathCounts(
  session: SpendSession,
  tree: SessionTree,
  bodies: readonly (MessageBody | undefined)[],
  exclude: Uint8Array | undefined,
): PathCounts {
  const n = session.entries.length;
  const out: PathCounts = {
    calls: new Int32Array(n),
    errors: new Int32Array(n),
    compactions: new Int32Array(n),
    root: new Int32Array(n),
    models: new Array<ModelLink | null>(n).fill(null),
  };
  const modelOf = spendModels(session);
  const stack: { node: TreeNode; parent: number }[] = [];
  for (const r of tree.roots) stack.push({ node: r, parent: -1 });
  while (stack.length > 0) {
    const { node, parent } = stack.pop() as { node: TreeNode; parent: number };
    const i = node.rec.index;
    const rec = node.rec as EntryRec;
    if (parent >= 0) {
      out.calls[i] = out.calls[parent] as number;
      out.errors[i] = out.errors[parent] as number;
      out.compactions[i] = out.compactions[parent] as number;
      out.root[i] = out.root[parent] as number;
      out.models[i] = out.models[parent] ?? null;
    } else out.root[i] = i;
    if (exclude?.[i] !== 1) {
      if (rec.type === "compaction") out.compactions[i] = (out.compactions[i] as number) + 1;
      const body = bodies[i];
      if (isAssistant(rec)) {
        out.calls[i] = (out.calls[i] as number) + (body?.toolCalls.length ?? 0);
        const m = modelOf(rec);
        const model = `${m.provider}/${m.model}`;
        if (!hasModel(out.models[i] ?? null, model)) out.models[i] = { model, prev: out.models[i] ?? null };
      }
      if (body?.result?.isError === true) out.errors[i] = (out.errors[i] as number) + 1;
    }
    for (const c of node.children) stack.push({ node: c, parent: i });
  }
  return out;
}

function modelsJson(chain: ModelLink | null): string {
  const models: string[] = [];
  for (let l = chain; l; l = l.prev) models.push(l.model);
  models.sort();
  return JSON.stringify(models);
}

/**
 * The `leaves` table's rows of one session: every leaf (pi's rule, leafRecs) with its path's totals as
 * `pisess leaves` prints them (treeShape, a fork's copies left out: they count in the parent), and the path's tool
 * calls, errored tool results, compactions, models, first (root) and last (leaf) time.
 */
export function emitLeafRows(
  session: SpendSession,
  tree: SessionTree,
  file: string,
  bodies: readonly (MessageBody | undefined)[],
  copied: Uint8Array | undefined,
  sink: (row: Row) => void,
): void {
  const shape = treeShape(session, tree, copied ? { exclude: copied } : {});
  const counts = pathCounts(session, tree, bodies, copied);
  const row: Row = [];
  for (const l of shape.leaves) {
    const i = l.rec.index;
    const t = l.totals;
    const turns = l.byKind.find((k) => k.source === "assistant")?.entries ?? 0;
    const root = session.entries[counts.root[i] as number] as EntryRec;
    row.length = 0;
    row.push(
      file,
      l.rec.line,
      l.rec.id ?? null,
      l.depth,
      l.isDefault,
      l.cycle,
      Number.isFinite(root.time) ? root.time : null,
      Number.isFinite(l.rec.time) ? l.rec.time : null,
      modelsJson(counts.models[i] ?? null),
      turns,
      counts.calls[i] as number,
      counts.errors[i] as number,
      counts.compactions[i] as number,
      t.input,
      t.output,
      t.cacheRead,
      t.cacheWrite,
      t.cacheWrite1h,
      t.reasoning,
      t.input + t.output + t.cacheRead + t.cacheWrite,
      t.cost,
    );
    sink(row);
  }
}

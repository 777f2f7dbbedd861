/**
 * Worker-thread entry of `pisess usage` (started by usage.ts when a fleet is large enough): counts the batches of
 * files it is sent and answers each with the batch's sums as a snapshot. A separate module so a bundler can emit
 * it as its own file next to the bundle.
 */
import { workerData } from "node:worker_threads";
import { ParentCache } from "../ops/fleet-parents.js";
import { calendar } from "../ops/fleet-time.js";
import { type GroupKey, UsageAggregator, type UsageSnapshot } from "../ops/fleet-usage.js";
import { serveBatches } from "./pool.js";
import { type CountNotes, type CountSettings, countFiles } from "./usage-count.js";

export interface WorkerInit {
  by: GroupKey[];
  timezone?: string;
  breakdown: boolean;
  settings: CountSettings;
}

export interface WorkerBatch {
  batch: number;
  files: string[];
}

export interface UsageBatchResult {
  snapshot: UsageSnapshot;
  notes: CountNotes;
}

const init = workerData as WorkerInit;
const cal = calendar(init.timezone);
// Kept across batches: a parent with forks in several batches is read once per worker.
const parents = new ParentCache();

serveBatches(async (files): Promise<UsageBatchResult> => {
  const agg = new UsageAggregator(init.by, cal, init.breakdown);
  const notes: CountNotes = { failures: [], damage: [], skipped: [] };
  await countFiles(files, init.settings, agg, parents, notes);
  return { snapshot: agg.snapshot(), notes };
});

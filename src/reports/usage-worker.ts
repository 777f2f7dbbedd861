/**
 * Worker-thread entry of `pisess usage` (started by usage.ts when a fleet is large enough): counts the batches of
 * files it is sent and answers each with the batch's sums as a snapshot. A separate module so a bundler can emit
 * it as its own file next to the bundle.
 */
import { parentPort, workerData } from "node:worker_threads";
import { ParentCache } from "../ops/fleet-parents.js";
import { calendar } from "../ops/fleet-time.js";
import { type GroupKey, UsageAggregator, type UsageSnapshot } from "../ops/fleet-usage.js";
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
const port = parentPort;

port?.on("message", (msg: WorkerBatch | null) => {
  if (msg === null) {
    port.close();
    return;
  }
  const agg = new UsageAggregator(init.by, cal, init.breakdown);
  const notes: CountNotes = { failures: [], damage: [], skipped: [] };
  countFiles(msg.files, init.settings, agg, parents, notes).then(
    () => port.postMessage({ batch: msg.batch, result: { snapshot: agg.snapshot(), notes } satisfies UsageBatchResult }),
    (err: unknown) => port.postMessage({ batch: msg.batch, error: err instanceof Error ? err.message : String(err) }),
  );
});

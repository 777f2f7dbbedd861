/**
 * Worker-thread entry of `pisess tables` and `pisess sql` (started through pool.ts for a large enough fleet): turns
 * the batches of files it is sent into rows as text. A separate module so a bundler can emit it as its own file.
 */
import { workerData } from "node:worker_threads";
import { ParentCache } from "../ops/fleet-parents.js";
import { serveBatches } from "./pool.js";
import { recycle, type TablesWorkerInit, tablesBatch } from "./tables-batch.js";

const { as, states } = workerData as TablesWorkerInit;
// Kept across batches: a parent with forks in several batches is read once per worker.
const parents = new ParentCache();

// The text's buffers move to the writing thread and come back to be filled again.
serveBatches((files) => tablesBatch(files, parents, as, states), { moved: (r) => r.buffers, returned: recycle });

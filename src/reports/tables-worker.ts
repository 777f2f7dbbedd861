/**
 * Worker-thread entry of `pisess tables` and `pisess sql` (started through pool.ts for a large enough fleet): turns
 * the batches of files it is sent into NDJSON rows. A separate module so a bundler can emit it as its own file.
 */
import { parentPort } from "node:worker_threads";
import { ParentCache } from "../ops/fleet-parents.js";
import { tablesBatch } from "./tables-batch.js";

// Kept across batches: a parent with forks in several batches is read once per worker.
const parents = new ParentCache();
const port = parentPort;

port?.on("message", (msg: { batch: number; files: string[] } | null) => {
  if (msg === null) {
    port.close();
    return;
  }
  tablesBatch(msg.files, parents).then(
    (result) => port.postMessage({ batch: msg.batch, result }),
    (err: unknown) => port.postMessage({ batch: msg.batch, error: err instanceof Error ? err.message : String(err) }),
  );
});

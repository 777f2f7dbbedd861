// A worker for test/pool.test.ts, speaking pool.ts's protocol: answers { batch, files } with { batch, result }.
// workerData.started (Int32Array over a SharedArrayBuffer) counts the batches begun; batch 0 is answered only after
// `slowMs`; with `exitAt`, the worker ends itself (process.exit) on that batch instead of answering; with `errorAt`, it answers
// that batch with an error.
import { parentPort, workerData } from "node:worker_threads";

const { started, slowMs = 0, exitAt = -1, errorAt = -1 } = workerData;
parentPort.on("message", (msg) => {
  if (msg === null) return parentPort.close();
  Atomics.add(started, 0, 1);
  if (msg.batch === exitAt) process.exit(0);
  if (msg.batch === errorAt) return parentPort.postMessage({ batch: msg.batch, error: "cannot read f" });
  const answer = () => parentPort.postMessage({ batch: msg.batch, result: msg.files.length });
  if (msg.batch === 0 && slowMs > 0) setTimeout(answer, slowMs);
  else answer();
});

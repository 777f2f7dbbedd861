/**
 * Worker-thread entry of `pisess secrets` (started by secrets-pool.ts on a file large enough): lints the batches
 * of strings it is sent (lintBatch, with the same configuration as the scanning thread's) and answers each with its
 * hits. A separate module so a bundler can emit it as its own file next to the bundle.
 */
import { parentPort, workerData } from "node:worker_threads";
import { lintBatch, type SecretPattern, secretlintConfig } from "../check/secrets.js";
import type { FromLinter, ToLinter } from "./secrets-pool.js";

const config = secretlintConfig((workerData as { patterns: SecretPattern[] }).patterns);
const port = parentPort;
port?.on("message", (msg: ToLinter) => {
  lintBatch(config, msg.parts).then(
    (hits) => port.postMessage({ id: msg.id, hits } satisfies FromLinter),
    (err: unknown) => port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies FromLinter),
  );
});

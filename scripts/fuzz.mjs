#!/usr/bin/env node
// npm run fuzz -- [--runs N] [--seed S] [--path P] [--commands K] [--concurrency C] [--timeout MS] [--no-shrink] [--max-shrinks N]
//                 [--max-keep LINES] [--no-whole] [--max-huge BYTES] [--max-depth N] [--max-mutations N] [--save]
// Mutates fixtures/corpus/*.jsonl and runs every command on each mutated copy (see docs/development.md, "Fuzzing").
// The harness is TypeScript under test/support/fuzz/; Vite's module runner loads it without a build step.
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runnerImport } from "vite";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values: a } = parseArgs({
  options: {
    runs: { type: "string", default: "100" },
    seed: { type: "string" },
    path: { type: "string" },
    commands: { type: "string", default: "20" },
    concurrency: { type: "string", default: String(availableParallelism()) },
    timeout: { type: "string", default: "30000" },
    "no-shrink": { type: "boolean", default: false },
    "shrink-budget": { type: "string", default: "80" },
    "max-shrinks": { type: "string", default: "8" },
    "max-keep": { type: "string", default: "400" },
    "no-whole": { type: "boolean", default: false },
    "max-huge": { type: "string", default: String(4 * 1024 * 1024) },
    "max-depth": { type: "string", default: "5000" },
    "max-mutations": { type: "string", default: "8" },
    save: { type: "boolean", default: false },
  },
});
const int = (name) => {
  const n = Number(a[name]);
  if (!Number.isInteger(n)) {
    console.error(`fuzz: --${name} needs an integer, got ${JSON.stringify(a[name])}`);
    process.exit(2);
  }
  return n;
};
const seed = a.seed === undefined ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : int("seed");
const corpusDir = join(root, "fixtures", "corpus");
const corpus = readdirSync(corpusDir)
  .filter((f) => f.endsWith(".jsonl"))
  .sort()
  .map((f) => join(corpusDir, f));
const { module: h } = await runnerImport(join(root, "test", "support", "fuzz", "harness.ts"), { configFile: false, logLevel: "silent" });
const opts = {
  seed,
  runs: int("runs"),
  path: a.path,
  commandsPerCase: int("commands"),
  concurrency: int("concurrency"),
  timeoutMs: int("timeout"),
  limits: { maxMutations: int("max-mutations"), maxHuge: int("max-huge"), maxDepth: int("max-depth") },
  maxKeep: int("max-keep"),
  wholeFiles: !a["no-whole"],
  shrink: !a["no-shrink"],
  shrinkBudget: int("shrink-budget"),
  maxShrinks: int("max-shrinks"),
  bin: join(root, "bin", "pisess.js"),
  corpus,
  saveDir: a.save ? join(root, "fixtures", "fuzz") : join(tmpdir(), `pisess-fuzz-${seed}`),
  log: (l) => console.error(l),
};
console.error(`fuzz: seed ${seed}, ${opts.runs} cases, ${opts.commandsPerCase} commands each, concurrency ${opts.concurrency}`);
const t0 = Date.now();
const report = await h.fuzz(opts);
console.log(h.formatReport(report));
console.error(`fuzz: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exitCode = report.failed ? 1 : 0;

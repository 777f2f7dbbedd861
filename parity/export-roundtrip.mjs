#!/usr/bin/env node
// `pisess export --format jsonl` through pi 1.6.0: for every leaf of every corpus file (and the files given as
// arguments), the exported file opened by pi's own SessionManager must give, at its last entry, the context pi
// builds at that leaf of the original (SessionContext and convertToLlm). Both sides come from oracle.mjs, which hands
// pi a copy of each file. Needs a build (dist/) and `npm ci` here.
//
// Every leaf, not a sample: the corpus takes about 4 s. Part of `npm run parity` (after run.mjs).
//
// Usage: node parity/export-roundtrip.mjs [FILE...]

import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { comparableLeaves, corpusFiles, lib, tally } from "./corpus-walk.mjs";
import { firstDiff } from "./diff.mjs";
import { computeOracle, sortKeys } from "./oracle.mjs";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-export-parity-"));
const counts = tally();

for (const { file, leaves } of comparableLeaves(corpusFiles(), counts)) {
  const session = await lib.openSession(file);
  try {
    for (const leaf of leaves) {
      const r = await lib.exportJsonl(session, `@${leaf.line}`, {
        id: randomUUID(),
        timestamp: new Date().toISOString(),
        parentSession: path.resolve(file),
      });
      const out = path.join(tmp, `${path.basename(file, ".jsonl")}-${leaf.line}.jsonl`);
      fs.writeFileSync(out, `${r.data.lines.join("\n")}\n`);
      const copy = computeOracle(out, { pi: "1.6" });
      const last = copy.leaves.find((l) => l.default);
      const want = sortKeys({ context: leaf.context, llm: leaf.llm });
      const got = sortKeys({ context: last?.context, llm: last?.llm });
      counts.record(file, leaf, firstDiff(want, got) ?? (r.data.sameContext ? null : "pisess's own check (sameContext false)"));
    }
  } finally {
    session.store.close();
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
const { passed, failed, skipped } = counts;
console.log(`export round trip through pi 1.6.0: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) {
  console.error(`export round trip FAILED: ${failed > 0 ? `${failed} leaves differ` : "no leaf was checked"}`);
  process.exit(1);
}

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
import { fileURLToPath, pathToFileURL } from "node:url";
import { firstDiff } from "./diff.mjs";
import { computeOracle, sortKeys } from "./oracle.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const lib = await import(pathToFileURL(process.env.PISESS_DIST ?? path.join(HERE, "..", "dist", "index.js")).href);
const corpusDir = path.join(HERE, "..", "fixtures", "corpus");
const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : fs
        .readdirSync(corpusDir)
        .filter((f) => f.endsWith(".jsonl"))
        .map((f) => path.join(corpusDir, f));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-export-parity-"));
let passed = 0;
let failed = 0;
let skipped = 0;

for (const file of files) {
  let orig;
  try {
    orig = computeOracle(file, { pi: "1.6" });
  } catch (err) {
    console.log(`skip ${path.basename(file)}: pi 1.6.0 cannot open it (${String(err.message ?? err).slice(0, 80)})`);
    skipped++;
    continue;
  }
  const session = await lib.openSession(file);
  try {
    for (const leaf of orig.leaves) {
      // pi cannot build these (cycle, throw) or resolves them to another entry: nothing to carry over.
      if (leaf.error !== undefined || leaf.contextError !== undefined || leaf.contextLeafLine !== undefined) {
        skipped++;
        continue;
      }
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
      const diff = firstDiff(want, got) ?? (r.data.sameContext ? null : "pisess's own check (sameContext false)");
      if (diff === null) passed++;
      else {
        failed++;
        console.log(`FAIL ${path.basename(file)} @${leaf.line}: first difference at ${diff}`);
      }
    }
  } finally {
    session.store.close();
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`export round trip through pi 1.6.0: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) {
  console.error(`export round trip FAILED: ${failed > 0 ? `${failed} leaves differ` : "no leaf was checked"}`);
  process.exit(1);
}

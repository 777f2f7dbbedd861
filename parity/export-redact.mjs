#!/usr/bin/env node
// `pisess export --redact --format jsonl` through pi 1.6.0: for every leaf of every corpus file (and the files given
// as arguments), the redacted export (every secret the scan finds, and every match of a pattern that hits words of
// the corpus, masked as [REDACTED:rule]) opened by pi's own SessionManager must give, at its last entry, a context
// of the shape of the plain export's (the same messages, roles and keys; strings may differ) and the same entries
// (types, ids, parents). Both are opened by oracle.mjs, on copies. Needs a build (dist/) and `npm ci` here.
//
// Usage: node parity/export-redact.mjs [FILE...]

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
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-redact-parity-"));
const HEADER = { id: "0198a7c0-0000-7000-8000-00000000a033", timestamp: "2026-12-01T00:00:00.000Z" };
// Words the corpus's messages hold, so that every file has masks to carry over.
const PATTERNS = [/\b(?:session|the|file)\b/giu];
/** Strings emptied: what is left is the shape. */
const shape = (v) => JSON.parse(JSON.stringify(v ?? null, (_k, x) => (typeof x === "string" ? "" : x)));
let passed = 0;
let failed = 0;
let skipped = 0;
let masked = 0;

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
  const { session: red, facts } = await lib.redactSession(session, { redactPatterns: PATTERNS });
  masked += facts.masked;
  try {
    for (const leaf of orig.leaves) {
      if (leaf.error !== undefined || leaf.contextError !== undefined || leaf.contextLeafLine !== undefined) {
        skipped++;
        continue;
      }
      const sides = [];
      for (const [name, s] of [
        ["plain", session],
        ["redacted", red],
      ]) {
        const r = await lib.exportJsonl(s, `@${leaf.line}`, HEADER);
        const out = path.join(tmp, `${path.basename(file, ".jsonl")}-${leaf.line}-${name}.jsonl`);
        fs.writeFileSync(out, `${r.data.lines.join("\n")}\n`);
        const o = computeOracle(out, { pi: "1.6" });
        const last = o.leaves.find((l) => l.default);
        sides.push({ entries: o.entries.map((e) => [e.type, e.line]), context: shape(last?.context), llm: shape(last?.llm) });
      }
      const diff = firstDiff(sortKeys(sides[0]), sortKeys(sides[1]));
      if (diff === null) passed++;
      else {
        failed++;
        console.log(`FAIL ${path.basename(file)} @${leaf.line}: first difference at ${diff}`);
      }
    }
  } finally {
    red.store.close();
    session.store.close();
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`redacted export round trip through pi 1.6.0: ${passed} passed, ${failed} failed, ${skipped} skipped (${masked} masks)`);
if (failed > 0 || passed === 0 || masked === 0) {
  console.error(
    `redacted export round trip FAILED: ${failed > 0 ? `${failed} leaves differ` : passed === 0 ? "no leaf was checked" : "nothing was masked"}`,
  );
  process.exit(1);
}

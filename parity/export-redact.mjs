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
import { comparableLeaves, corpusFiles, lib, tally } from "./corpus-walk.mjs";
import { firstDiff } from "./diff.mjs";
import { computeOracle, sortKeys } from "./oracle.mjs";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-redact-parity-"));
const HEADER = { id: "0198a7c0-0000-7000-8000-00000000a033", timestamp: "2026-12-01T00:00:00.000Z" };
// Words the corpus's messages hold, so that every file has masks to carry over.
const PATTERNS = [/\b(?:session|the|file)\b/giu];
/** Strings emptied: what is left is the shape. */
const shape = (v) => JSON.parse(JSON.stringify(v ?? null, (_k, x) => (typeof x === "string" ? "" : x)));
const counts = tally();
let masked = 0;

for (const { file, leaves } of comparableLeaves(corpusFiles(), counts)) {
  const session = await lib.openSession(file);
  const { session: red, facts } = await lib.redactSession(session, { redactPatterns: PATTERNS });
  masked += facts.masked;
  try {
    for (const leaf of leaves) {
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
      counts.record(file, leaf, firstDiff(sortKeys(sides[0]), sortKeys(sides[1])));
    }
  } finally {
    red.store.close();
    session.store.close();
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
const { passed, failed, skipped } = counts;
console.log(`redacted export round trip through pi 1.6.0: ${passed} passed, ${failed} failed, ${skipped} skipped (${masked} masks)`);
if (failed > 0 || passed === 0 || masked === 0) {
  console.error(
    `redacted export round trip FAILED: ${failed > 0 ? `${failed} leaves differ` : passed === 0 ? "no leaf was checked" : "nothing was masked"}`,
  );
  process.exit(1);
}

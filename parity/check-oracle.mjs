#!/usr/bin/env node
// Verifies that parity/oracle.mjs reproduces /work/shared/corpus/NAME.expected.json for every NAME.jsonl there, running
// the pi version the expected file names (`piVersion`, else `oracle.pi`).
// For files whose ids pi invents (v1), ids are compared by line only (id fields are dropped on both sides).
// Then, for information, every file is also run through the other pi version and the differences are listed
// (fields only one version has are left out: piVersion, open.appendsNewline, leaves[].messageLines / edits).
// Usage: node parity/check-oracle.mjs [CORPUS_DIR]

import fs from "node:fs";
import path from "node:path";
import { firstDiff } from "./diff.mjs";
import { computeOracle, PI_KEYS, piKeyOf, stripIds } from "./oracle.mjs";

const dir = process.argv[2] ?? process.env.PISESS_CORPUS ?? "/work/shared/corpus";
// Fields compared. `oracle` (tool identity) is not.
const FIELDS = [
  "piVersion",
  "version",
  "header",
  "headerLine",
  "skipped",
  "open",
  "idsSynthetic",
  "parse",
  "file",
  "entries",
  "leaf",
  "labels",
  "sessionName",
  "tree",
  "treeError",
  "leaves",
];

/** Removes what only one pi version reports, so that two versions' answers can be compared. */
function versionNeutral(doc) {
  delete doc.piVersion;
  if (doc.open) delete doc.open.appendsNewline;
  for (const l of doc.leaves ?? []) {
    delete l.messageLines;
    delete l.edits;
  }
  return doc;
}

function compare(expected, actual) {
  for (const field of FIELDS) {
    if (!(field in expected) && !(field in actual)) continue;
    const diff = firstDiff(expected[field], actual[field], `$.${field}`);
    if (diff) return diff;
  }
  return null;
}

let failed = 0;
let passed = 0;
const crossNotes = [];
const names = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();
for (const f of names) {
  const expFile = path.join(dir, f.replace(/\.jsonl$/, ".expected.json"));
  if (!fs.existsSync(expFile)) continue;
  let expected = JSON.parse(fs.readFileSync(expFile, "utf8"));
  const key = piKeyOf(expected.piVersion ?? expected.oracle?.pi);
  let actual = computeOracle(path.join(dir, f), { pi: key });
  if (expected.idsSynthetic) {
    expected = stripIds(expected);
    actual = stripIds(actual);
  }
  const diff = compare(expected, actual);
  const nLeaves = (expected.leaves ?? []).length;
  if (diff) {
    failed++;
    console.log(`FAIL ${f} (pi ${key}): first difference at ${diff.path}\n  expected: ${diff.expected}\n  actual:   ${diff.actual}`);
  } else {
    passed++;
    console.log(`ok   ${f} (pi ${key}, ${nLeaves} leaves${expected.idsSynthetic ? ", ids compared by line" : ""})`);
  }
  for (const other of PI_KEYS.filter((k) => k !== key)) {
    let o = computeOracle(path.join(dir, f), { pi: other });
    if (expected.idsSynthetic) o = stripIds(o);
    const d = compare(versionNeutral(structuredClone(expected)), versionNeutral(o));
    crossNotes.push(
      d
        ? `  pi ${other} differs on ${f}: ${d.path}: ${d.expected} (pi ${key}) vs ${d.actual} (pi ${other})`
        : `  pi ${other} agrees on ${f}`,
    );
  }
}
console.log("check-oracle: the other pi version on the same files (information only):");
for (const n of crossNotes) console.log(n);
console.log(`check-oracle: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

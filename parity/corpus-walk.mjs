// The walk both export round trips make (export-roundtrip.mjs, export-redact.mjs): the library under test, every
// corpus file (or the files given as arguments), pi 1.6.0's view of each (oracle.mjs, on a copy), the leaves worth
// comparing on, and the counts.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { computeOracle } from "./oracle.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The build under test: dist/ (or PISESS_DIST). */
export const lib = await import(pathToFileURL(process.env.PISESS_DIST ?? path.join(HERE, "..", "dist", "index.js")).href);

/** The files given as arguments, else every session of the corpus. */
export function corpusFiles() {
  if (process.argv.length > 2) return process.argv.slice(2);
  const dir = path.join(HERE, "..", "fixtures", "corpus");
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => path.join(dir, f));
}

/** Leaves passed, failed and skipped; `record` counts one comparison (its first difference, null when equal). */
export function tally() {
  return {
    passed: 0,
    failed: 0,
    skipped: 0,
    record(file, leaf, diff) {
      if (diff === null) this.passed++;
      else {
        this.failed++;
        console.log(`FAIL ${path.basename(file)} @${leaf.line}: first difference at ${diff}`);
      }
    },
  };
}

/**
 * Each file with pi 1.6.0's view of it and the leaves to compare on. A file pi cannot open is said and counted
 * skipped; so is every leaf pi cannot build (cycle, throw) or resolves to another entry: nothing to carry over.
 */
export function* comparableLeaves(files, counts) {
  for (const file of files) {
    let orig;
    try {
      orig = computeOracle(file, { pi: "1.6" });
    } catch (err) {
      console.log(`skip ${path.basename(file)}: pi 1.6.0 cannot open it (${String(err.message ?? err).slice(0, 80)})`);
      counts.skipped++;
      continue;
    }
    const leaves = orig.leaves.filter((l) => l.error === undefined && l.contextError === undefined && l.contextLeafLine === undefined);
    counts.skipped += orig.leaves.length - leaves.length;
    yield { file, leaves };
  }
}

import { basename } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest (idle, 2 cores: from 15–16 s for the browser test and context-standins down to 3 s), longest first. A clean clone
 * (CI) has no timings from an earlier run, and vitest then starts the largest files first, which left the README
 * examples and the fuzz run for last, one worker busy while the other sat idle. Files not named here follow in
 * vitest's own order (by last duration when known, else by size).
 */
const SLOW_FIRST = [
  "export-browser",
  "context-standins",
  "scale-overflow",
  "export",
  "tables-bytes",
  "quick-start",
  "follow",
  "fuzz",
  "tables",
  "validate-one-parse",
  "lazy-load",
  "id-index",
  "snapshots",
  "scale",
  "readonly",
  "file-stdout",
  "context-corpus",
  "core-tree",
  "tree-json",
  "skeleton",
  "spend-detail",
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => {
      const i = SLOW_FIRST.indexOf(basename(f.moduleId).replace(/\.test\.ts$/, ""));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// A CA bundle named in the environment (some CI images set NODE_EXTRA_CA_CERTS for every process) makes each Node
// process parse it at start-up, before any of its own code runs: ~35 ms of CPU here, in each of the ~120 processes
// the tests spawn. Nothing here makes a TLS connection; the tests' children start without it.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    // One folder per kind of test (test/README.md): \`npm run test:unit\` runs test/unit alone.
    include: ["test/{unit,cli,equivalence,snapshots}/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores here; CLI tests spawn processes, which run beside the workers.
    maxWorkers: 2,
    // Threads, and one module graph per worker instead of one per file: the test files share no mutable state
    // (no mocks, no process.env or cwd changes, each works in its own temp folder), and importing src/ and
    // vitest once per worker instead of once per file saves about 8 s of CPU.
    pool: "threads",
    isolate: false,
    sequence: { sequencer: SlowFirst },
    // No setup file: no matcher is patched. Comparisons in loops and on large values go through
    // test/support/expect-fast.ts.
  },
});

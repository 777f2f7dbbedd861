import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores here; CLI tests spawn processes, which run beside the workers.
    maxWorkers: 2,
    // Threads, and one module graph per worker instead of one per file: the test files share no mutable state
    // (no mocks, no process.env or cwd changes, each works in its own temp folder), and importing src/ and
    // vitest once per worker instead of once per file saves about 8 s of CPU.
    pool: "threads",
    isolate: false,
  },
});

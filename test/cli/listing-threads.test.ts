import { cpSync, existsSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { grepReport } from "../../src/reports/grep.js";
import { lsReport } from "../../src/reports/ls.js";
import { fingerprint, fixture, sessionFiles } from "../support/helpers.js";
import { tempDirs } from "../support/temp-dirs.js";

/** `pisess ls` and `pisess grep` on worker threads: the same rows, hits, notes and order as in one thread. */

const tmp = tempDirs("pisess-ls-threads-");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };
const DIST = join(import.meta.dirname, "..", "..", "dist", "reports");

/** Eight copies of the fleet and of the corpus (forks, damage, every version), a file with no header among them. */
function copies(): string[] {
  const root = tmp();
  const targets = Array.from({ length: 8 }, (_, i) => {
    cpSync(fixture("fleet"), join(root, `fleet-${i}`), { recursive: true });
    cpSync(fixture("corpus"), join(root, `corpus-${i}`), { recursive: true, filter: (p) => !p.endsWith(".json") });
    return [join(root, `fleet-${i}`, "sessions"), join(root, `corpus-${i}`)];
  }).flat();
  writeFileSync(join(root, "corpus-3", "not-a-session.jsonl"), '{"type":"message","id":"x"}\n');
  // Out of the live window (io/scan/lines.ts), where an unterminated last line would be held back, as in the fixtures.
  for (const f of sessionFiles(root)) utimesSync(f, new Date("2026-01-01"), new Date("2026-01-01"));
  return targets;
}

describe("ls and grep on worker threads", () => {
  it("every session of 8 copies of the fleet and corpus, by each sort: the same data as one thread", async () => {
    // The compiled report: its worker module (dist/reports/ls-worker.js) exists only there.
    expect(existsSync(join(DIST, "ls-worker.js"))).toBe(true);
    const dist = (await import(join(DIST, "ls.js"))) as typeof import("../../src/reports/ls.js");
    const dirs = copies();
    const before = sessionFiles(join(dirs[0] as string, "..", "..")).map(fingerprint);
    expect(before.length).toBeGreaterThan(64);
    for (const sort of ["modified", "created", "size", "name"] as const) {
      const two = await dist.lsReport({ dirs, sort, env, cwd: "/", threads: 2 });
      const one = await lsReport({ dirs, sort, env, cwd: "/", threads: 1 });
      expect(two.data.sessions.length).toBeGreaterThan(64);
      expect(two.data.skipped).toBeGreaterThan(0);
      expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    }
    // The workers read the sessions as this thread does: no byte or mtime changes.
    expect(sessionFiles(join(dirs[0] as string, "..", "..")).map(fingerprint)).toEqual(before);
  }, 60_000);

  it("grep over 8 copies of the fleet and corpus, with and without filters: the same data as one thread", async () => {
    expect(existsSync(join(DIST, "grep-worker.js"))).toBe(true);
    const dist = (await import(join(DIST, "grep.js"))) as typeof import("../../src/reports/grep.js");
    const targets = copies();
    const before = sessionFiles(join(targets[0] as string, "..", "..")).map(fingerprint);
    const queries = [
      { pattern: "e", context: 10 },
      { pattern: "PARSER|loader", ignoreCase: true },
      { pattern: "\\p{L}{6,}", roles: ["assistant"], types: ["message"] },
      { pattern: "no such text anywhere" },
    ];
    for (const q of queries) {
      const two = await dist.grepReport({ ...q, targets, env, cwd: "/", threads: 2 });
      const one = await grepReport({ ...q, targets, env, cwd: "/", threads: 1 });
      expect(two.data.files.length).toBeGreaterThan(64);
      expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    }
    expect((await grepReport({ ...queries[0], pattern: "e", targets, env, cwd: "/", threads: 1 })).data.hits).toBeGreaterThan(100);
    expect(sessionFiles(join(targets[0] as string, "..", "..")).map(fingerprint)).toEqual(before);
  }, 60_000);
});

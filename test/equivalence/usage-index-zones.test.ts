import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { GroupKey } from "../../src/ops/fleet-usage.js";
import { indexReport } from "../../src/reports/fleet-index.js";
import { usageReport } from "../../src/reports/usage.js";
import { entryLine, headerLine, writeSession } from "../support/index-fleet.js";
import { tempDirs } from "../support/temp-dirs.js";

/**
 * usage through the index sums each session's spend per local day in SQL (the zone's offset per UTC day, quarter
 * hours on a day the offset changes); the count over the files buckets every record by itself. Both must agree on
 * days, weeks and months in zones whose clocks change (at 2:00, at midnight, by half an hour) or sit at quarter-hour
 * offsets, across the clock changes of March 2026.
 */

const tmp = tempDirs("pisess-usage-zones-");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };

// Entries an hour apart from 2026-03-01 10:00 UTC: 420 of them reach 2026-03-18, past the clock changes of New York
// and Havana (March 8) and Santiago (April 5 is not reached: its offset stays).
function fleet(): string {
  const dir = join(tmp(), "sessions");
  for (const [k, n] of [
    ["a", 420],
    ["b", 37],
    ["c", 250],
  ] as const) {
    let text = headerLine(`00000000-0000-4000-8000-00000000000${k === "a" ? 1 : k === "b" ? 2 : 3}`, `/p/${k}`);
    for (let i = 0; i < n; i++) text += entryLine(k, i, i === 0 ? null : `${k}-${i - 1}`, i % 3 === 0 ? "m2" : "m1");
    writeSession(join(dir, `--p-${k}--`, `${k}.jsonl`), text);
  }
  return dir;
}

const ZONES = ["UTC", "America/New_York", "America/Havana", "Asia/Kathmandu", "Pacific/Chatham", "Australia/Lord_Howe"];
const BY: GroupKey[][] = [["day"], ["day", "model"], ["week", "session"], ["month"]];

describe("usage by day, week and month through the index equals the count over the files", () => {
  it("in zones with clock changes and quarter-hour offsets, with and without --since/--until", async () => {
    const dir = fleet();
    const db = join(tmp(), "index.duckdb");
    await indexReport({ db, targets: [dir], env, cwd: "/" });
    for (const timezone of ZONES)
      for (const by of BY)
        for (const days of [{}, { since: "2026-03-08", until: "2026-03-09" }]) {
          const opts = { targets: [dir], by, env, cwd: "/", timezone, ...days };
          const direct = await usageReport({ ...opts, threads: 1 });
          const indexed = await usageReport({ ...opts, db });
          expect(indexed.data, `${timezone} ${by.join(",")} ${JSON.stringify(days)}`).toEqual(direct.data);
          expect(direct.data.rows.length).toBeGreaterThan(0);
        }
  });
});

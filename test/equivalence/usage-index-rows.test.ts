import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { GroupKey } from "../../src/ops/fleet-usage.js";
import { indexReport } from "../../src/reports/fleet-index.js";
import { usageReport } from "../../src/reports/usage.js";
import { entryLine, headerLine, writeSession } from "../support/index-fleet.js";
import { tempDirs } from "../support/temp-dirs.js";

/**
 * usage by day, week, month and model through the index sums its rows in SQL (usage-index-rows.ts: sessions counted
 * distinct per row, the calendar's buckets per local day); every other question, and a fleet with a cost that is
 * not a sum of fixed units, is counted session by session. Either way the answer is the count over the files.
 */

const tmp = tempDirs("pisess-usage-rows-");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** Sessions in two projects, two models, a fork (its copied entries), a damaged line and a file of a later version. */
function fleet(odd: boolean): string {
  const dir = join(tmp(), "sessions");
  const lines = (tag: string, n: number, from = 0) => {
    let text = "";
    for (let i = from; i < n; i++) text += entryLine(tag, i, i === 0 ? null : `${tag}-${i - 1}`, i % 3 === 0 ? "m2" : "m1");
    return text;
  };
  writeSession(join(dir, "--p-a--", "a.jsonl"), headerLine(id(1), "/p/a") + lines("a", 300));
  writeSession(
    join(dir, "--p-a--", "b.jsonl"),
    `${headerLine(id(2), "/p/a")}${lines("b", 40)}{"type":"message","id":\n${lines("b", 60, 40)}`,
  );
  const fork = headerLine(id(3), "/p/b", join(dir, "--p-a--", "a.jsonl")) + lines("a", 120) + lines("a", 170, 120).replace(/"a-/g, '"f-');
  writeSession(join(dir, "--p-b--", "fork.jsonl"), fork.replace('"f-120","parentId":"f-119"', '"f-120","parentId":"a-119"'));
  // A session of a version pisess does not know: skipped, with a note.
  writeSession(join(dir, "--p-b--", "v4.jsonl"), headerLine(id(5), "/p/b").replace('"version":3', '"version":4') + lines("v", 4));
  if (odd) {
    // A cost at or above 2^20: the count adds it as it is, not as a fixed sum.
    const line = entryLine("c", 1, null).replace('"total":0.1001', '"total":2000000.25');
    expect(line).toContain("2000000.25");
    writeSession(join(dir, "--p-b--", "c.jsonl"), headerLine(id(4), "/p/b") + line);
  }
  return dir;
}

const BY: GroupKey[][] = [[], ["model"], ["day"], ["day", "model"], ["week", "model"], ["month"], ["model", "week"]];
/** Zones and days: every answer in UTC over all days, and in New York over the days of its clock change. */
const WHEN = [{ timezone: "UTC" }, { timezone: "America/New_York", since: "2026-03-05", until: "2026-03-09" }];

async function same(dir: string, targets: string[], db: string): Promise<number> {
  let compared = 0;
  for (const by of BY)
    for (const breakdown of [false, true])
      for (const includeCopied of [false, true])
        for (const when of WHEN) {
          const opts = { targets, by, breakdown, includeCopied, env, cwd: "/", allowUnreadable: true, ...when };
          const direct = await usageReport({ ...opts, threads: 1 });
          const indexed = await usageReport({ ...opts, db });
          expect(indexed, `${dir} ${by.join(",")} ${JSON.stringify({ breakdown, includeCopied, when })}`).toEqual(direct);
          compared += direct.data.rows.length;
        }
  return compared;
}

describe("usage's rows summed in SQL through the index equal the count over the files", () => {
  it("by day, week, month and model, with breakdown, copies, zones and days; notes of damaged and skipped files", async () => {
    const dir = fleet(false);
    const db = join(tmp(), "index.duckdb");
    await indexReport({ db, targets: [dir], env, cwd: "/" });
    expect(await same(dir, [dir], db)).toBeGreaterThan(300);
    const direct = await usageReport({ targets: [dir], env, cwd: "/", threads: 1 });
    expect(direct.data.damage.length).toBeGreaterThan(0);
    expect(direct.data.skipped).toHaveLength(1);
  });

  it("for some of the files the index holds (a folder of them)", async () => {
    const dir = fleet(false);
    const db = join(tmp(), "index.duckdb");
    await indexReport({ db, targets: [dir], env, cwd: "/" });
    expect(await same(dir, [join(dir, "--p-b--")], db)).toBeGreaterThan(100);
  });

  it("with a cost that is not a sum of fixed units", async () => {
    const dir = fleet(true);
    const db = join(tmp(), "index.duckdb");
    await indexReport({ db, targets: [dir], env, cwd: "/" });
    expect(await same(dir, [dir], db)).toBeGreaterThan(300);
  });
});

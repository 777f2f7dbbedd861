import { spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, statSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { indexReport } from "../../src/reports/fleet-index.js";
import { sqlReport } from "../../src/reports/sql.js";
import { usageReport } from "../../src/reports/usage.js";
import type { GroupKey } from "../../src/ops/fleet-usage.js";
import { BIN, fixture, runCli } from "../support/helpers.js";
import { age, ageAll, appendTo, dumpIndex, entryLine, headerLine, writeSession } from "../support/index-fleet.js";
import { tempDirs } from "../support/temp-dirs.js";

/** `pisess index`: incremental updates equal a full rebuild; usage and sql answer the same through it. */

const tmp = tempDirs("pisess-index-test-");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };

async function index(dir: string, db: string) {
  return indexReport({ db, targets: [dir], env, cwd: "/" });
}

/** A copy of the fleet fixture (forks, a fork of a fork, subagents, a damaged file) to change. */
function fleetCopy(): { root: string; dir: string } {
  const root = tmp();
  const dir = join(root, "sessions");
  cpSync(fixture("fleet", "sessions"), dir, { recursive: true });
  cpSync(fixture("fleet", "outside"), join(root, "outside"), { recursive: true });
  ageAll(root);
  return { root, dir };
}

async function rebuilt(dir: string): Promise<Record<string, unknown[][]>> {
  const db = join(tmp(), "fresh.duckdb");
  await index(dir, db);
  return dumpIndex(db);
}

const USAGE_BY: GroupKey[][] = [[], ["day"], ["session", "model"], ["leaf"], ["project", "week"]];

async function expectUsageEqual(dir: string, db: string) {
  for (const by of USAGE_BY) {
    for (const extra of [{}, { includeCopied: true }, { breakdown: true, since: "2026-01-06", timezone: "Asia/Tokyo" }]) {
      const direct = await usageReport({ targets: [dir], by, env, cwd: "/", threads: 1, ...extra });
      const indexed = await usageReport({ targets: [dir], by, env, cwd: "/", db, ...extra });
      expect(indexed).toEqual(direct);
    }
  }
}

describe("pisess index", () => {
  it("builds the tables and files; a second run reads nothing; a grown parent re-reads its forks", async () => {
    const { dir, root } = fleetCopy();
    const db = join(root, "cache", "index.duckdb");
    const first = await index(dir, db);
    expect(first.data).toMatchObject({ files: 8, added: 8, unchanged: 0, changed: 0, removed: 0 });
    expect(first.data.rows.sessions).toBe(8);
    const again = await index(dir, db);
    // b-damaged ends in a half-written line: read again each run (the snapshot rule's line may be complete by then).
    expect(again.data).toMatchObject({ files: 8, added: 0, unchanged: 7, changed: 1, removed: 0 });
    const files = (await dumpIndex(db)).files as unknown[][];
    // path, size, mtime, fingerprint, bytes ingested, last line end, status, problems, parent, parent stat
    const damaged = files.find((r) => String(r[0]).endsWith("b-damaged.jsonl")) as unknown[];
    expect(damaged[6]).toBe("read");
    expect(JSON.parse(String(damaged[7])).map((p: { code: string }) => p.code)).toEqual(["malformed-json", "truncated-line"]);
    const fork = files.find((r) => String(r[0]).endsWith("/a-fork.jsonl")) as unknown[];
    expect(fork[8]).toBe(join(dir, "--home-dev-proj-a--", "a-parent.jsonl"));
    // a-parent grows: it is read from its last line end on, its fork a-fork read whole again (a-fork2's parent is
    // a-fork, which did not change), b-damaged too.
    const parent = join(dir, "--home-dev-proj-a--", "a-parent.jsonl");
    const line = entryLine("zz", 2, null);
    appendTo(parent, line);
    const grown = await index(dir, db);
    expect(grown.data).toMatchObject({ unchanged: 5, appended: 1, changed: 2, added: 0, removed: 0 });
    // Bytes read: the appended line, and the two files read whole.
    const whole = ["--home-dev-proj-a--/a-fork.jsonl", "--home-dev-proj-b--/b-damaged.jsonl"].map((f) => statSync(join(dir, f)).size);
    expect(grown.data.bytesRead).toBe(Buffer.byteLength(line) + (whole[0] as number) + (whole[1] as number));
    expect(await dumpIndex(db)).toEqual(await rebuilt(dir));
  });

  it("appends, half lines, new files, forks, truncation, header rewrites and deletions: equal to a full rebuild", async () => {
    const { dir, root } = fleetCopy();
    const db = join(root, "index.duckdb");
    await index(dir, db);
    const s1 = join(dir, "--p--", "s1.jsonl");
    writeSession(s1, headerLine("11111111-0000-4000-8000-000000000001", "/p") + entryLine("s1", 0, null) + entryLine("s1", 1, "s1-0"));
    await index(dir, db);
    // A fork of s1 that copies its two entries.
    const f1 = join(dir, "--p--", "f1.jsonl");
    writeSession(f1, headerLine("11111111-0000-4000-8000-000000000002", "/p", s1) + entryLine("s1", 0, null) + entryLine("s1", 1, "s1-0"));
    appendTo(f1, entryLine("f1", 3, "s1-1"));
    // A half-written line, then the rest of it.
    const half = entryLine("s1", 2, "s1-1");
    appendTo(s1, half.slice(0, 40));
    await index(dir, db);
    expect(await dumpIndex(db)).toEqual(await rebuilt(dir));
    appendTo(s1, half.slice(40));
    await index(dir, db);
    expect(await dumpIndex(db)).toEqual(await rebuilt(dir));
    // Truncated to its header and first entry; a header rewritten; a file deleted.
    truncateSync(s1, Buffer.byteLength(headerLine("11111111-0000-4000-8000-000000000001", "/p") + entryLine("s1", 0, null)));
    age(s1);
    const b = join(dir, "--home-dev-proj-b--", "b-branchy.jsonl");
    const text = readFileSync(b, "utf8");
    writeFileSync(b, text.replace('"cwd":"/home/dev/proj-b"', '"cwd":"/home/dev/proj-z"'));
    age(b);
    unlinkSync(join(dir, "--home-dev-proj-c--", "c-fork.jsonl"));
    const r = await index(dir, db);
    expect(r.data.removed).toBe(1);
    expect(await dumpIndex(db)).toEqual(await rebuilt(dir));
    await expectUsageEqual(dir, db);
  });

  it("usage and sql through the index answer as --no-index, every table and every grouping", async () => {
    const { dir, root } = fleetCopy();
    const db = join(root, "index.duckdb");
    await expectUsageEqual(dir, db);
    for (const t of ["sessions", "entries", "messages", "tool_calls", "usage", "leaves"]) {
      const q = `SELECT * FROM ${t} ORDER BY ALL`;
      const direct = await sqlReport({ query: q, targets: [dir], env, cwd: "/" });
      const indexed = await sqlReport({ query: q, targets: [dir], env, cwd: "/", db });
      expect([t, indexed.data]).toEqual([t, direct.data]);
    }
    // A part of the fleet: only its files' rows.
    const part = join(dir, "--home-dev-proj-a--");
    const q = "SELECT session, count(*) AS n FROM entries GROUP BY ALL ORDER BY ALL";
    const direct = await sqlReport({ query: q, targets: [part], env, cwd: "/" });
    expect(await sqlReport({ query: q, targets: [part], env, cwd: "/", db })).toEqual(direct);
    expect(direct.data.rows).toHaveLength(3);
  });

  it("the CLI: index, usage and sql use the cache dir's index; --no-index and --db; a --db among sessions is refused", async () => {
    const { dir, root } = fleetCopy();
    const cacheEnv = { XDG_CACHE_HOME: join(root, "cache"), HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    const i = await runCli(["index", dir], { env: cacheEnv });
    expect([i.code, i.stdout]).toEqual([
      0,
      `index: ${join(root, "cache", "pisess", "index.duckdb")}\n8 session files: 0 unchanged, 8 added, 0 appended to, 0 re-read, 0 removed\n`,
    ]);
    const viaIndex = await runCli(["usage", dir, "--by", "session", "--json"], { env: cacheEnv });
    const direct = await runCli(["usage", dir, "--by", "session", "--json", "--no-index"], { env: cacheEnv });
    expect(viaIndex.stdout).toBe(direct.stdout);
    const q = await runCli(["sql", "SELECT count(*) AS n FROM files", dir, "--csv"], { env: cacheEnv });
    expect(q.stdout).toBe("n\r\n8\r\n");
    const inside = await runCli(["index", dir, "--db", join(dir, "x.duckdb")], { env: cacheEnv });
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain("a folder of sessions");
    expect(existsSync(join(dir, "x.duckdb"))).toBe(false);
  });
});

/** Spawns `pisess index` paused inside its transaction (the test hook); resolves once it says so. */
function pausedIndex(dir: string, db: string): Promise<{ kill: () => Promise<number | null>; done: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "index", dir, "--db", db], {
      env: { ...process.env, ...env, PISESS_TEST_INDEX_PAUSE_MS: "60000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const done = new Promise<number | null>((r) => child.on("close", (code, signal) => r(signal === "SIGKILL" ? -9 : code)));
    let err = "";
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString();
      if (err.includes("paused inside the update"))
        resolve({
          kill: async () => {
            child.kill("SIGKILL");
            return done;
          },
          done,
        });
    });
    child.on("error", reject);
    done.then((code) => reject(new Error(`index ended (${code}) before pausing: ${err}`)));
  });
}

describe("pisess index: killed and concurrent runs", () => {
  it("a run killed with SIGKILL inside its update leaves the previous index", async () => {
    const { dir, root } = fleetCopy();
    const db = join(root, "index.duckdb");
    await index(join(dir, "--home-dev-proj-a--"), db);
    const before = await dumpIndex(db);
    appendTo(join(dir, "--home-dev-proj-a--", "a-parent.jsonl"), entryLine("zz", 2, null));
    const run = await pausedIndex(dir, db);
    expect(await run.kill()).toBe(-9);
    expect(await dumpIndex(db)).toEqual(before);
    // And the next run completes the update.
    await index(dir, db);
    expect(await dumpIndex(db)).toEqual(await rebuilt(dir));
  }, 60_000);

  it("a second run while one updates says so (exit 2) after --wait, and the index stays whole", async () => {
    const { dir, root } = fleetCopy();
    const db = join(root, "index.duckdb");
    const run = await pausedIndex(dir, db);
    const second = await runCli(["index", dir, "--db", db, "--wait", "1"], { env });
    expect(second.code).toBe(2);
    expect(second.stderr).toBe(`pisess: another pisess index is updating ${db}: try again when it has finished\n`);
    await run.kill();
    await index(dir, db);
    expect(await dumpIndex(db)).toEqual(await rebuilt(dir));
  }, 60_000);
});

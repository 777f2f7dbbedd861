import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, readFileSync, statSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { indexReport } from "../../src/reports/fleet-index.js";
import { sqlReport } from "../../src/reports/sql.js";
import { usageReport } from "../../src/reports/usage.js";
import type { GroupKey } from "../../src/ops/fleet-usage.js";
import { BIN, fixture, runCli, spawnCli } from "../support/helpers.js";
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
    // b-damaged ends in a half-written line, a minute old: read as it is (damage noted), then told by its stat.
    expect(again.data).toMatchObject({ files: 8, added: 0, unchanged: 8, changed: 0, appended: 0, removed: 0, bytesRead: 0 });
    const files = (await dumpIndex(db)).files as unknown[][];
    // path, size, mtime, fingerprint, bytes ingested, last line end, status, problems, parent, parent stat
    const damaged = files.find((r) => String(r[0]).endsWith("b-damaged.jsonl")) as unknown[];
    expect(damaged[6]).toBe("read");
    expect(JSON.parse(String(damaged[7])).map((p: { code: string }) => p.code)).toEqual(["malformed-json", "truncated-line"]);
    const fork = files.find((r) => String(r[0]).endsWith("/a-fork.jsonl")) as unknown[];
    expect(fork[8]).toBe(join(dir, "--home-dev-proj-a--", "a-parent.jsonl"));
    // a-parent grows: it is read from its last line end on, its fork a-fork read whole again (a-fork2's parent is
    // a-fork, which did not change).
    const parent = join(dir, "--home-dev-proj-a--", "a-parent.jsonl");
    const line = entryLine("zz", 2, null);
    appendTo(parent, line);
    const grown = await index(dir, db);
    expect(grown.data).toMatchObject({ unchanged: 6, appended: 1, changed: 1, added: 0, removed: 0 });
    // Bytes read: the appended line, and the fork read whole.
    expect(grown.data.bytesRead).toBe(Buffer.byteLength(line) + statSync(join(dir, "--home-dev-proj-a--", "a-fork.jsonl")).size);
    expect(await dumpIndex(db)).toEqual(await rebuilt(dir));
  });

  it("a last line held back (modified seconds ago) is looked at again by the next run; once read, the file is unchanged", async () => {
    const { dir, root } = fleetCopy();
    const db = join(root, "cache", "index.duckdb");
    const live = join(dir, "--home-dev-proj-a--", "a-live.jsonl");
    // A session being written: its last line not finished, modified now (the snapshot rule holds such a line back).
    writeFileSync(live, `${headerLine("live-1", "/home/dev/proj-a")}${entryLine("l", 1, null)}{"type":"message","id":"l-2"`);
    expect((await index(dir, db)).data).toMatchObject({ files: 9, added: 9 });
    const held = await index(dir, db);
    expect(held.data).toMatchObject({ unchanged: 8, added: 0, removed: 0 });
    expect(held.data.changed + held.data.appended).toBe(1);
    // A minute later, still unfinished: read as it is (a damaged last line), then told by its stat like the others.
    age(live);
    const read = await index(dir, db);
    expect(read.data.changed + read.data.appended).toBe(1);
    expect((await index(dir, db)).data).toMatchObject({ unchanged: 9, changed: 0, appended: 0, bytesRead: 0 });
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

describe("pisess index --json", () => {
  /** jq 1.6 takes the document as it is. */
  function jqAccepts(text: string): void {
    const jq = spawnSync("/usr/bin/jq", ["."], { input: text, encoding: "utf8" });
    expect([jq.status, jq.stderr]).toEqual([0, ""]);
    expect(JSON.parse(jq.stdout)).toEqual(JSON.parse(text));
  }

  it("a first build, an update after a line appended to a parent, an unreadable target: the counts, in a fixed key order", () => {
    // fixtures/fleet's project a: a-parent (8 entries: 6 messages, 1 tool call, 5 records of spend: 3 assistant
    // turns, a compaction and a usage entry; 2646 bytes), its fork a-fork (6 entries and messages, 1 tool call, 3
    // assistant turns; 2069 bytes) and a-fork's fork a-fork2 (7 entries and messages, 1 tool call, 4 turns; 2479
    // bytes); one leaf each. Copied: the fixture is never written to.
    const root = tmp();
    const dir = join(root, "sessions");
    cpSync(fixture("fleet", "sessions", "--home-dev-proj-a--"), dir, { recursive: true });
    const db = join(root, "cache", "index.duckdb");
    const run = (...extra: string[]) => spawnCli(["index", dir, ...extra, "--db", db, "--json"], { env });
    const doc = (o: object) => `${JSON.stringify(o, null, 2)}\n`;
    const zero = { sessions: 0, entries: 0, messages: 0, tool_calls: 0, usage: 0, leaves: 0 };

    const first = run();
    expect([first.code, first.stderr]).toEqual([0, ""]);
    expect(first.stdout).toBe(
      doc({
        db,
        files: 3,
        unchanged: 0,
        added: 3,
        changed: 0,
        appended: 0,
        removed: 0,
        bytesRead: 2646 + 2069 + 2479,
        rows: { sessions: 3, entries: 21, messages: 19, tool_calls: 3, usage: 12, leaves: 3 },
        failures: [],
      }),
    );
    jqAccepts(first.stdout);

    // A user prompt appended to a-parent: read from its last line end on (its sessions row, its one leaf and the new
    // entry and message written); a-fork, whose parent changed, read whole again; a-fork2 (a-fork's fork) unchanged.
    const line =
      '{"type":"message","id":"a9","parentId":"a8","timestamp":"2026-01-06T11:00:00.000Z","message":{"role":"user","content":"one more thing","timestamp":1767697200000}}\n';
    appendFileSync(join(dir, "a-parent.jsonl"), line);
    const update = run();
    expect([update.code, update.stderr]).toEqual([0, ""]);
    expect(update.stdout).toBe(
      doc({
        db,
        files: 3,
        unchanged: 1,
        added: 0,
        changed: 1,
        appended: 1,
        removed: 0,
        bytesRead: 163 + 2069,
        rows: { sessions: 2, entries: 7, messages: 7, tool_calls: 1, usage: 3, leaves: 2 },
        failures: [],
      }),
    );
    expect(Buffer.byteLength(line)).toBe(163);
    jqAccepts(update.stdout);

    // Nothing changed, and a target that does not exist: listed (as given) in failures and on stderr, exit 2.
    const missing = join(root, "nope");
    const again = run(missing);
    expect([again.code, again.stderr]).toEqual([2, `pisess: ${missing}: no such file\n`]);
    expect(again.stdout).toBe(
      doc({
        db,
        files: 3,
        unchanged: 3,
        added: 0,
        changed: 0,
        appended: 0,
        removed: 0,
        bytesRead: 0,
        rows: zero,
        failures: [{ path: missing, reason: "no such file" }],
      }),
    );
    jqAccepts(again.stdout);
  }, 60_000);

  it("no targets: the sessions dir searched is root, and missingRoot when it does not exist", () => {
    const root = tmp();
    const sessions = join(root, "no-sessions");
    const db = join(root, "index.duckdb");
    const r = spawnCli(["index", "--db", db, "--json"], { env: { ...env, PI_CODING_AGENT_SESSION_DIR: sessions } });
    expect([r.code, r.stderr]).toEqual([0, `pisess: no sessions folder ${sessions}\n`]);
    expect(Object.keys(JSON.parse(r.stdout))).toEqual([
      "db",
      "root",
      "missingRoot",
      "files",
      "unchanged",
      "added",
      "changed",
      "appended",
      "removed",
      "bytesRead",
      "rows",
      "failures",
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ db, root: sessions, missingRoot: sessions, files: 0, bytesRead: 0, failures: [] });
    jqAccepts(r.stdout);
  });
});

/** Spawns `pisess index` paused inside its transaction (the test hook); resolves once it says so. */
function pausedIndex(
  dir: string,
  db: string,
  pauseMs = 60_000,
): Promise<{ kill: () => Promise<number | null>; done: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "index", dir, "--db", db], {
      env: { ...process.env, ...env, PISESS_TEST_INDEX_PAUSE_MS: String(pauseMs) },
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

  it("a run that waited for another's update lists the folders again: a session made meanwhile is in its answer", async () => {
    const { dir, root } = fleetCopy();
    const db = join(root, "index.duckdb");
    const before = await index(dir, join(tmp(), "count.duckdb"));
    const run = await pausedIndex(dir, db, 3000);
    // Listed while it opened the index, then waiting for the first run's lock.
    const second = runCli(["index", dir, "--db", db, "--wait", "60", "--json"], { env });
    await new Promise((r) => setTimeout(r, 1000));
    writeSession(join(dir, "--home-dev-proj-a--", "late.jsonl"), headerLine("late", "/home/dev/proj-a") + entryLine("late", 1, null));
    const r = await second;
    expect(await run.done).toBe(0);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ files: before.data.files + 1, added: 1 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(dir));
  }, 60_000);
});

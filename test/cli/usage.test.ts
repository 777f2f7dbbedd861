import { cpSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { Writable } from "node:stream";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { isoWeek } from "../../src/ops/fleet-time.js";
import { fleetProgress } from "../../src/render/usage-progress.js";
import { usageReport, type UsageOptions } from "../../src/reports/usage.js";
import { fingerprint, fixture, jsonObjects, runCli, sessionFiles, spawnCli } from "../support/helpers.js";

/**
 * `pisess usage` against an oracle written here with plain JSON.parse: what counts as spend (assistant messages,
 * tool results with usage, compactions, branch summaries and usage entries with usage), which entries a fork
 * copied (same id and timestamp as in the parent its header names), and calendar days by fixed zone offsets.
 */

type Json = Record<string, any>;
const SESSIONS = fixture("fleet", "sessions");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };

const files = sessionFiles;
const lines = (path: string): Json[] => jsonObjects<Json>(path);

interface Spend {
  file: string;
  cwd: string;
  ms: number;
  model: string | null;
  assistant: boolean;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  copied: boolean;
}

function spends(path: string): Spend[] {
  const all = lines(path);
  const h = all[0] as Json;
  const ref = h.parentSession || h.branchedFrom;
  const parentKeys = new Set<string>();
  if (ref) {
    try {
      for (const e of lines(resolve(dirname(path), ref))) parentKeys.add(`${e.id}|${e.timestamp}`);
    } catch {
      // parent not on disk
    }
  }
  const out: Spend[] = [];
  for (const e of all.slice(1)) {
    const m = e.message;
    const assistant = e.type === "message" && m?.role === "assistant";
    const u = e.type === "message" ? m?.usage : ["compaction", "branch_summary", "usage"].includes(e.type) ? e.usage : undefined;
    if (!assistant && !u) continue;
    out.push({
      file: path,
      cwd: h.cwd,
      ms: Date.parse(e.timestamp),
      model: assistant ? `${m.provider}/${m.model}` : null,
      assistant,
      input: u?.input ?? 0,
      output: u?.output ?? 0,
      cacheRead: u?.cacheRead ?? 0,
      cacheWrite: u?.cacheWrite ?? 0,
      cost: u?.cost?.total ?? 0,
      copied: parentKeys.has(`${e.id}|${e.timestamp}`),
    });
  }
  return out;
}

function sum(xs: Spend[]) {
  const s = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cost: 0,
    summaryCost: 0,
    turns: 0,
    sessions: new Set(xs.map((x) => x.file)).size,
  };
  for (const x of xs) {
    s.input += x.input;
    s.output += x.output;
    s.cacheRead += x.cacheRead;
    s.cacheWrite += x.cacheWrite;
    s.cost += x.cost;
    if (!x.assistant) s.summaryCost += x.cost;
    if (x.assistant) s.turns++;
  }
  return s;
}

const ALL = files(SESSIONS).flatMap(spends);
const COUNTED = ALL.filter((x) => !x.copied);

function dayAt(ms: number, offsetHours: number): string {
  return new Date(ms + offsetHours * 3_600_000).toISOString().slice(0, 10);
}

async function run(o: Partial<UsageOptions>) {
  return (await usageReport({ targets: [SESSIONS], env, cwd: "/", timezone: "UTC", ...o })).data;
}

function pick(r: {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  summaryCost: number;
  turns: number;
  sessions: number;
}) {
  return {
    input: r.input,
    output: r.output,
    cacheRead: r.cacheRead,
    cacheWrite: r.cacheWrite,
    cost: r.cost,
    summaryCost: r.summaryCost,
    turns: r.turns,
    sessions: r.sessions,
  };
}

describe("usage: each model call counted once", () => {
  it("the oracle sees copies in forks, forks of forks, legacy branchedFrom in nested folders and a parent outside the inputs", () => {
    const copiedFiles = new Set(ALL.filter((x) => x.copied).map((x) => x.file.slice(SESSIONS.length)));
    expect([...copiedFiles].sort()).toEqual([
      "/--home-dev-proj-a--/a-fork.jsonl",
      "/--home-dev-proj-a--/a-fork2.jsonl",
      "/--home-dev-proj-b--/bbbb-1/subagents/sub-fork.jsonl",
      "/--home-dev-proj-c--/c-fork.jsonl",
    ]);
  });

  it("totals equal the independent sums; --include-copied equals naive counting", async () => {
    const once = await run({});
    const want = sum(COUNTED);
    expect(pick(once.totals)).toEqual({ ...want, cost: expect.closeTo(want.cost, 9), summaryCost: expect.closeTo(want.summaryCost, 9) });
    expect(once.totals.totalTokens).toBe(want.input + want.output + want.cacheRead + want.cacheWrite);
    const naive = await run({ includeCopied: true });
    const all = sum(ALL);
    expect(naive.totals.cost).toBeCloseTo(all.cost, 9);
    expect(naive.totals.turns).toBe(all.turns);
    expect(naive.totals.turns).toBeGreaterThan(once.totals.turns);
  });

  it("by project and by session: each row equals the oracle's", async () => {
    const d = await run({ by: ["project", "session"] });
    const keys = new Set(COUNTED.map((x) => `${x.cwd}|${x.file}`));
    expect(d.rows.map((r) => `${r.keys.project}|${r.keys.session}`).sort()).toEqual([...keys].sort());
    for (const r of d.rows) {
      const want = sum(COUNTED.filter((x) => x.cwd === r.keys.project && x.file === r.keys.session));
      expect(r.cost).toBeCloseTo(want.cost, 9);
      expect(r.turns).toBe(want.turns);
      expect(r.input).toBe(want.input);
    }
  });

  it("by model: assistant turns under their own model", async () => {
    const d = await run({ by: ["model"] });
    for (const model of ["anthropic/claude-opus-4-6", "anthropic/claude-sonnet-4-5"]) {
      const row = d.rows.find((r) => r.keys.model === model);
      expect(row?.turns).toBe(COUNTED.filter((x) => x.model === model).length);
    }
  });
});

describe("usage: days in several time zones", () => {
  // January: New York is UTC−5, Tokyo UTC+9 (no DST in either at that time of year).
  for (const [tz, off] of [
    ["UTC", 0],
    ["Asia/Tokyo", 9],
    ["America/New_York", -5],
  ] as const) {
    it(`${tz}: per-day rows equal the oracle (a session crosses midnight)`, async () => {
      const d = await run({ by: ["day"], timezone: tz });
      const days = [...new Set(COUNTED.map((x) => dayAt(x.ms, off)))].sort();
      expect(d.rows.map((r) => r.keys.day)).toEqual(days);
      for (const r of d.rows) {
        const want = sum(COUNTED.filter((x) => dayAt(x.ms, off) === r.keys.day));
        expect(r.cost).toBeCloseTo(want.cost, 9);
        expect(r.turns).toBe(want.turns);
      }
    });
  }

  it("the parent's turns around midnight fall on different days in UTC but one day in New York", async () => {
    const file = join(SESSIONS, "--home-dev-proj-a--", "a-parent.jsonl");
    const utc = await usageReport({ targets: [file], env, cwd: "/", timezone: "UTC", by: ["day"] });
    const ny = await usageReport({ targets: [file], env, cwd: "/", timezone: "America/New_York", by: ["day"] });
    expect(utc.data.rows.map((r) => r.keys.day)).toEqual(["2026-01-05", "2026-01-06"]);
    expect(ny.data.rows.map((r) => r.keys.day)).toEqual(["2026-01-05", "2026-01-06"]);
    // 23:10Z is 18:10 in New York, 00:20Z is 19:20 the same day there; 10:00Z the next day is 05:00 on the 6th.
    expect(ny.data.rows[0]?.turns).toBe(2);
    expect(utc.data.rows[0]?.turns).toBe(1);
  });

  it("--since and --until keep whole days in the zone", async () => {
    const d = await run({ since: "2026-01-06", until: "2026-01-10" });
    const want = sum(COUNTED.filter((x) => dayAt(x.ms, 0) >= "2026-01-06" && dayAt(x.ms, 0) <= "2026-01-10"));
    expect(d.totals.cost).toBeCloseTo(want.cost, 9);
    expect(d.totals.turns).toBe(want.turns);
  });

  it("ISO weeks start on Monday and belong to the year of their Thursday", () => {
    expect(isoWeek(2026, 1, 1)).toBe("2026-W01"); // a Thursday
    expect(isoWeek(2025, 12, 29)).toBe("2026-W01"); // Monday of that week
    expect(isoWeek(2025, 12, 28)).toBe("2025-W52"); // the Sunday before
    expect(isoWeek(2027, 1, 1)).toBe("2026-W53"); // a Friday in a 53-week year
    expect(isoWeek(2026, 1, 5)).toBe("2026-W02");
  });
});

describe("usage: leaves, damage, parents on disk", () => {
  it("by leaf: the shared part goes to the first branch, a later branch owns what it added", async () => {
    const file = join(SESSIONS, "--home-dev-proj-b--", "b-branchy.jsonl");
    const d = (await usageReport({ targets: [file], env, cwd: "/", by: ["leaf"] })).data;
    // Leaf b4 (line 5) owns b2 and b4 ($0.01 + $0.02); leaf b8 (line 9) owns b6 and b7 ($0.04 + $0.08).
    expect(d.rows.map((r) => [r.keys.leaf, r.cost, r.turns])).toEqual([
      [`${file}@5`, 0.03, 2],
      [`${file}@9`, 0.12, 1],
    ]);
  });

  it("a damaged file counts every readable line and notes each code once", async () => {
    const file = join(SESSIONS, "--home-dev-proj-b--", "b-damaged.jsonl");
    const d = (await usageReport({ targets: [file], env, cwd: "/" })).data;
    expect(d.totals.cost).toBeCloseTo(sum(spends(file)).cost, 9);
    expect(d.totals.turns).toBe(2);
    expect(d.damage.map((n) => [n.code, n.count])).toEqual([
      ["malformed-json", 1],
      ["truncated-line", 1],
    ]);
  });

  it("a parent among the inputs counts its calls once; the fork only its own", async () => {
    const d = (await usageReport({ targets: [SESSIONS, fixture("fleet", "outside")], env, cwd: "/", by: ["session"] })).data;
    const parent = d.rows.find((r) => r.keys.session?.endsWith("o-parent.jsonl"));
    const fork = d.rows.find((r) => r.keys.session?.endsWith("c-fork.jsonl"));
    expect([parent?.cost, fork?.cost]).toEqual([2, 0.06]);
  });
});

describe("usage CLI", () => {
  it("--json has by, rows with the group keys and totals; --ndjson one row per line; files unchanged", async () => {
    const before = files(SESSIONS).map(fingerprint);
    const r = spawnCli(["usage", SESSIONS, "--by", "day,model", "--timezone", "UTC", "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.by).toEqual(["day", "model"]);
    expect(Object.keys(doc.rows[0])).toEqual([
      "day",
      "model",
      "input",
      "output",
      "cacheRead",
      "cacheWrite",
      "cacheWrite1h",
      "totalTokens",
      "cost",
      "summaryCost",
      "sessions",
      "turns",
    ]);
    expect(doc.totals.cost).toBeCloseTo(sum(COUNTED).cost, 9);
    // One note per damaged file and code.
    expect(r.stderr.trim().split("\n")).toHaveLength(2);
    const nd = await runCli(["usage", SESSIONS, "--by", "day", "--by", "model", "--timezone", "UTC", "--ndjson"]);
    expect(
      nd.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(doc.rows);
    expect(files(SESSIONS).map(fingerprint)).toEqual(before);
  });

  it("rejects an unknown --by key and an unknown zone (exit 2)", async () => {
    expect((await runCli(["usage", SESSIONS, "--by", "year"])).code).toBe(2);
    const r = await runCli(["usage", SESSIONS, "--timezone", "Mars/Olympus"]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("unknown time zone")]);
  });

  it("the text table ends with the totals", async () => {
    const r = await runCli(["usage", SESSIONS, "--by", "project", "--breakdown"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^total\s/m);
    expect(r.stdout).toContain("/home/dev/proj-c");
  });
});

describe("usage on worker threads", () => {
  it("eight copies of the fleet on two threads: eight times the oracle's totals, the same output as one thread", async () => {
    const root = mkdtempSync(join(tmpdir(), "pisess-usage-threads-"));
    try {
      // The whole fixture folder each time, so that the fork whose parent lies outside sessions/ finds it.
      const targets = Array.from({ length: 8 }, (_, i) => {
        cpSync(fixture("fleet"), join(root, String(i)), { recursive: true });
        // Copies are new files: within the live window (io/scan/lines.ts) the damaged file's unterminated last line
        // would be held back instead of reported, so they get an old mtime, as the fixtures have.
        for (const f of files(join(root, String(i)))) utimesSync(f, new Date("2026-01-01"), new Date("2026-01-01"));
        return join(root, String(i), "sessions");
      });
      const o = { targets, by: ["day", "model"] as const, env, cwd: "/", timezone: "UTC", breakdown: true };
      // The compiled report: its worker module (dist/reports/usage-worker.js) exists only there.
      const dist = (await import("../../dist/reports/usage.js")) as typeof import("../../src/reports/usage.js");
      const two = (await dist.usageReport({ ...o, by: [...o.by], threads: 2 })).data;
      const one = (await usageReport({ ...o, by: [...o.by], threads: 1 })).data;
      expect(JSON.stringify(two)).toBe(JSON.stringify(one));
      const want = sum(COUNTED);
      expect(pick(two.totals)).toEqual({
        ...want,
        input: 8 * want.input,
        output: 8 * want.output,
        cacheRead: 8 * want.cacheRead,
        cacheWrite: 8 * want.cacheWrite,
        turns: 8 * want.turns,
        sessions: 8 * want.sessions,
        cost: expect.closeTo(8 * want.cost, 9),
        summaryCost: expect.closeTo(8 * want.summaryCost, 9),
      });
      // Damage notes come in file order, as one thread gives them.
      expect(two.damage.map((d) => d.file)).toEqual([...two.damage.map((d) => d.file)].sort());
      expect(two.damage).toHaveLength(16);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("usage progress", () => {
  it("no bar off a TTY; on a TTY a bar once the run passes half a second, gone at the end", () => {
    const chunks: string[] = [];
    const stream = (tty: boolean) =>
      Object.assign(
        new Writable({
          write(c, _e, cb) {
            chunks.push(String(c));
            cb();
          },
        }),
        { isTTY: tty, columns: 100 },
      ) as unknown as NodeJS.WriteStream;
    expect(fleetProgress("pisess usage", stream(false))).toBeUndefined();
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000);
    try {
      const p = fleetProgress("pisess usage", stream(true));
      expect(p).toBeDefined();
      p?.update(0, 10);
      expect(chunks.join("")).toBe("");
      now.mockReturnValue(1_600);
      p?.update(3, 10);
      expect(chunks.join("")).toContain("pisess usage");
      expect(chunks.join("")).toContain("3/10 sessions");
      p?.stop();
    } finally {
      now.mockRestore();
    }
  });
});

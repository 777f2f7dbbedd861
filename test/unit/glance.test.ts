import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGolden } from "../support/golden.js";
import {
  AMOUNT_KEYS,
  fingerprint,
  fixture,
  piBogusLines,
  runCli,
  type CliResult,
  type FileFingerprint,
  expectedOf,
} from "../support/helpers.js";
import type { GrepOptions } from "../../src/reports/grep.js";
import type { LsOptions } from "../../src/reports/ls.js";
import { cliOut, grepNdjsonOut, infoOut, labelsOut, leavesNdjsonOut, lineageOut, lsOut, type Out, showJsonOut } from "../support/inproc.js";
import { expectEqual } from "../support/expect-fast.js";

/**
 * The "at a glance" commands (ls, info, leaves, show, labels, lineage, grep) against a fake agent dir built in a
 * temp folder from fixtures/glance. Token and cost sums are checked against an oracle computed here with plain
 * JSON.parse, independent of pisess's loader.
 */

type Json = Record<string, any>;
interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

let tmp: string;
let agent: string;
let sessions: string;
let appCwd: string;
let libCwd: string;
let appDir: string;
let libDir: string;
const files: Record<string, string> = {};
let before: FileFingerprint[] = [];

function folderName(cwd: string): string {
  // pi's encoding, written out independently of src/io/discover.ts.
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

function place(name: string, dir: string, as: string = name, mtime?: string): string {
  const text = readFileSync(fixture("glance", name), "utf8")
    .replaceAll("{{APP}}", appCwd)
    .replaceAll("{{LIB}}", libCwd)
    .replaceAll("{{SESSIONS}}", sessions)
    .replaceAll("{{APPFOLDER}}", folderName(appCwd));
  const path = join(dir, as);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  if (mtime) utimesSync(path, new Date(mtime), new Date(mtime));
  return path;
}

function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out.sort();
}

const env = (): Record<string, string | undefined> => ({ PI_CODING_AGENT_DIR: agent, PI_CODING_AGENT_SESSION_DIR: undefined, HOME: tmp });

function cli(args: string[], opts: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  return runCli(args, { cwd: opts.cwd ?? appCwd, env: { ...env(), ...opts.env } });
}

/**
 * The CLI in process (test/inproc.ts cliOut), for command lines that name their files: nothing there depends on
 * the environment or the working directory, which `cli` gives the run (helpers.ts runCli).
 */
const named = (args: string[]) => cliOut(args);

const grep = (o: Omit<GrepOptions, "env" | "cwd">) => grepNdjsonOut({ env: piEnv(), cwd: appCwd, ...o });

/** The pi environment the CLI runs with here, for the reports called in-process. */
const piEnv = () => ({ PI_CODING_AGENT_DIR: agent, HOME: tmp });

function json(r: CliResult | Out): Json {
  if ("stderr" in r) expect(r.stderr === "" || r.code !== 2, r.stderr).toBe(true);
  else expect(r.code).not.toBe(2);
  return JSON.parse(r.stdout) as Json;
}

function ndjson(r: CliResult | Out): Json[] {
  return r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Json);
}

/** Golden text is stable across machines: the temp folder becomes <TMP>. */
function norm(s: string): string {
  return s.replaceAll(tmp, "<TMP>").replaceAll(tmp.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-"), "<TMP>");
}

// ---------- the oracle: plain JSON.parse, nothing from src/ ----------

function parseFile(path: string): { header: Json | null; entries: Json[] } {
  const lines = readFileSync(path, "utf8").split("\n");
  let header: Json | null = null;
  const entries: Json[] = [];
  lines.forEach((l, i) => {
    let o: any;
    try {
      o = JSON.parse(l);
    } catch {
      return;
    }
    if (o.type === "session") header = o;
    else {
      if (header && header.version === undefined) {
        o.id = `L${i + 1}`;
        o.parentId = entries.length ? entries[entries.length - 1]!.id : null;
      }
      entries.push(o);
    }
  });
  return { header, entries };
}

function zero(): Totals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
}

function add(t: Totals, e: Json): void {
  if (e.type !== "message" || e.message?.role !== "assistant" || !e.message.usage) return;
  const u = e.message.usage;
  t.input += u.input;
  t.output += u.output;
  t.cacheRead += u.cacheRead;
  t.cacheWrite += u.cacheWrite;
  t.cost += u.cost.total;
}

const key = (e: Json) => `${e.id}|${e.timestamp}`;

function copiedKeys(parentPath: string): Set<string> {
  return new Set(parseFile(parentPath).entries.map(key));
}

function fileTotals(entries: Json[], exclude = new Set<string>()): Totals {
  const t = zero();
  for (const e of entries) if (!exclude.has(key(e))) add(t, e);
  return t;
}

function pathOf(entries: Json[], leafId: string): Json[] {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const out: Json[] = [];
  for (let e = byId.get(leafId); e; e = e.parentId ? byId.get(e.parentId) : undefined) out.unshift(e);
  return out;
}

function leafTotals(entries: Json[], leafId: string, exclude = new Set<string>()): { totals: Totals; own: Totals } {
  const path = pathOf(entries, leafId);
  const kids = new Map<string, number>();
  for (const e of entries) if (e.parentId) kids.set(e.parentId, (kids.get(e.parentId) ?? 0) + 1);
  let fork = -1;
  for (let i = 0; i < path.length - 1; i++) if ((kids.get(path[i]!.id) ?? 0) > 1) fork = i;
  const totals = zero();
  const own = zero();
  path.forEach((e, i) => {
    if (exclude.has(key(e))) return;
    add(totals, e);
    if (i > fork) add(own, e);
  });
  return { totals, own };
}

function expectTotals(actual: Totals, expected: Totals): void {
  expect(actual.input).toBe(expected.input);
  expect(actual.output).toBe(expected.output);
  expect(actual.cacheRead).toBe(expected.cacheRead);
  expect(actual.cacheWrite).toBe(expected.cacheWrite);
  expect(actual.cost).toBeCloseTo(expected.cost, 9);
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "pisess-glance-"));
  agent = join(tmp, "agent");
  sessions = join(agent, "sessions");
  appCwd = join(tmp, "work", "app");
  libCwd = join(tmp, "work", "lib");
  mkdirSync(appCwd, { recursive: true });
  mkdirSync(libCwd, { recursive: true });
  mkdirSync(join(tmp, "work", "empty"), { recursive: true });
  appDir = join(sessions, folderName(appCwd));
  libDir = join(sessions, folderName(libCwd));
  files.main = place("main.jsonl", appDir, "main.jsonl", "2025-03-01T10:20:00Z");
  files.fork = place("fork.jsonl", appDir, "fork.jsonl", "2025-03-01T11:05:00Z");
  files.broken = place("broken.jsonl", appDir, "broken.jsonl", "2025-03-01T12:00:00Z");
  files.nohdr = place("nohdr.jsonl", appDir, "nohdr.jsonl", "2025-03-01T12:30:00Z");
  files.v1 = place("old-v1.jsonl", libDir, "old-v1.jsonl", "2025-02-01T09:10:00Z");
  files.fork2 = place("fork2.jsonl", libDir, "fork2.jsonl", "2025-03-02T09:05:00Z");
  files.sub = place("subagent.jsonl", libDir, join("sub", "run-1", "session.jsonl"), "2025-03-02T10:05:00Z");
  before = allFiles(tmp).map(fingerprint);
});

afterAll(() => {
  // Every command is read-only: bytes and mtimes unchanged, no file added or removed.
  const after = allFiles(tmp).map(fingerprint);
  expectEqual(after, before);
  rmSync(tmp, { recursive: true, force: true });
});

describe("ls", () => {
  it("lists the cwd's sessions, newest first, skipping a file without header", async () => {
    const r = await cli(["ls", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/skipped 1 file without a session header/);
    const s = (JSON.parse(r.stdout) as Json).sessions as Json[];
    expectEqual(
      s.map((x) => x.path),
      [files.broken, files.fork, files.main],
    );
    const main = s[2]!;
    expectEqual(Object.keys(main), [
      "path",
      "id",
      "cwd",
      "name",
      "firstMessage",
      "created",
      "modified",
      "entries",
      "leaves",
      "bytes",
      "version",
      "problems",
      "totals",
      "byKind",
    ]);
    expect(main).toMatchObject({
      id: "0195a000-0000-7000-8000-000000000001",
      cwd: appCwd,
      name: "json flag work",
      firstMessage: "Add a --json flag to the export command",
      created: "2025-03-01T10:00:00.000Z",
      modified: "2025-03-01T10:20:00.000Z",
      entries: 16,
      leaves: 2,
      bytes: statSync(files.main!).size,
      version: 3,
      problems: 0,
    });
    expect(s[1]).toMatchObject({ parentSession: files.main, entries: 14, leaves: 1 });
    expect(s[0]!.problems).toBe(2);
  });

  it("prints a table (golden) and ndjson", async () => {
    const r = await cli(["ls"]);
    expect(r.code, r.stderr).toBe(0);
    expectGolden("glance-ls-app.txt", norm(r.stdout));
    const rows = ndjson(await lsOut({ limit: 1, env: piEnv(), cwd: appCwd }, { ndjson: true }));
    expectEqual(
      rows.map((x) => x.path),
      [files.broken],
    );
  });

  it("--all-projects recurses into nested folders; --sort and --limit (in process)", async () => {
    const ls = (o: Partial<LsOptions>) => lsOut({ allProjects: true, env: piEnv(), cwd: appCwd, ...o });
    const all = json(await ls({})).sessions as Json[];
    expectEqual(all.map((x) => x.path).sort(), [files.broken, files.fork, files.fork2, files.main, files.sub, files.v1].sort());
    const v1 = all.find((x) => x.path === files.v1)!;
    expect(v1).toMatchObject({ version: 1, entries: 4, leaves: 1, parentSession: join(sessions, "gone", "missing.jsonl") });
    const bySize = json(await ls({ sort: "size", limit: 2 })).sessions as Json[];
    const sizes = [files.main, files.fork, files.broken, files.fork2, files.sub, files.v1]
      .map((f) => ({ f, s: statSync(f!).size }))
      .sort((a, b) => b.s - a.s);
    expectEqual(
      bySize.map((x) => x.path),
      sizes.slice(0, 2).map((x) => x.f),
    );
    const byName = json(await ls({ sort: "name" })).sessions as Json[];
    const names = byName.map((x) => (x.name ?? x.firstMessage).toLowerCase());
    expectEqual(names, [...names].sort());
    const byCreated = json(await ls({ sort: "created" })).sessions as Json[];
    expect(byCreated[0]!.path).toBe(files.sub);
    expect(byCreated[byCreated.length - 1]!.path).toBe(files.v1);
  });

  it("honours PI_CODING_AGENT_SESSION_DIR and explicit folders; an empty project lists nothing", async () => {
    const r = await cli(["ls", "--json"], {
      cwd: libCwd,
      env: { PI_CODING_AGENT_DIR: join(tmp, "nowhere"), PI_CODING_AGENT_SESSION_DIR: sessions },
    });
    expectEqual((json(r).sessions as Json[]).map((x) => x.path).sort(), [files.fork2, files.sub, files.v1].sort());
    const d = json(await cli(["ls", libDir, "--json"], { cwd: tmp }));
    expect(d.sessions).toHaveLength(3);
    const e = await cli(["ls", "--json"], { cwd: join(tmp, "work", "empty") });
    expect(e.code, e.stderr).toBe(0);
    expectEqual(JSON.parse(e.stdout), { sessions: [] });
    expect(e.stderr).toMatch(/no sessions folder/);
    expect((await cli(["ls", join(tmp, "missing-dir")])).code).toBe(2);
  });
});

describe("info", () => {
  it("main: totals, per model and per leaf match the oracle; shared prefix counted once", async () => {
    const r = await named(["info", files.main!, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout) as Json;
    const { entries } = parseFile(files.main!);
    expectTotals(info.totals, fileTotals(entries));
    // A shared prefix counted once: the file total is less than the sum over both leaves' paths.
    const leafIds = ["l2000000", "s1000000"];
    const sumLeaves = leafIds.map((id) => leafTotals(entries, id).totals.input).reduce((a, b) => a + b, 0);
    expect(info.totals.input).toBeLessThan(sumLeaves);
    expectEqual(
      info.leaves.map((l: Json) => l.id),
      leafIds,
    );
    for (const l of info.leaves as Json[]) {
      const o = leafTotals(entries, l.id);
      expectTotals(l.totals, o.totals);
      expectTotals(l.ownTotals, o.own);
      expect(Object.keys(l)).toEqual(expect.arrayContaining(["id", "line", "totals", "ownTotals"]));
    }
    const byModel = new Map<string, Totals & { n: number }>();
    for (const e of entries) {
      if (e.message?.role !== "assistant") continue;
      const k = `${e.message.provider}/${e.message.model}`;
      const t = byModel.get(k) ?? { ...zero(), n: 0 };
      add(t, e);
      t.n++;
      byModel.set(k, t);
    }
    expect(info.models).toHaveLength(byModel.size);
    for (const m of info.models as Json[]) {
      const o = byModel.get(`${m.provider}/${m.model}`)!;
      expectTotals(m as unknown as Totals, o);
      expect(m.assistantMessages).toBe(o.n);
      expectEqual(Object.keys(m), ["provider", "model", "assistantMessages", ...AMOUNT_KEYS, "byKind"]);
    }
    expectEqual(Object.keys(info.totals), AMOUNT_KEYS);
    expect(info.header).toMatchObject({ version: 3, cwd: appCwd, parentSession: null, parentExists: null });
    expectEqual(info.branchPoints, [{ id: "l1000000", line: 7, children: 2 }]);
    expectEqual(info.compactions, [{ id: "c1000000", line: 13, tokensBefore: 12345, timestamp: "2025-03-01T10:12:00.000Z" }]);
    expectEqual(info.labels, [
      { targetId: "u1000000", targetLine: 3, label: "start" },
      { targetId: "a3000000", targetLine: 9, label: "ndjson-try" },
    ]);
    expectEqual(info.byRole, { assistant: 5, toolResult: 2, user: 4 });
    expect(info.maxDepth).toBe(12);
    expect(info.copied).toBeNull();
    expectEqual(info.duration, { start: "2025-03-01T10:01:00.000Z", end: "2025-03-01T10:16:00.000Z", ms: 15 * 60 * 1000 });
    expectGolden("glance-info-main.txt", norm((await cli(["info", files.main!])).stdout));
  });

  it("fork: entries copied from the parent are reported and left out, unless --include-copied", async () => {
    const info = json(await infoOut(files.fork!, { json: true }));
    const { entries } = parseFile(files.fork!);
    const copied = copiedKeys(files.main!);
    expect(info.header).toMatchObject({ parentSession: files.main, parentExists: true, legacyBranchedFrom: false });
    expect(info.copied).toMatchObject({ parent: files.main, entries: 12, firstLine: 2, lastLine: 13, included: false });
    expectTotals(info.totals, fileTotals(entries, copied));
    expectTotals(info.copied.totals, fileTotals(entries.filter((e) => copied.has(key(e)))));
    expect(info.totals.input).toBe(400);
    const leaf = (info.leaves as Json[])[0]!;
    expectTotals(leaf.totals, leafTotals(entries, "a6000000", copied).totals);
    const inc = json(await infoOut(files.fork!, { json: true, includeCopied: true }));
    expectTotals(inc.totals, fileTotals(entries));
    expectTotals((inc.leaves as Json[])[0]!.totals, leafTotals(entries, "a6000000").totals);
    expect(inc.copied.included).toBe(true);
    expectGolden("glance-info-fork.txt", norm((await infoOut(files.fork!)).stdout));
  });

  it("v1 file with a legacy branchedFrom to a missing file; broken file", async () => {
    const info = json(await infoOut(files.v1!, { json: true }));
    expect(info.header).toMatchObject({ version: 1, legacyBranchedFrom: true, parentExists: false });
    expect(info.copied).toBeNull();
    expectTotals(info.totals, fileTotals(parseFile(files.v1!).entries));
    expectEqual(
      info.leaves.map((l: Json) => l.id),
      ["L5"],
    );
    expectEqual(
      info.modelsUsed.map((m: Json) => m.model),
      ["claude-sonnet-4-5", "claude-opus-4-5"],
    );
    const text = await infoOut(files.v1!);
    expect(text.stdout).toMatch(/fork of\s+.*missing\.jsonl \(missing, legacy branchedFrom\)/);

    const b = await named(["info", files.broken!, "--json"]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toMatch(/2 problems/);
    const bi = JSON.parse(b.stdout) as Json;
    expect(bi.entries).toBe(3);
    expectTotals(bi.totals, fileTotals(parseFile(files.broken!).entries));
  });

  it("fails cleanly on a missing file", async () => {
    const r = await named(["info", join(tmp, "nope.jsonl")]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/no such file/);
  });
});

describe("leaves", () => {
  it("text (golden), json and ndjson", async () => {
    const r = await named(["leaves", files.main!]);
    expect(r.code, r.stderr).toBe(0);
    expectGolden("glance-leaves-main.txt", r.stdout);
    const rows = ndjson(await leavesNdjsonOut(files.main!));
    const { entries } = parseFile(files.main!);
    expectEqual(
      rows.map((x) => [x.id, x.line, x.depth, x.isDefault]),
      [
        ["l2000000", 10, 8, false],
        ["s1000000", 17, 12, true],
      ],
    );
    expectEqual(rows[0]!.lastUserPrompt, { id: "u2000000", line: 8, text: "Now add ndjson output as well" });
    expectEqual(
      rows[0]!.labels.map((l: Json) => l.label),
      ["start", "ndjson-try"],
    );
    expectEqual(
      rows[1]!.labels.map((l: Json) => l.label),
      ["start"],
    );
    expectEqual(rows[1]!.forkPoint, { id: "l1000000", line: 7 });
    expect(rows[1]!.timestamp).toBe("2025-03-01T10:16:00.000Z");
    for (const row of rows) {
      const o = leafTotals(entries, row.id);
      expectTotals(row.ownTotals, o.own);
      expectTotals(row.totals, o.totals);
    }
    const doc = json(await cli(["leaves", files.main!, "--json"]));
    expectEqual(doc.leaves, rows);
    // Fork: copied prefix left out of the leaf's sums.
    const fr = ndjson(await leavesNdjsonOut(files.fork!));
    expect(fr[0]!.totals.input).toBe(400);
  });
});

describe("leaves of the corpus", () => {
  // In process, with the renderer `leaves --ndjson` uses; the command itself runs in "leaves" above.
  it("match pi's leaves (expected.json) in every corpus file", async () => {
    const dir = fixture("corpus");
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
      const expected = expectedOf(name) as Json;
      const out = await leavesNdjsonOut(join(dir, name));
      expect(out.code, name).toBe(0);
      const rows = ndjson({ ...out, stderr: "" });
      // pi keeps a line like `42` as an entry (a leaf); pisess skips it with a diagnostic.
      const bogus = piBogusLines(join(dir, name));
      const piLeaves = (expected.leaves as Json[]).filter((l) => !bogus.has(l.line));
      expectEqual(
        rows.map((r) => [r.line, r.isDefault]),
        piLeaves.map((l) => [l.line, l.default === true]),
        name,
      );
      for (const r of rows) {
        const l = (expected.leaves as Json[]).find((x) => x.line === r.line)!;
        // pi has no path for an entry without id (getBranch falls back to the default leaf); pisess treats it as a root.
        if (l.path && l.id) expect(r.depth, `${name}:${r.line}`).toBe(l.path.length - 1);
      }
    }
  });
});

describe("show", () => {
  it("an entry with parent, children and label; --raw is the exact line", async () => {
    const j = json(await showJsonOut(files.main!, "label:start"));
    expect(j).toMatchObject({
      line: 3,
      id: "u1000000",
      type: "message",
      role: "user",
      parent: { id: "m0000000", line: 2 },
      children: [{ id: "a1000000", line: 4 }],
      label: "start",
    });
    expect(j.entry.message.content[0].text).toBe("Add a --json flag to the export command");
    const bp = json(await showJsonOut(files.main!, "l1000000"));
    expectEqual(bp.children, [
      { id: "u2000000", line: 8 },
      { id: "u3000000", line: 11 },
    ]);
    const raw = await named(["show", files.main!, "@9", "--raw"]);
    expect(raw.stdout).toBe(`${readFileSync(files.main!, "utf8").split("\n")[8]}\n`);
    const t = await named(["show", files.main!, "a3"]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^line\s+9$/m);
    expect(t.stdout).toMatch(/^label\s+ndjson-try$/m);
    expect(t.stdout).toMatch(/"model": "gpt-5"/);
    const v1 = json(await showJsonOut(files.v1!, "L3"));
    expect(v1).toMatchObject({ id: "L3", parent: { id: "L2", line: 2 }, children: [{ id: "L4", line: 4 }] });
    expect((await cli(["show", files.main!, "zzz"])).code).toBe(2);
  });
});

describe("labels", () => {
  it("resolved labels and the history", async () => {
    const t = await named(["labels", files.main!]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/start\s+u1000000\s+3\s+message\/user\s+7/);
    const rows = ndjson(await labelsOut(files.main!, { ndjson: true }));
    expectEqual(rows, [
      {
        label: "start",
        targetId: "u1000000",
        targetLine: 3,
        targetType: "message",
        targetRole: "user",
        setBy: { id: "l1000000", line: 7, timestamp: "2025-03-01T10:06:00.000Z" },
      },
      {
        label: "ndjson-try",
        targetId: "a3000000",
        targetLine: 9,
        targetType: "message",
        targetRole: "assistant",
        setBy: { id: "l2000000", line: 10, timestamp: "2025-03-01T10:09:00.000Z" },
      },
    ]);
    const h = json(await labelsOut(files.main!, { history: true }));
    expectEqual(
      h.history.map((x: Json) => [x.line, x.label, x.current]),
      [
        [7, "start", true],
        [10, "ndjson-try", true],
      ],
    );
    expectEqual(json(await labelsOut(files.v1!)).labels, []);
  });
});

describe("lineage", () => {
  it("ancestors and forks across projects", async () => {
    const f = json(await lineageOut(files.fork!, piEnv(), { json: true }));
    // What each link copied is fork-pi16.test.ts's subject.
    expectEqual(
      f.ancestors.map(({ copied: _, ...a }: Json) => a),
      [
        {
          generation: 1,
          path: files.main,
          ref: files.main,
          legacyBranchedFrom: false,
          exists: true,
          id: "0195a000-0000-7000-8000-000000000001",
        },
      ],
    );
    expectEqual(
      f.forks.map((x: Json) => [x.generation, x.path]),
      [[1, files.fork2]],
    );
    expectEqual(f.missing, []);
    const m = await cli(["lineage", files.main!, "--ndjson"]);
    expect(m.code, m.stderr).toBe(0);
    expectEqual(
      ndjson(m).map((x) => [x.relation, x.generation, x.path]),
      [
        ["fork", 1, files.fork],
        ["fork", 2, files.fork2],
      ],
    );
    const t = await cli(["lineage", files.fork2!]);
    expect(norm(t.stdout)).toContain("↑↑ <TMP>/agent/sessions/");
  });

  it("a missing link is reported, exit 1", async () => {
    const r = await cli(["lineage", files.v1!, "--json"]);
    expect(r.code, r.stderr).toBe(1);
    const j = JSON.parse(r.stdout) as Json;
    expectEqual(j.missing, [join(sessions, "gone", "missing.jsonl")]);
    expect(j.ancestors[0]).toMatchObject({ exists: false, legacyBranchedFrom: true, id: null });
    expect((await lineageOut(files.v1!, piEnv())).stdout).toMatch(/MISSING/);
  });
});

describe("grep", () => {
  it("searches tool output in the cwd's sessions by default", async () => {
    const r = await cli(["grep", "ERR_STRING_TOO_LONG"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n").sort();
    expectEqual(
      lines,
      [
        `${files.fork}:13:t2000000: FAIL test/export.test.ts RangeError: ERR_STRING_TOO_LONG`,
        `${files.main}:16:t2000000: FAIL test/export.test.ts RangeError: ERR_STRING_TOO_LONG`,
      ].sort(),
    );
    const hits = ndjson(await grep({ pattern: "ERR_STRING", targets: [files.main!] }));
    expectEqual(hits, [
      {
        file: files.main,
        line: 16,
        id: "t2000000",
        role: "toolResult",
        type: "message",
        field: "toolResult",
        path: pathOf(parseFile(files.main!).entries, "t2000000").length,
        version: "recorded",
        snippet: "FAIL test/export.test.ts\nRangeError: ERR_STRING_TOO_LONG",
      },
    ]);
  });

  it("thinking, tool-call arguments, -i, --role, --type, v1 ids, folders (in process; the flags through the CLI)", async () => {
    expect(ndjson(await grep({ pattern: "CLI entry", targets: [files.main!] }))[0]).toMatchObject({ id: "a1000000", field: "thinking" });
    expect(ndjson(await grep({ pattern: "src/cli\\.ts", targets: [files.main!] }))[0]).toMatchObject({ id: "a1000000", field: "toolCall" });
    expect((await grep({ pattern: "add a --JSON", targets: [files.main!] })).code).toBe(1);
    expect((await grep({ pattern: "add a --JSON", targets: [files.main!], ignoreCase: true })).code).toBe(0);
    expect((await named(["grep", "-i", "add a --JSON", files.main!])).code).toBe(0);
    const users = ndjson(await grep({ pattern: "export", roles: ["user"], targets: [files.main!] }));
    expectEqual(
      users.map((h) => h.id),
      ["u1000000"],
    );
    const comp = ndjson(await grep({ pattern: "tests", types: ["compaction"], targets: [files.main!] }));
    expectEqual(
      comp.map((h) => h.id),
      ["c1000000"],
    );
    const two = ndjson(await named(["grep", "start|tests", "--type", "compaction,label", files.main!, "--ndjson"]));
    expectEqual(
      two.map((h) => h.id),
      ["l1000000", "c1000000"],
    );
    const v1 = ndjson(await grep({ pattern: "Lexer", targets: [libDir] }));
    expectEqual(
      v1.map((h) => [h.file, h.id, h.path]),
      [[files.v1, "L5", 4]],
    );
    const all = json(await named(["grep", "subagent", "--json", sessions]));
    expectEqual(
      all.hits.map((h: Json) => h.file),
      [files.sub],
    );
  });

  it("exit 1 without hits, 2 on a bad pattern or a missing target", async () => {
    const none = await cli(["grep", "no-such-text-anywhere"]);
    expect(none.code, none.stderr).toBe(1);
    expect(none.stdout).toBe("");
    expect((await named(["grep", "(unclosed", files.main!])).code).toBe(2);
    const miss = await named(["grep", "x", join(tmp, "missing.jsonl")]);
    expect(miss.code, miss.stderr).toBe(2);
    expect(miss.stderr).toMatch(/no such file/);
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../src/model/session.js";
import { contextReport } from "../src/reports/context.js";
import { diffReport } from "../src/reports/diff.js";
import { followSession } from "../src/reports/follow.js";
import { grepReport } from "../src/reports/grep.js";
import { infoReport } from "../src/reports/info.js";
import { labelsReport } from "../src/reports/labels.js";
import { lineageReport } from "../src/reports/lineage.js";
import { lsReport } from "../src/reports/ls.js";
import { openFile, openSession } from "../src/reports/open.js";
import { ReportError } from "../src/reports/report.js";
import { showReport } from "../src/reports/show.js";
import { validateReport } from "../src/reports/validate.js";
import { type CliResult, corpus, type FileFingerprint, fingerprint, fixture, runCli, spawnCli } from "./helpers.js";
import { contextJsonOut, leavesNdjsonOut, pathNdjsonOut, treeOut } from "./inproc.js";

// Files pi itself would rewrite (v1, v2) or overwrite (no header), plus broken ones: pisess must touch none of them.
const sources = [
  corpus("real-v1-before-compaction.jsonl"),
  corpus("gen-v2.jsonl"),
  corpus("gen-v3-faults.jsonl"),
  corpus("gen-v3-cycle-crlf-bom.jsonl"),
  fixture("tree", "no-header.jsonl"),
  fixture("tree", "bad-lines.jsonl"),
  fixture("tree", "branched.jsonl"),
];

const dir = mkdtempSync(join(tmpdir(), "pisess-readonly-"));
const cwd = join(dir, "project");
mkdirSync(cwd);
// pi's folder for a working directory: leading "/" dropped, separators become "-".
const sessions = join(dir, "sessions", `--${cwd.slice(1).replace(/[/\\:]/g, "-")}--`);
mkdirSync(sessions, { recursive: true });
const files = sources.map((src) => {
  const dst = join(sessions, src.split("/").pop() as string);
  copyFileSync(src, dst);
  return dst;
});
const env = { PI_CODING_AGENT_DIR: join(dir, "agent"), PI_CODING_AGENT_SESSION_DIR: join(dir, "sessions") };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function listing(): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop() as string;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      out.push(p);
      if (e.isDirectory()) stack.push(p);
    }
  }
  return out.sort();
}

/** Runs a report; a ReportError is the CLI's one-line exit 2, anything else thrown is a failure. */
async function exitOf(run: () => Promise<number> | number): Promise<number> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ReportError) return err.exitCode;
    throw err;
  }
}

describe("read-only guarantee, every command", () => {
  const [v1, v2, faults, cycle, noHeader, bad, branched] = files as [string, string, string, string, string, string, string];
  // Every command and output form at least once, every file at least once; the reports behind them run on every
  // file in-process below (the process adds argument parsing, file opening and writing stdout). `ls --json` and
  // `context --json` without FILE are run once and read by the last test too.
  const runs: string[][] = [
    ["tree", cycle, "--leaf", "@60"],
    ["tree", v2, "--json"],
    ["path", faults, "--ndjson"],
    ["context", cycle, "--json"],
    ["context", branched, "--llm"],
    ["context", "--json"],
    ["info", bad, "--json"],
    ["leaves", noHeader],
    ["labels", branched, "--history"],
    ["lineage", v2],
    ["show", faults, "leaf", "--raw"],
    ["validate", branched, "--strict"],
    ["validate", sessions, "--format", "sarif"],
    ["diff", faults, "--leaves"],
    ["diff", v1, v2],
    ["diff", branched, "@3", "@7"],
    ["ls", "--json"],
    ["ls", "--all-projects"],
    ["grep", "the", sessions],
    ["follow", cycle, "--from-start", "--until-idle", "0.2"],
    ["follow", bad, "--ndjson", "--from-start", "--until-idle", "0.2"],
    ["follow", "--newest", "--until-idle", "0.2"],
  ];
  const THROUGH_BINARY = new Set([
    `tree ${v2} --json`,
    "context --json",
    `validate ${sessions} --format sarif`,
    "follow --newest --until-idle 0.2",
  ]);
  const results = new Map<string, CliResult>();
  let before: FileFingerprint[] = [];
  let names: string[] = [];
  beforeAll(async () => {
    before = files.map(fingerprint);
    names = listing();
    // The CLI in process (runCli: the same argument parsing, file opening and output as the binary) for most runs,
    // the binary itself for one of each kind: a file read, sessions found from the working directory, a folder
    // walked, and follow's polling.
    for (const args of runs) {
      const key = args.join(" ");
      results.set(key, THROUGH_BINARY.has(key) ? spawnCli(args, { env, cwd }) : await runCli(args, { env, cwd }));
    }
  }, 300_000);

  it("leaves bytes, mtimes and the folder listing unchanged: every command through the CLI, four through the binary", () => {
    expect([...THROUGH_BINARY].filter((k) => !runs.some((a) => a.join(" ") === k))).toEqual([]);
    for (const args of runs) {
      const r = results.get(args.join(" ")) as CliResult;
      expect([0, 1, 2], `${args.join(" ")}: ${r.stderr}`).toContain(r.code);
      expect(r.stderr, args.join(" ")).not.toMatch(/\n\s+at /);
    }
    expect(files.map(fingerprint)).toEqual(before);
    expect(listing()).toEqual(names);
  });

  it("leaves bytes, mtimes and the folder listing unchanged: every command's report on every file (in process)", async () => {
    const before = files.map(fingerprint);
    const names = listing();
    const pi = { ...process.env, ...env };
    const withSession = async (f: string, fn: (s: Session) => Promise<number> | number) => {
      const s = await openSession(f);
      try {
        return await fn(s);
      } finally {
        s.store.close();
      }
    };
    for (const f of files) {
      const runs: [string, () => Promise<number> | number][] = [
        ["tree", async () => (await treeOut(f)).code],
        ["tree --json", async () => (await treeOut(f, { output: "json" })).code],
        ["path --ndjson", async () => (await pathNdjsonOut(f)).code],
        ["context --json", async () => (await contextJsonOut(f)).code],
        [
          "context --llm",
          () => withSession(f, (s) => contextReport(s, { llm: true, display: { thinking: true, maxOutput: 20 } }).exitCode),
        ],
        ["info --json", () => withSession(f, async (s) => (await infoReport(s)).exitCode)],
        ["leaves", async () => (await leavesNdjsonOut(f)).code],
        ["labels --history", () => withSession(f, (s) => labelsReport(s, { history: true }).exitCode)],
        ["lineage", async () => (await lineageReport({ file: f, env: pi })).exitCode],
        ["show leaf --raw", () => withSession(f, (s) => showReport(s, { ref: "leaf", raw: true }).exitCode)],
        ["show leaf", () => withSession(f, (s) => showReport(s, { ref: "leaf" }).exitCode)],
        ["validate --strict", async () => (await validateReport({ inputs: [f], strict: true, open: openFile })).exitCode],
        ["diff --leaves", async () => (await diffReport({ file: f, leaves: true, open: openFile })).exitCode],
        [
          "follow --from-start --ndjson",
          async () => {
            for await (const ev of followSession({ file: f, fromStart: true, wholeEntries: true, untilIdleMs: 50, pollMs: 10 })) void ev;
            return 0;
          },
        ],
      ];
      for (const [name, run] of runs) expect([0, 1, 2], `${name} ${f}`).toContain(await exitOf(run));
    }
    for (const [a, b] of [
      [files[0], files[1]],
      [files[6], files[2]],
    ] as [string, string][])
      expect([0, 1, 2]).toContain(await exitOf(async () => (await diffReport({ file: a, a: b, open: openFile })).exitCode));
    expect([0, 1, 2]).toContain(await exitOf(async () => (await lsReport({ allProjects: true, env: pi, cwd })).exitCode));
    expect([0, 1, 2]).toContain(
      await exitOf(async () => (await grepReport({ pattern: "the", targets: [sessions], env: pi, cwd })).exitCode),
    );
    expect(files.map(fingerprint)).toEqual(before);
    expect(listing()).toEqual(names);
  });

  it("runs from the project's working directory, so ls and context without FILE find these sessions", () => {
    const r = results.get("ls --json") as CliResult;
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { sessions: unknown[] }).sessions.length).toBe(6); // no-header.jsonl is not a session for pi
    expect(results.get("context --json")?.code).toBe(0);
  });
});

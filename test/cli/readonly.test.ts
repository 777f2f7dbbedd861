import {
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../../src/model/session.js";
import { describeContext } from "../../src/render/context-display.js";
import { contextReport } from "../../src/reports/context.js";
import { diffReport } from "../../src/reports/diff.js";
import { followSession } from "../../src/reports/follow.js";
import { grepReport } from "../../src/reports/grep.js";
import { infoReport } from "../../src/reports/info.js";
import { labelsReport } from "../../src/reports/labels.js";
import { lineageReport } from "../../src/reports/lineage.js";
import { lsReport } from "../../src/reports/ls.js";
import { openFile, openSession } from "../../src/reports/open.js";
import { ReportError } from "../../src/reports/report.js";
import { showReport } from "../../src/reports/show.js";
import { validateReport } from "../../src/reports/validate.js";
import { type CliResult, corpus, type FileFingerprint, fingerprint, fixture, runCli, spawnCli } from "../support/helpers.js";
import { contextJsonOut, leavesNdjsonOut, pathNdjsonOut, treeOut } from "../support/inproc.js";

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
// Forks (a parent and two forks naming it), a hard link to a session and a symlink to another: what a pi home
// holds, and what an output path must never reach through.
const forks = ["a-parent.jsonl", "a-fork.jsonl", "a-fork2.jsonl"].map((f) => {
  const dst = join(sessions, f);
  copyFileSync(fixture("fleet", "sessions", "--home-dev-proj-a--", f), dst);
  return dst;
});
const hardLink = join(sessions, "hard-link.jsonl");
linkSync(files[6] as string, hardLink);
const symLink = join(sessions, "sym-link.jsonl");
symlinkSync(files[1] as string, symLink);
// The issues' own traps, named as an output would be: a hard link to a session and a symlink to another.
const hardHtml = join(sessions, "report.html");
linkSync(files[2] as string, hardHtml);
const symHtml = join(sessions, "out.html");
symlinkSync(forks[0] as string, symHtml);
// Where the outputs go (export -o, tables --out): outside the tree that is checked.
const outDir = mkdtempSync(join(tmpdir(), "pisess-readonly-out-"));
// The index (pisess index, and usage and sql through it) lives in the cache dir, outside the tree too.
const env = {
  PI_CODING_AGENT_DIR: join(dir, "agent"),
  PI_CODING_AGENT_SESSION_DIR: join(dir, "sessions"),
  XDG_CACHE_HOME: join(outDir, "cache"),
};

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
});

/**
 * Everything under the tree, by path: a file's bytes (hash), size, mtime, inode and link count; a symlink's target
 * and mtime; a folder's mtime (which moves when anything is created or removed in it, a temporary file too).
 */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of [dir, ...listing()]) {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) out[p] = `link ${readlinkSync(p)} ${st.mtimeMs}`;
    else if (st.isDirectory()) out[p] = `dir ${st.mtimeMs}`;
    else
      out[p] =
        `file ${createHash("sha256").update(readFileSync(p)).digest("hex")} ${st.size} ${st.mtimeMs} ino ${st.ino} nlink ${st.nlink}`;
  }
  return out;
}

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
    ["secrets", sessions, "--format", "sarif"],
    ["export", branched, "--redact", "--format", "markdown"],
    ["diff", faults, "--leaves"],
    ["diff", v1, v2],
    ["diff", branched, "@3", "@7"],
    ["ls", "--json"],
    ["ls", "--all-projects"],
    ["grep", "the", sessions],
    ["follow", cycle, "--from-start", "--until-idle", "0.2"],
    ["follow", bad, "--ndjson", "--from-start", "--until-idle", "0.2"],
    ["follow", "--newest", "--until-idle", "0.2"],
    ["follow", symLink, "--from-start", "--until-idle", "0.2"],
    ["bloat", branched],
    ["compactions", v1],
    ["budget", branched, "--path"],
    ["budget", cycle, "--json"],
    ["schema", "header"],
    // Forks, the hard link and the symlink through the reading commands.
    ["tree", forks[1] as string],
    ["info", forks[2] as string, "--json"],
    ["lineage", forks[1] as string],
    ["diff", forks[1] as string, forks[0] as string],
    ["context", hardLink, "--json"],
    ["info", symLink],
    ["ls", "--json", "--all-projects"],
    ["validate", forks[2] as string],
    // Fleet commands over the tree (forks, links); outputs outside it.
    ["usage", sessions, "--json", "--no-index"],
    ["index", sessions],
    ["index", sessions, "--json"],
    ["index"],
    // Refused: a database inside the sessions tree.
    ["index", sessions, "--db", join(sessions, "pi.duckdb")],
    ["usage", sessions, "--json"],
    ["usage", "--by", "session"],
    ["tables", sessions, "--out", join(outDir, "tables-ndjson"), "--format", "ndjson"],
    ["tables", "--out", join(outDir, "tables-parquet")],
    ["sql", "select count(*) as n from sessions", sessions, "--json"],
    ["sql", "select type, count(*) from entries group by 1 order by 1"],
    ["sql", "select count(*) from leaves", sessions, "--no-index"],
    // export in every format, to stdout and to -o (a new file, then replaced with --force)…
    ["export", branched, "--format", "html"],
    ["export", forks[1] as string, "--format", "markdown"],
    ["export", symLink, "--format", "jsonl"],
    ["export", branched, "-o", join(outDir, "page.html")],
    ["export", hardLink, "-o", join(outDir, "page.html"), "--force"],
    ["export", forks[2] as string, "-o", join(outDir, "branch.md")],
    ["export", v2, "-o", join(outDir, "branch.md"), "--force"],
    ["export", cycle, "--format", "jsonl", "-o", join(outDir, "clean.jsonl")],
    ["export", symLink, "--format", "jsonl", "-o", join(outDir, "link.jsonl")],
    // …and refused (exit 2) onto the input's hard link, a session's symlink, a session, and the input itself.
    ["export", faults, "-o", hardHtml, "--force"],
    ["export", branched, "-o", symHtml, "--force"],
    ["export", branched, "-o", hardLink, "--force", "--format", "markdown"],
    ["export", faults, "-o", symLink, "--force", "--format", "html"],
    ["export", faults, "-o", forks[0] as string, "--force", "--format", "markdown"],
    ["export", v2, "-o", v2, "--force", "--format", "markdown"],
  ];
  const THROUGH_BINARY = new Set([
    `tree ${v2} --json`,
    "context --json",
    `validate ${sessions} --format sarif`,
    "follow --newest --until-idle 0.2",
    `export ${hardLink} -o ${join(outDir, "page.html")} --force`,
    `export ${faults} -o ${symLink} --force --format html`,
    `export ${branched} -o ${symHtml} --force`,
  ]);
  const REFUSED = [
    `export ${faults} -o ${hardHtml} --force`,
    `export ${branched} -o ${symHtml} --force`,
    `export ${branched} -o ${hardLink} --force --format markdown`,
    `export ${faults} -o ${symLink} --force --format html`,
    `export ${faults} -o ${forks[0]} --force --format markdown`,
    `export ${v2} -o ${v2} --force --format markdown`,
  ];
  const results = new Map<string, CliResult>();
  let before: FileFingerprint[] = [];
  let names: string[] = [];
  let tree: Record<string, string> = {};
  beforeAll(async () => {
    before = files.map(fingerprint);
    names = listing();
    tree = snapshot();
    // The CLI in process (runCli: the same argument parsing, file opening and output as the binary) for most runs,
    // the binary itself for one of each kind: a file read, sessions found from the working directory, a folder
    // walked, and follow's polling.
    for (const args of runs) {
      const key = args.join(" ");
      results.set(key, THROUGH_BINARY.has(key) ? spawnCli(args, { env, cwd }) : await runCli(args, { env, cwd }));
    }
  }, 300_000);

  it("leaves bytes, mtimes and the folder listing unchanged: every command through the CLI, seven through the binary", () => {
    expect([...THROUGH_BINARY].filter((k) => !runs.some((a) => a.join(" ") === k))).toEqual([]);
    for (const args of runs) {
      const r = results.get(args.join(" ")) as CliResult;
      expect([0, 1, 2], `${args.join(" ")}: ${r.stderr}`).toContain(r.code);
      expect(r.stderr, args.join(" ")).not.toMatch(/\n\s+at /);
      // The fleet commands read every file here: they must get through them (exit 0 or 1) to prove anything.
      if (["usage", "tables", "sql"].includes(args[0] as string) || (args[0] === "index" && !args.includes("--db")))
        expect([0, 1], `${args.join(" ")}: ${r.stderr}`).toContain(r.code);
    }
    expect(files.map(fingerprint)).toEqual(before);
    expect(listing()).toEqual(names);
    expect(snapshot()).toEqual(tree);
  });

  it("covers every command, forks, the hard link and the symlink", async () => {
    const { commandLoaders } = await import("../../src/commands/index.js");
    const names = commandLoaders.map(([spec]) => spec.split(" ")[0] as string);
    expect(names.filter((c) => !runs.some((a) => a[0] === c))).toEqual([]);
    for (const f of [...forks, hardLink, symLink, hardHtml, symHtml])
      expect(
        runs.some((a) => a.includes(f)),
        f,
      ).toBe(true);
  });

  it("export -o writes new files outside the tree, --force replaces them, and every refusal is exit 2 with one line", () => {
    for (const key of REFUSED) {
      const r = results.get(key) as CliResult;
      expect(r.code, key).toBe(2);
      expect(r.stderr.trimEnd().split("\n"), key).toHaveLength(1);
    }
    for (const [args, r] of results)
      if (args.startsWith("export") && !REFUSED.includes(args)) expect([0, 1], `${args}: ${r.stderr}`).toContain(r.code);
    expect(readdirSync(outDir).sort()).toEqual([
      "branch.md",
      "cache",
      "clean.jsonl",
      "link.jsonl",
      "page.html",
      "tables-ndjson",
      "tables-parquet",
    ]);
    expect(readFileSync(join(outDir, "page.html"), "utf8")).toMatch(/^<!doctype html>/);
    // Replaced with --force: the second export's (v2's) facts, not the first's.
    expect(readFileSync(join(outDir, "branch.md"), "utf8")).toContain("7724831b-7ce5-44a8-980e-4ec6b25b007d");
    expect(readFileSync(join(outDir, "link.jsonl"), "utf8").split("\n")[0]).toContain('"type":"session"');
  });

  it("leaves bytes, mtimes and the folder listing unchanged: every command's report on every file (in process)", async () => {
    const before = files.map(fingerprint);
    const names = listing();
    const pi = { ...process.env, ...env };
    const withSession = async (f: string, fn: (s: Session<"full">) => Promise<number> | number) => {
      const s = await openSession(f);
      try {
        return await fn(s);
      } finally {
        s.store.close();
      }
    };
    for (const f of [...files, hardLink, symLink, forks[1] as string]) {
      const runs: [string, () => Promise<number> | number][] = [
        ["tree", async () => (await treeOut(f)).code],
        ["tree --json", async () => (await treeOut(f, { output: "json" })).code],
        ["path --ndjson", async () => (await pathNdjsonOut(f)).code],
        ["context --json", async () => (await contextJsonOut(f)).code],
        [
          "context --llm",
          () =>
            withSession(f, (s) => {
              const r = contextReport(s, { llm: true });
              const { leaf, context: c } = r.data;
              if (leaf && c) for (const m of describeContext(s.file, leaf, c, { thinking: true, maxOutput: 20 }).items) void m;
              return r.exitCode;
            }),
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
    expect(snapshot()).toEqual(tree);
  });

  it("runs from the project's working directory, so ls and context without FILE find these sessions", () => {
    const r = results.get("ls --json") as CliResult;
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { sessions: unknown[] }).sessions.length).toBe(11); // 7 files + 3 forks + the two links, less no-header.jsonl (not a session for pi)
    expect(results.get("context --json")?.code).toBe(0);
  });
});

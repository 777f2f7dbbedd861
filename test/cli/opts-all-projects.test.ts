import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixture, piSessionFolder, runCli, spawnCli } from "../support/helpers.js";

// Issue 26, item 10: one "every project" flag, -a/--all-projects, with one meaning (every project folder in the
// sessions dir instead of the current directory's) in every command that falls back to the sessions dir: grep and
// ls (which read the current directory's project by default), usage, tables and sql (which read every project by
// default: the flag says so), follow, context and export (with --session: where the id is looked for). grep had
// no such flag; follow, context and export had --all-projects without -a.
const root = mkdtempSync(join(tmpdir(), "pisess-opts-all-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const sessions = join(root, "sessions");
const here = join(root, "proj");
const mine = join(sessions, piSessionFolder(here));
const other = join(sessions, "--elsewhere--");
mkdirSync(mine, { recursive: true });
mkdirSync(other, { recursive: true });
const A = join(mine, "a.jsonl");
const B = join(other, "b.jsonl");
copyFileSync(fixture("tree", "branched.jsonl"), A); // session 0194aaaa-…, "fix the loader"
copyFileSync(fixture("opts", "labels.jsonl"), B); // session 0194bbbb-…, "First", "Second"

const opts = { cwd: here, env: { PI_CODING_AGENT_SESSION_DIR: sessions, PI_CODING_AGENT_DIR: join(root, "agent") } };
const run = (args: string[]) => runCli(args, opts);

describe("-a/--all-projects", () => {
  it("grep: the current project by default, every project with -a or --all-projects", async () => {
    const mineOnly = await run(["grep", "loader|Second", "--json"]);
    expect(mineOnly.code).toBe(0);
    const files = (out: string) => [...new Set((JSON.parse(out) as { hits: { file: string }[] }).hits.map((h) => h.file))].sort();
    expect(files(mineOnly.stdout)).toEqual([A]);
    for (const flag of ["-a", "--all-projects"]) {
      const all = await run(["grep", "loader|Second", flag, "--json"]);
      expect(all.stderr).toBe("");
      expect(all.code).toBe(0);
      expect(files(all.stdout)).toEqual([A, B].sort());
    }
  });

  it("ls: -a lists every project", async () => {
    const r = await run(["ls", "-a", "--json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { sessions: { path: string }[] }).sessions.map((s) => s.path).sort()).toEqual([A, B].sort());
  });

  it("usage, tables, sql: -a is accepted and reads what they read by default (every project)", async () => {
    const plain = await run(["usage", "--json"]);
    const all = await run(["usage", "-a", "--json"]);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe(plain.stdout);
    expect((JSON.parse(all.stdout) as { totals: { sessions: number } }).totals.sessions).toBe(1);
    const t = await run(["tables", "-a", "--out", join(root, "tables"), "--format", "ndjson"]);
    expect(t.code).toBe(0);
    const q = await run(["sql", "-a", "SELECT count(*) AS n FROM sessions", "--json"]);
    expect(q.code).toBe(0);
    expect(JSON.parse(q.stdout)).toEqual({ columns: ["n"], rows: [{ n: 2 }] });
  });

  it("with targets it is a usage error, the same words in every command", async () => {
    for (const [cmd, operand] of [
      [["grep", "x", "-a", A], "targets"],
      [["usage", "-a", A], "targets"],
      [["tables", "-a", A, "--out", join(root, "t2")], "targets"],
      [["sql", "-a", "SELECT 1", A], "targets"],
      [["ls", "-a", A], "dirs"],
    ] as const) {
      const r = await run([...cmd]);
      expect(r.code).toBe(2);
      expect(r.stderr.split("\n")[0]).toBe(
        `pisess: --all-projects takes no ${operand} (it reads every project folder in the sessions dir)`,
      );
    }
  });

  it("follow, context, export: -a with --session looks in every project", async () => {
    const c = await run(["context", "--session", "0194bbbb", "-a", "--json"]);
    expect(c.code).toBe(0);
    expect(c.stdout).toContain("Second");
    const e = await run(["export", "--session", "0194bbbb", "-a", "--format", "markdown"]);
    expect(e.code).toBe(0);
    expect(e.stdout).toContain("Second");
    const f = await run(["follow", "--session", "0194bbbb", "-a", "--from-start", "--until-idle", "0.2"]);
    expect(f.code).toBe(0);
    expect(f.stdout).toContain("Second");
    const notHere = await run(["context", "--session", "0194bbbb"]);
    expect(notHere.code).toBe(2);
  });

  it("every such command lists -a, --all-projects in its help", () => {
    for (const cmd of ["grep", "ls", "usage", "tables", "sql", "follow", "context", "export"]) {
      const r = spawnCli([cmd, "--help"]);
      expect(r.stdout, cmd).toMatch(/ -a, --all-projects +Every project folder in the sessions dir/);
    }
  });
});

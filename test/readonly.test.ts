import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { corpus, fingerprint, fixture, runCli } from "./helpers.js";

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

describe("read-only guarantee, every command", () => {
  it("leaves bytes, mtimes and the folder listing unchanged", () => {
    const before = files.map(fingerprint);
    const names = listing();
    const [v1, v2, faults, cycle, noHeader, bad, branched] = files as [string, string, string, string, string, string, string];
    const runs: string[][] = [];
    for (const f of files) {
      runs.push(["tree", f], ["tree", f, "--json"], ["path", f, "--ndjson"], ["context", f, "--json"], ["context", f, "--llm"]);
      runs.push(
        ["info", f, "--json"],
        ["leaves", f],
        ["labels", f, "--history"],
        ["lineage", f],
        ["show", f, "leaf", "--raw"],
        ["validate", f, "--strict"],
      );
    }
    runs.push(
      ["diff", faults, "--leaves"],
      ["diff", v1, v2],
      ["diff", branched, "@3", "@7"],
      ["ls"],
      ["ls", "--all-projects", "--json"],
      ["grep", "the", sessions],
    );
    runs.push(
      ["context"],
      ["validate", sessions, "--format", "sarif"],
      ["tree", cycle, "--leaf", "@60"],
      ["path", noHeader],
      ["info", bad],
    );
    for (const args of runs) {
      const r = runCli(args, { env, cwd });
      expect([0, 1, 2], `${args.join(" ")}: ${r.stderr}`).toContain(r.code);
      expect(r.stderr, args.join(" ")).not.toMatch(/\n\s+at /);
    }
    expect(files.map(fingerprint)).toEqual(before);
    expect(listing()).toEqual(names);
  }, 300_000);

  it("runs from the project's working directory, so ls and context without FILE find these sessions", () => {
    const r = runCli(["ls", "--json"], { env, cwd });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { sessions: unknown[] }).sessions.length).toBe(6); // no-header.jsonl is not a session for pi
    expect(runCli(["context", "--json"], { env, cwd }).code).toBe(0);
  });
});

import { execFile, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cwdFolderName } from "../src/io/discover.js";
import { startCliServers } from "./cli-server.js";
import { ROOT, runCli } from "./helpers.js";

// The README's samples come from real runs, and its shell examples run: each `pisess …` line of a ```sh block runs
// in bash (pipefail), against the sessions of fixtures/readme/ under the names the README uses. jq is needed for
// the examples that pipe into it; without jq those are skipped (and said so). The `pisess` they find on PATH runs
// the built CLI in a CLI server (cli-server.ts): the same bundle as bin/pisess.js, without a Node start per run.

const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const hasBash = spawnSync("bash", ["-c", "true"]).status === 0;
const hasJq = spawnSync("jq", ["--version"]).status === 0;

describe("README samples are real output", () => {
  // "Output of `pisess ARGS`…:" followed by a ``` block.
  const samples = [...readme.matchAll(/Output of `pisess ([^`]+)`[\s\S]*?\n```\n([\s\S]*?)```/g)];

  it("there is at least one", () => {
    expect(samples.length).toBeGreaterThan(0);
  });

  for (const [, args, block] of samples) {
    it(`pisess ${args}`, async () => {
      const r = await runCli((args as string).split(" "));
      expect(r.stdout).toBe(block);
    });
  }
});

/** Every line of a ```sh block that runs pisess (comment lines and `npm …` lines left out). */
function examples(): string[] {
  const out: string[] = [];
  for (const m of readme.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)) {
    let open = "";
    for (const line of (m[1] as string).split("\n")) {
      // A quoted jq program may span lines: keep reading until its quotes close.
      const t = open ? `${open}\n${line}` : line.trim();
      // A quoted jq program or SQL query may span lines: keep reading until its quotes close.
      if ((t.match(/'/g) ?? []).length % 2 === 1 || (t.match(/"/g) ?? []).length % 2 === 1) {
        open = t;
        continue;
      }
      open = "";
      if (t === "" || t.startsWith("#") || !/\bpisess\b/.test(t)) continue;
      out.push(t);
    }
  }
  return out;
}

const home = mkdtempSync(join(tmpdir(), "pisess-readme-"));
const work = join(home, "work");
const servers = await startCliServers(2);
afterAll(async () => {
  await servers.close();
  rmSync(home, { recursive: true, force: true });
});

/** A home with pi's sessions folder and a working directory holding the files the README names. */
function sandbox(): void {
  const src = (name: string) => join(ROOT, "fixtures", "readme", name);
  const put = (from: string, to: string) => {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  };
  for (const name of ["session.jsonl", "fork.jsonl", "parent.jsonl"]) {
    put(src(name), join(work, name));
    put(src(name), join(work, "sessions", name));
  }
  put(src("session.jsonl"), join(work, "s.jsonl"));
  put(src("parent.jsonl"), join(work, "main.jsonl"));
  // This directory's sessions, as pi files them: `pisess ls`, `pisess context`, `pisess grep PATTERN`.
  const project = join(home, ".pi", "agent", "sessions", cwdFolderName(work));
  put(src("session.jsonl"), join(project, "2025-03-01T10-00-00-000Z_0194a000-0000-7000-8000-0000000000aa.jsonl"));
  put(src("fork.jsonl"), join(project, "2025-03-01T10-20-00-000Z_0194c000-0000-7000-8000-0000000000cc.jsonl"));
  put(src("parent.jsonl"), join(project, "parent.jsonl"));
}

/** Runs one example line in bash (pipefail) in the sandbox; resolves with its exit status and stderr. */
function bash(line: string): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-o", "pipefail", "-c", line],
      // `pisess` on PATH runs the built CLI; a fake HOME keeps the user's own sessions out.
      {
        cwd: work,
        env: { ...servers.env, PATH: `${servers.bin}:${process.env.PATH ?? ""}`, HOME: home, NO_COLOR: "1" },
        encoding: "utf8",
        timeout: 30_000,
        maxBuffer: 256 * 1024 * 1024,
      },
      (err, _stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
        resolve({ status: code, stderr });
      },
    );
  });
}

describe.skipIf(!hasBash)("README examples run", () => {
  sandbox();
  const all = examples();

  it("there are examples", () => {
    expect(all.length).toBeGreaterThan(40);
  });

  // Each example is its own process tree and works on its own output: they run a few at a time (vitest's
  // maxConcurrency), so both cores stay busy while one example waits on its pipe.
  for (const line of all) {
    const needsJq = /\|\s*jq\b/.test(line);
    it.skipIf(needsJq && !hasJq)(line, { concurrent: true }, async ({ expect }) => {
      const r = await bash(line);
      // 0 ok, 1 findings/differences/no match (the documented meanings); 141: a reader (head) left early.
      expect([0, 1, 141], `${line}\nstderr: ${r.stderr}`).toContain(r.status);
      expect(r.stderr).not.toMatch(/^pisess: (?!warning:)/m);
      expect(r.stderr).not.toMatch(/jq: error|command not found/);
    });
  }
});

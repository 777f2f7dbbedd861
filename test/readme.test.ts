import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cwdFolderName } from "../src/io/discover.js";
import { startCliServers } from "./cli-server.js";
import { ROOT, runCli } from "./helpers.js";

// The samples of the README and of the reference (docs/**/*.md) come from real runs, and their shell examples run:
// each `pisess …` line of a ```sh block runs
// in bash (pipefail), against the sessions of fixtures/readme/ under the names the README uses. jq is needed for
// the examples that pipe into it; without jq those are skipped (and said so). The `pisess` they find on PATH runs
// the built CLI in a CLI server (cli-server.ts): the same bundle as bin/pisess.js, without a Node start per run.

/** README.md, then every page under docs/ in path order: the examples moved there with the reference. */
const pages: { file: string; text: string }[] = ["README.md", ...markdownUnder("docs")].map((file) => ({
  file,
  text: readFileSync(join(ROOT, file), "utf8"),
}));

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(dir, f))
    .sort();
}
const hasBash = spawnSync("bash", ["-c", "true"]).status === 0;
const hasJq = spawnSync("jq", ["--version"]).status === 0;
const needsJq = (line: string): boolean => /\|\s*jq\b/.test(line);

describe("README and docs samples are real output", () => {
  // "Output of `pisess ARGS`…:" followed by a ``` block.
  const samples = pages.flatMap(({ file, text }) =>
    [...text.matchAll(/Output of `pisess ([^`]+)`[\s\S]*?\n```\n([\s\S]*?)```/g)].map(([, args, block]) => ({ file, args, block })),
  );

  it("there is at least one, and every command page shows its --help", () => {
    expect(samples.length).toBeGreaterThan(0);
    const pagesWithHelp = new Set(samples.filter((s) => s.args?.endsWith(" --help")).map((s) => s.file));
    for (const f of markdownUnder(join("docs", "commands"))) expect(pagesWithHelp, f).toContain(f);
  });

  for (const { file, args, block } of samples) {
    it(`${file}: pisess ${args}`, async () => {
      const r = await runCli((args as string).split(" "));
      expect(r.stdout).toBe(block);
    });
  }
});

/** Every line of a ```sh block that runs pisess (comment lines and `npm …` lines left out), README first. */
function examples(): string[] {
  const out: string[] = [];
  for (const m of pages.flatMap(({ text }) => [...text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)])) {
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
// One server for both shells: a second one loaded and compiled the same commands again (~0.4 CPU-s of ~4 in the
// servers), while the runs themselves are short; the shells' own work (jq, bash) overlaps the server's.
const servers = await startCliServers(1);
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

interface ExampleRun {
  status: number | null;
  stderr: string;
}

// Each line runs in a subshell of its own (what it sets, its `cd` and its redirections stay there), with no
// positional parameters, stdin from /dev/null and stdout discarded, as `bash -o pipefail -c LINE` would run it;
// bash prints the line's index and exit status once the line is done.
const RUNNER = `set -o pipefail
__out=$1
shift
__lines=("$@")
set --
for ((__k = 0; __k < \${#__lines[@]}; __k += 2)); do
  ( eval "\${__lines[__k + 1]}" ) </dev/null >/dev/null 2>"$__out/\${__lines[__k]}"
  printf '%s %s\\n' "\${__lines[__k]}" "$?"
done
`;

const LINE_TIMEOUT_MS = 30_000;

/**
 * Runs the example lines in the sandbox, in `shells` bash processes side by side (pipefail, `pisess` the CLI
 * servers' shell function, also on PATH for anything that runs it by name): a fork per line instead of a bash, and
 * no process per `pisess`. Each line's exit status (null: its shell ended first) and stderr, in the lines' order.
 */
function runExamples(lines: (string | null)[], shells: number): Promise<ExampleRun>[] {
  const out = mkdtempSync(join(home, "examples-"));
  const settle: ((r: ExampleRun) => void)[] = [];
  const done = new Set<number>();
  const results = lines.map((_, k) => new Promise<ExampleRun>((resolve) => (settle[k] = resolve)));
  for (let s = 0; s < shells; s++) {
    const mine = lines.flatMap((line, k) => (k % shells === s && line !== null ? [String(k), line] : []));
    const child = spawn("bash", ["-c", `${servers.shell}${RUNNER}`, "bash", out, ...mine], {
      cwd: work,
      // `pisess` on PATH runs the built CLI; a fake HOME keeps the user's own sessions out.
      env: { ...servers.env, PATH: `${servers.bin}:${process.env.PATH ?? ""}`, HOME: home, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "inherit"],
      // Its own process group, so that a line that hangs can be killed with everything it started.
      detached: true,
    });
    // A line still running after LINE_TIMEOUT_MS fails (no status), and so do the lines after it in that shell.
    let watchdog: NodeJS.Timeout | undefined;
    let timedOut = false;
    const watch = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        timedOut = true;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, LINE_TIMEOUT_MS);
    };
    watch();
    let pending = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      watch();
      pending += d;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const [k, status] = pending.slice(0, nl).split(" ").map(Number) as [number, number];
        pending = pending.slice(nl + 1);
        settle[k]?.({ status, stderr: readFileSync(join(out, String(k)), "utf8") });
        done.add(k);
      }
    });
    // A line its shell never finished (the shell died, or the line was not given): no status. Settled lines keep theirs.
    const end = () => {
      clearTimeout(watchdog);
      let why = timedOut ? `still running after ${LINE_TIMEOUT_MS} ms: killed` : "the example's shell ended first";
      for (let k = s; k < lines.length; k += shells) {
        if (done.has(k)) continue;
        settle[k]?.({ status: null, stderr: why });
        done.add(k);
        if (timedOut && lines[k] !== null) why = "not run: an earlier line in its shell was killed";
      }
    };
    child.on("error", end);
    child.on("close", end);
  }
  return results;
}

describe.skipIf(!hasBash)("README and docs examples run", () => {
  const all = examples();
  const skip = (line: string): boolean => needsJq(line) && !hasJq;
  let results: Promise<ExampleRun>[] = [];
  if (hasBash) {
    sandbox();
    results = runExamples(
      all.map((line) => (skip(line) ? null : line)),
      2,
    );
  }

  it("there are examples", () => {
    expect(all.length).toBeGreaterThan(40);
  });

  for (const [k, line] of all.entries()) {
    it.skipIf(skip(line))(line, async () => {
      const r = await (results[k] as Promise<ExampleRun>);
      // 0 ok, 1 findings/differences/no match (the documented meanings); 141: a reader (head) left early.
      expect([0, 1, 141], `${line}\nstderr: ${r.stderr}`).toContain(r.status);
      expect(r.stderr).not.toMatch(/^pisess: (?!warning:)/m);
      expect(r.stderr).not.toMatch(/jq: error|command not found/);
    });
  }
});

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cwdFolderName } from "../../src/io/discover.js";
import { startCliServers } from "../support/cli-server.js";
import { UPDATE } from "../support/golden.js";
import { BIN, ROOT, runCli } from "../support/helpers.js";
import { checkOutput, outputSchemaFor } from "../support/output-schema-check.js";
import { formatScenario, parseScenario, type Scenario, scenarioName } from "../support/snapshot-file.js";

// Every example of the README and of docs/**/*.md (each `pisess …` line of a ```sh or ```bash block) is a snapshot
// scenario: test/snapshots/<name>.md holds the line, its stdout, stderr and exit code (test/support/snapshot-file.ts).
// Each runs in a sandbox: a fake HOME with pi's sessions folder and a working directory holding the files the
// examples name (fixtures/readme/ by default; EXAMPLE_FILES below gives some examples other files, where the default
// ones would make them print nothing). A missing or different snapshot fails, in CI and here alike;
// `npm run test:update` (PISESS_UPDATE_SNAPSHOTS=1) writes them, and removes those no example has any more.
//
// A plain `pisess ARGS` line runs in a CLI server (test/support/cli-server.ts: the built bundle's main() in a Node
// process of its own, in the sandbox's working directory); `pisess ARGS | REST` runs pisess there and REST in bash
// (pipefail: the status is REST's when it fails, else pisess's); anything else (several pisess, redirections,
// $(…), loops) runs in bash with `pisess` on PATH the built binary.

const SNAPSHOTS = join(ROOT, "test", "snapshots");
const hasBash = spawnSync("bash", ["-c", "true"]).status === 0;
const hasJq = spawnSync("jq", ["--version"]).status === 0;
const needsJq = (line: string): boolean => /\|\s*jq\b/.test(line);

const docs = ["README.md", ...markdownUnder("docs")].map((path) => ({ path, text: readFileSync(join(ROOT, path), "utf8") }));

/** Every line of a ```sh or ```bash block that runs pisess (comment lines and `npm …` lines left out), with its files. */
function examples(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { path, text } of docs) {
    for (const m of text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)) {
      let open = "";
      for (const line of (m[1] as string).split("\n")) {
        const t = open ? `${open}\n${line}` : line.trim();
        // A quoted jq program or SQL query may span lines: keep reading until its quotes close.
        if ((t.match(/'/g) ?? []).length % 2 === 1 || (t.match(/"/g) ?? []).length % 2 === 1) {
          open = t;
          continue;
        }
        open = "";
        if (t === "" || t.startsWith("#") || !/\bpisess\b/.test(t)) continue;
        const from = out.get(t) ?? [];
        if (!from.includes(path)) from.push(path);
        out.set(t, from);
      }
    }
  }
  return out;
}

/**
 * Examples whose output on the default files (fixtures/readme/) would be empty or `null`: the files they run on
 * instead, by the name the example uses (session.jsonl, fork.jsonl and parent.jsonl stand for their copies under
 * sessions/ and in pi's folder too; s.jsonl and main.jsonl are their own). Each source holds what the example
 * looks for. `forkOfMain`: pi's folder also holds a /fork of main.jsonl (lineage finds forks there, by their header).
 */
interface Files {
  names?: Record<string, string>;
  forkOfMain?: true;
}
const LEAK = { names: { "s.jsonl": "fixtures/secrets/leak.jsonl" } };
const EXAMPLE_FILES: Record<string, Files> = {
  "pisess secrets s.jsonl --pattern 'acme=acme_live_[0-9a-f]{24}'": LEAK,
  'pisess secrets s.jsonl --format ndjson | jq -r \'select(.code == "secret-sent") | "\\(.line) \\(.args.rule) \\(.args.requests)"\'': LEAK,
  "pisess secrets s.jsonl --format github --fail-on error": LEAK,
  "pisess export s.jsonl --redact --redact-pattern 'acme_live_[0-9a-f]{24}' | grep -c 'REDACTED'": LEAK,
  "pisess export s.jsonl --redact | grep -n 'REDACTED'                # what was masked in the shared copy": LEAK,
  'pisess validate sessions/ --format ndjson | jq -r \'select(.code=="pi-would-refuse" or .code=="pi-would-overwrite") | "\\(.code)\\t\\(.file)"\'':
    { names: { "fork.jsonl": "fixtures/validate/header-missing.jsonl" } },
  'pisess validate s.jsonl --format ndjson | jq -r \'select(.code=="malformed-json") | "\\(.line):\\(.column)"\'': {
    names: { "s.jsonl": "fixtures/validate/malformed-json.jsonl" },
  },
  "pisess diff session.jsonl --leaves --json | jq -r '.diffs[] | select(.right) | .right.stats.files.changed[]' | sort -u": {
    names: { "session.jsonl": "fixtures/diff/branches.jsonl" },
  },
  "pisess labels session.jsonl --history --ndjson | jq -r 'select(.label == null) | .line'   # where labels were cleared": {
    names: { "session.jsonl": "fixtures/corpus/gen-v2.jsonl" },
  },
  "pisess context session.jsonl --llm --ndjson | jq -s 'map(select(.role == \"toolResult\")) | length'": {
    names: { "session.jsonl": "fixtures/corpus/gen-v1.jsonl" },
  },
  "pisess lineage main.jsonl --ndjson | jq -r 'select(.relation == \"fork\") | .path'": { forkOfMain: true },
  "pisess bloat session.jsonl --json | jq '.byKind[] | select(.kind == \"image\") | .bytes'": {
    names: { "session.jsonl": "fixtures/corpus/gen-v1.jsonl" },
  },
};

/** The Markdown files under `dir` (relative to the repository), in path order; none when it does not exist. */
function markdownUnder(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(dir, f))
    .sort();
}

describe("README and docs samples are real output", () => {
  // "Output of `pisess ARGS`…:" followed by a ``` block.
  const samples = docs.flatMap(({ path, text }) =>
    [...text.matchAll(/Output of `pisess ([^`]+)`[\s\S]*?\n```\n([\s\S]*?)```/g)].map(([, args, block]) => ({ path, args, block })),
  );

  it("there is at least one, and every command page shows its --help", () => {
    expect(samples.length).toBeGreaterThan(0);
    const pagesWithHelp = new Set(samples.filter((s) => s.args?.endsWith(" --help")).map((s) => s.path));
    for (const f of markdownUnder(join("docs", "commands"))) expect(pagesWithHelp, f).toContain(f);
  });

  for (const { path, args, block } of samples) {
    it(`${path}: pisess ${args}`, async () => {
      const r = await runCli((args as string).split(" "));
      expect(r.stdout).toBe(block);
    });
  }
});

const home = mkdtempSync(join(tmpdir(), "pisess-snapshots-"));
const servers = await startCliServers(1);
afterAll(async () => {
  await servers.close();
  rmSync(home, { recursive: true, force: true });
});

// The files' times are the sessions' own (ls and info show them), not the time of the copy.
const FILE_TIME = new Date("2025-03-01T12:00:00Z");

const sandboxes = new Map<string, string>();

/** A home with pi's sessions folder and a working directory holding the files the examples name. */
function sandbox(files: Files): { home: string; work: string } {
  const key = JSON.stringify(files);
  const names = files.names ?? {};
  let root = sandboxes.get(key);
  if (root === undefined) {
    root = join(home, `h${sandboxes.size}`);
    sandboxes.set(key, root);
    const work = join(root, "work");
    const src = (name: string, as = name) => join(ROOT, names[as] ?? join("fixtures", "readme", name));
    const put = (from: string, to: string) => {
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, to);
      utimesSync(to, FILE_TIME, FILE_TIME);
    };
    for (const name of ["session.jsonl", "fork.jsonl", "parent.jsonl"]) {
      put(src(name), join(work, name));
      put(src(name), join(work, "sessions", name));
    }
    put(src("session.jsonl", "s.jsonl"), join(work, "s.jsonl"));
    put(src("parent.jsonl", "main.jsonl"), join(work, "main.jsonl"));
    // This directory's sessions, as pi files them: `pisess ls`, `pisess context`, `pisess grep PATTERN`.
    const project = join(root, ".pi", "agent", "sessions", cwdFolderName(work));
    put(src("session.jsonl"), join(project, "2025-03-01T10-00-00-000Z_0194a000-0000-7000-8000-0000000000aa.jsonl"));
    put(src("fork.jsonl"), join(project, "2025-03-01T10-20-00-000Z_0194c000-0000-7000-8000-0000000000cc.jsonl"));
    put(src("parent.jsonl"), join(project, "parent.jsonl"));
    if (files.forkOfMain) {
      const fork = readFileSync(src("fork.jsonl"), "utf8").replace(
        '"parentSession":"parent.jsonl"',
        JSON.stringify({ parentSession: join(work, "main.jsonl") }).slice(1, -1),
      );
      const to = join(project, "2025-03-01T10-30-00-000Z_0194d000-0000-7000-8000-0000000000dd.jsonl");
      writeFileSync(to, fork);
      utimesSync(to, FILE_TIME, FILE_TIME);
    }
    // `pisess` by name, in the lines bash runs: the built binary.
    mkdirSync(join(root, "bin"));
    writeFileSync(join(root, "bin", "pisess"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(root, "bin", "pisess"), 0o755);
  }
  return { home: root, work: join(root, "work") };
}

/**
 * The words of `line` when it is `pisess` and plain words only (quotes, a trailing comment), and where a `|` outside
 * quotes comes, what follows it; null for anything bash must run as a whole.
 */
function splitLine(line: string): { words: string[]; rest: string | null } | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      const quoted = line.slice(i + 1, end);
      if (c === '"' && /[$`\\]/.test(quoted)) return null;
      word = (word ?? "") + quoted;
      i = end;
    } else if (c === " " || c === "\t" || c === "\n") {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "#" && word === null) {
      break;
    } else if (c === "|" && line[i + 1] !== "|") {
      if (word !== null) words.push(word);
      const rest = line.slice(i + 1);
      return words[0] === "pisess" && !/\bpisess\b/.test(rest) ? { words: words.slice(1), rest } : null;
    } else if (/[;&<>()$`\\*?~{}[\]!]/.test(c)) {
      return null;
    } else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return words[0] === "pisess" ? { words: words.slice(1), rest: null } : null;
}

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

// Long: a line that runs the binary several times (a loop) starts a Node process for each, on a loaded machine too.
const LINE_TIMEOUT_MS = 100_000;

function bash(script: string, where: { home: string; work: string }, input?: Buffer): Run {
  const r = spawnSync("bash", ["-o", "pipefail", "-c", script], {
    cwd: where.work,
    env: runEnv(where),
    input: input ?? "",
    encoding: "utf8",
    timeout: LINE_TIMEOUT_MS,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status };
}

function runEnv(where: { home: string; work: string }): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _n, FORCE_COLOR: _f, ...env } = process.env;
  // A fake HOME keeps the user's own sessions out; one time zone and no colour keep the output the same everywhere.
  return { ...env, HOME: where.home, PATH: `${join(where.home, "bin")}:${process.env.PATH ?? ""}`, NO_COLOR: "1", TZ: "UTC" };
}

async function run(line: string): Promise<Run> {
  const where = sandbox(EXAMPLE_FILES[line] ?? {});
  const split = splitLine(line);
  let r: Run;
  if (split === null) r = bash(line, where);
  else {
    const p = await servers.run(split.words, { cwd: where.work, env: runEnv(where), timeoutMs: LINE_TIMEOUT_MS });
    r = { stdout: p.stdout.toString("utf8"), stderr: p.stderr.toString("utf8"), exitCode: p.code };
    // pisess's own JSON (before any jq) is what its schema under schemas/output/ describes.
    const schema = outputSchemaFor(split.words);
    if (schema !== null && r.stdout !== "") {
      checkOutput(schema, r.stdout, line);
      validatedExamples.add(`${line} (${schema})`);
    }
    if (split.rest !== null) {
      const after = bash(split.rest, where, p.stdout);
      r = {
        stdout: after.stdout,
        stderr: r.stderr + after.stderr,
        exitCode: after.exitCode !== 0 ? after.exitCode : r.exitCode,
      };
    }
  }
  // The sandbox's folder is new each run: shown as the shell would abbreviate HOME, and pi's folder name for the
  // working directory as the one for ~/work.
  const tidy = (s: string) => s.replaceAll(cwdFolderName(where.work), "--HOME-work--").replaceAll(where.home, "~");
  return { stdout: tidy(r.stdout), stderr: tidy(r.stderr), exitCode: r.exitCode };
}

/** The examples whose JSON output was checked against its schema in this run. */
const validatedExamples = new Set<string>();

describe.skipIf(!hasBash)("README and docs examples: snapshots (test/snapshots/*.md)", () => {
  const all = examples();
  const wanted = new Map([...all].map(([line, from]) => [scenarioName(line), { line, from }]));

  it("there are examples", () => {
    expect(all.size).toBeGreaterThan(40);
  });

  it("every snapshot file belongs to an example", () => {
    const files = readdirSync(SNAPSHOTS).filter((f) => f.endsWith(".md") && f !== "README.md");
    const orphans = files.filter((f) => !wanted.has(f));
    if (UPDATE) for (const f of orphans) rmSync(join(SNAPSHOTS, f));
    else expect(orphans, "snapshots no example has any more: npm run test:update removes them").toEqual([]);
  });

  for (const [name, { line, from }] of wanted) {
    const skip = needsJq(line) && !hasJq;
    it.skipIf(skip)(
      line,
      async () => {
        const r = await run(line);
        const path = join(SNAPSHOTS, name);
        const got: Scenario = { command: line, from, ...r };
        if (UPDATE) writeFileSync(path, formatScenario(got));
        expect(existsSync(path), `${relative(ROOT, path)} is missing: npm run test:update writes it`).toBe(true);
        const want = parseScenario(readFileSync(path, "utf8"));
        expect(got).toEqual(want);
        // 0 ok, 1 findings/differences/no match (the documented meanings).
        expect([0, 1], `${line}\nstderr: ${r.stderr}`).toContain(r.exitCode);
        expect(r.stderr).not.toMatch(/^pisess: (?!warning:)/m);
        expect(r.stderr).not.toMatch(/jq: error|command not found/);
        // An example that pipes into jq shows what it finds: on files where it finds something.
        const nothing = new Set(["", "null", "0", "[]", "{}"]);
        if (needsJq(line))
          expect(
            r.stdout.split("\n").filter((l) => !nothing.has(l.trim())),
            "prints nothing",
          ).not.toEqual([]);
      },
      2 * LINE_TIMEOUT_MS,
    );
  }

  // Last (vitest runs a file's tests in order): the JSON examples above were validated, not skipped.
  it.skipIf(!hasJq)("the examples' JSON outputs were validated against their schemas", () => {
    expect(validatedExamples.size).toBeGreaterThan(20);
  });
});

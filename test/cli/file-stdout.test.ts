import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, fixture, ROOT } from "../support/helpers.js";

// With stdout a regular file or /dev/null, the CLI writes it without Node's process.stdout (src/commands/run-state.ts
// FileStdout): the same bytes and exit status as through a pipe, without making Node's process.stdout (a stream).
const dir = mkdtempSync(join(tmpdir(), "pisess-file-stdout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Preloaded: at exit, writes to stderr whether the run made process.stdout (Node makes it on first read).
const PRELOAD = join(dir, "stdout-made.cjs");
writeFileSync(
  PRELOAD,
  `let made = false;
const own = Object.getOwnPropertyDescriptor(process, "stdout");
Object.defineProperty(process, "stdout", { ...own, get() { made = true; return own.get.call(process); } });
process.on("exit", () => require("node:fs").writeSync(2, "STDOUT " + made + "\\n"));\n`,
);

const ENV: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
delete ENV.NODE_EXTRA_CA_CERTS;

interface Run {
  code: number;
  stdout: Buffer;
  stderr: string;
}

const runs = new Map<string, Run>();

/**
 * The binary with stdout a pipe (`to` undefined) or the file `to` (opened for writing, truncated). Run once for
 * each arguments and target: the tests that check the same run read it from there.
 */
function run(args: string[], to?: string): Run {
  const key = JSON.stringify([args, to ?? null]);
  let r = runs.get(key);
  if (r === undefined) {
    r = spawnRun(args, to);
    runs.set(key, r);
  }
  return r;
}

function spawnRun(args: string[], to?: string): Run {
  const fd = to === undefined ? undefined : openSync(to, "w");
  try {
    const r = spawnSync(process.execPath, ["--require", PRELOAD, BIN, ...args], {
      env: ENV,
      stdio: ["ignore", fd ?? "pipe", "pipe"],
    });
    const stdout = to === undefined ? r.stdout : to === "/dev/null" ? Buffer.alloc(0) : readFileSync(to);
    return { code: r.status ?? -1, stdout, stderr: r.stderr.toString("utf8") };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const stdoutMade = (r: Run): boolean => /^STDOUT true$/m.test(r.stderr);
const withoutTrace = (stderr: string): string => stderr.replace(/^STDOUT (true|false)\n/m, "");

describe("stdout to a file", () => {
  const file = fixture("context", "edits.jsonl");
  const cases: string[][] = [
    ["context", file, "--json"],
    ["context", file],
    ["context", fixture("context", "control-chars.jsonl"), "--json"],
    ["path", file, "--ndjson"],
    ["tree", file],
    ["validate", fixture("context", "cycle.jsonl")],
    ["show", file, "nope"],
  ];

  it.each(cases)("%s %s %s: the bytes and exit status of a run through a pipe", (...args) => {
    const piped = run(args);
    expect(stdoutMade(piped)).toBe(true);
    const out = join(dir, "out");
    const filed = run(args, out);
    expect(filed.code).toBe(piped.code);
    expect(filed.stdout.equals(piped.stdout)).toBe(true);
    expect(withoutTrace(filed.stderr)).toBe(withoutTrace(piped.stderr));
  });

  it("a run without problems never makes process.stdout, to a file or to /dev/null", () => {
    // To a file: the run the case above made.
    for (const to of [join(dir, "out"), "/dev/null"]) {
      const r = run(["context", fixture("context", "control-chars.jsonl"), "--json"], to);
      expect(r.code).toBe(0);
      expect(stdoutMade(r)).toBe(false);
    }
  });

  it("from a folder whose name holds a dot (mktemp's tmp.XXXX), too: the same output and exit status", () => {
    // The project seen through a dotted name; Node keeps that name for the binary (--preserve-symlinks-main), as for a
    // clone in such a folder. yargs once took the folder for a file and looked for package.json from the one above.
    const dotted = join(dir, "clone.d0t");
    symlinkSync(ROOT, dotted);
    const args = ["tree", fixture("tree", "branched.jsonl")];
    const r = spawnSync(process.execPath, ["--preserve-symlinks", "--preserve-symlinks-main", join(dotted, "bin", "pisess.js"), ...args], {
      env: ENV,
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(r.status).toBe(0);
    expect(r.stderr.toString("utf8")).toBe("");
    expect(r.stdout.equals(run(args).stdout)).toBe(true);
  });

  it("output appended to a file follows what the file held", () => {
    const out = join(dir, "appended");
    writeFileSync(out, "before\n");
    const fd = openSync(out, "a");
    try {
      const r = spawnSync(process.execPath, [BIN, "path", file, "--ndjson"], { env: ENV, stdio: ["ignore", fd, "pipe"] });
      expect(r.status).toBe(0);
    } finally {
      closeSync(fd);
    }
    const piped = run(["path", file, "--ndjson"]);
    expect(readFileSync(out, "utf8")).toBe(`before\n${piped.stdout.toString("utf8")}`);
  });
});

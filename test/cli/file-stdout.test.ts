import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, fixture, ROOT } from "../support/helpers.js";

// With stdout a regular file or /dev/null, the CLI writes it without Node's process.stdout (src/commands/run-state.ts
// FileStdout): the same bytes and exit status as through a pipe, without loading Node's stream modules.
const dir = mkdtempSync(join(tmpdir(), "pisess-file-stdout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Preloaded: at exit, writes to stderr whether Node's stream modules were loaded.
const PRELOAD = join(dir, "streams.cjs");
writeFileSync(
  PRELOAD,
  `process.on("exit", () => require("node:fs").writeSync(2, "STREAMS " + process.moduleLoadList.includes("NativeModule stream") + "\\n"));\n`,
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

const streamsLoaded = (r: Run): boolean => /^STREAMS true$/m.test(r.stderr);
const withoutTrace = (stderr: string): string => stderr.replace(/^STREAMS (true|false)\n/m, "");

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
    expect(streamsLoaded(piped)).toBe(true);
    const out = join(dir, "out");
    const filed = run(args, out);
    expect(filed.code).toBe(piped.code);
    expect(filed.stdout.equals(piped.stdout)).toBe(true);
    expect(withoutTrace(filed.stderr)).toBe(withoutTrace(piped.stderr));
  });

  it("a run without problems loads none of Node's stream modules, to a file or to /dev/null", () => {
    // To a file: the run the case above made.
    for (const to of [join(dir, "out"), "/dev/null"]) {
      const r = run(["context", fixture("context", "control-chars.jsonl"), "--json"], to);
      expect(r.code).toBe(0);
      expect(streamsLoaded(r)).toBe(false);
    }
  });

  it("from a folder whose name holds a dot (mktemp's tmp.XXXX), too: yargs finds package.json, loads no node:assert", () => {
    // The project seen through a dotted name; Node keeps that name for the binary (--preserve-symlinks-main), as for a
    // clone in such a folder. yargs took the folder for a file and looked for package.json from the one above.
    const dotted = join(dir, "clone.d0t");
    symlinkSync(ROOT, dotted);
    const trace = join(dir, "assert.cjs");
    writeFileSync(
      trace,
      `process.on("exit", () => require("node:fs").writeSync(2, "ASSERT " + process.moduleLoadList.includes("NativeModule assert") + "\\n"));\n`,
    );
    const r = spawnSync(
      process.execPath,
      [
        "--preserve-symlinks",
        "--preserve-symlinks-main",
        "--require",
        trace,
        join(dotted, "bin", "pisess.js"),
        "tree",
        fixture("tree", "branched.jsonl"),
      ],
      { env: ENV, stdio: ["ignore", "ignore", "pipe"] },
    );
    expect(r.status).toBe(0);
    expect(r.stderr.toString("utf8")).toBe("ASSERT false\n");
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

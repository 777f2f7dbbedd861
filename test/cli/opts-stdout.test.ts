import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, fixture, ROOT } from "../support/helpers.js";

// Issue 32, item 8: a write error on stdout (`> /dev/full`) printed an uncaught ENOSPC trace with kilobytes of
// bundle source and exited 1 ("findings"). Now: one line on stderr, exit 2, for every command, --help and --version.
const F = fixture("tree", "branched.jsonl");
const dir = mkdtempSync(join(tmpdir(), "pisess-opts-stdout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINE = "pisess: cannot write the output: no space left on device\n";

function toDevFull(args: string[]): { code: number; stderr: string } {
  const fd = openSync("/dev/full", "w");
  try {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", fd, "pipe"],
      encoding: "utf8",
    });
    return { code: r.status ?? -1, stderr: r.stderr };
  } finally {
    closeSync(fd);
  }
}

const RUNS: string[][] = [
  ["--version"],
  ["--help"],
  ["tree", "--help"],
  ["tree", F],
  ["path", F],
  ["context", F],
  ["info", F, "--json"],
  ["leaves", F],
  ["labels", F],
  ["show", F, "@2"],
  ["bloat", F],
  ["compactions", F],
  ["validate", F],
  ["diff", F, "--leaves"],
  ["export", F, "--format", "markdown"],
  ["lineage", F],
  ["grep", "loader", F],
  ["usage", F],
  ["follow", F, "--from-start", "--until-idle", "0.2"],
  ["schema"],
  ["tables", F, "--out", join(dir, "t"), "--format", "ndjson"],
  ["sql", "select 1", F],
  ["completion"],
];

describe.skipIf(!existsSync("/dev/full"))("stdout on a full device", () => {
  for (const args of RUNS)
    it(`pisess ${args.map((a) => a.replace(ROOT, ".")).join(" ")}: one line, exit 2`, () => {
      const r = toDevFull(args);
      expect(r.stderr).toBe(LINE);
      expect(r.code).toBe(2);
    });
});

describe("a write that throws (stdout a full regular file, written without Node's stream)", () => {
  it("one line, exit 2, no stack", async () => {
    const { main, withRunIo } = await import("../../src/cli.js");
    let err = "";
    // As io/file-stdout.ts's FileStdout: writeSync throws where the write is made and the error is kept.
    const stdout = {
      isTTY: false,
      columns: undefined,
      errored: null as Error | null,
      write(): boolean {
        const e = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write" });
        this.errored ??= e;
        throw e;
      },
      on() {
        return this;
      },
      off() {
        return this;
      },
    };
    const stderr = new Writable({
      write(chunk, _enc, cb) {
        err += String(chunk);
        cb();
      },
    });
    const code = await withRunIo(
      {
        stdin: process.stdin,
        stdout: stdout as unknown as NodeJS.WriteStream,
        stderr: stderr as unknown as NodeJS.WriteStream,
        env: { ...process.env, NO_COLOR: "1" },
        cwd: () => ROOT,
      },
      () => main(["tree", F]),
    );
    expect(err).toBe(LINE);
    expect(code).toBe(2);
  });
});

import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { terminalWidth } from "../../src/commands/common.js";
import { BIN, fixture } from "../support/helpers.js";

const stdout = process.stdout as { isTTY?: boolean; columns?: number };
const saved = { isTTY: stdout.isTTY, columns: stdout.columns };
afterEach(() => {
  stdout.isTTY = saved.isTTY;
  stdout.columns = saved.columns;
});

describe("terminalWidth", () => {
  it("a TTY's width; no cut when not a TTY, or when the terminal reports 0 columns (unknown)", () => {
    stdout.isTTY = true;
    stdout.columns = 80;
    expect(terminalWidth(undefined)).toBe(80);
    stdout.columns = 0;
    expect(terminalWidth(undefined)).toBeUndefined();
    stdout.columns = undefined;
    expect(terminalWidth(undefined)).toBeUndefined();
    stdout.isTTY = false;
    stdout.columns = 80;
    expect(terminalWidth(undefined)).toBeUndefined();
  });

  it("--width wins; --width 0 means no cut", () => {
    stdout.isTTY = true;
    stdout.columns = 80;
    expect(terminalWidth(30)).toBe(30);
    expect(terminalWidth(0)).toBeUndefined();
  });
});

// util-linux `script` gives the command a pty; `stty cols 0` makes it one without a size.
const haveScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

describe.skipIf(!haveScript)("tree and path on a pty that reports 0 columns", () => {
  for (const cmd of ["tree", "path"]) {
    it(cmd, () => {
      const line = `stty cols 0; "${process.execPath}" "${BIN}" ${cmd} "${fixture("tree", "branched.jsonl")}" --color never`;
      const r = spawnSync("script", ["-qc", line, "/dev/null"], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
      expect(r.status).toBe(0);
      // branched.jsonl: the leaf's user message is on every view of it.
      expect(r.stdout).toContain("b000000a [leaf] user: Now add tests");
      expect(r.stdout.split(/\r?\n/).filter((l) => l.trim() === "")).toHaveLength(1);
    });
  }
});

import { describe, expect, it } from "vitest";
import { spawnCli } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

// The CLI in process (cliOut: src/cli.ts main, output captured); the first case of each kind also spawns the binary.

// Issue "What a new user hit", item 6: every numeric option is checked (exit 2, one line naming the option and the
// accepted range); an option that takes a value does not silently fall back to its default without one.
const F = "fixtures/tree/branched.jsonl";

const bad: [args: string[], option: string, range: string][] = [
  [["tree", F, "--depth", "abc"], "--depth", "≥ 0"],
  [["tree", F, "--depth", "-1"], "--depth", "≥ 0"],
  [["tree", F, "--depth", "1.5"], "--depth", "≥ 0"],
  [["tree", F, "--width", "-5"], "--width", "≥ 0"],
  [["path", F, "--width", "-5"], "--width", "≥ 0"],
  [["diff", F, "--leaves", "--width", "-5"], "--width", "≥ 0"],
  [["validate", F, "--max-warnings", "-5"], "--max-warnings", "≥ -1"],
  [["validate", F, "--max-warnings", "x"], "--max-warnings", "≥ -1"],
  [["context", F, "--max-output", "-2"], "--max-output", "≥ 0"],
  [["grep", "x", F, "--context", "-1"], "--context", "≥ 0"],
  [["ls", F, "--limit", "-1"], "--limit", "≥ 0"],
];

describe("numeric options are checked", () => {
  for (const [args, option, range] of bad) {
    it(`${args.join(" ")}: exit 2, names ${option} and ${range}`, async () => {
      const r = args === bad[0]?.[0] ? spawnCli(args) : await cliOut(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      const first = r.stderr.split("\n")[0] ?? "";
      expect(first).toContain(option);
      expect(first).toContain(`whole number ${range}`);
    });
  }

  it("in-range values still work (depth 0, width 0, max-warnings -1)", async () => {
    expect((await cliOut(["tree", F, "--depth", "0"])).code).toBe(0);
    expect((await cliOut(["tree", F, "--width", "0"])).code).toBe(0);
    expect((await cliOut(["validate", F, "--max-warnings", "-1"])).code).toBe(0);
  });
});

describe("an option without its value is a usage error", () => {
  const missing = [
    ["path", F, "--leaf"],
    ["tree", F, "--leaf"],
    ["tree", F, "--from"],
    ["context", F, "--leaf"],
    ["tree", F, "--depth"],
  ];
  for (const args of missing) {
    it(args.join(" "), async () => {
      const r = args === missing[0] ? spawnCli(args) : await cliOut(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/^pisess: Not enough arguments following: (leaf|from|depth)\n/);
    });
  }
});

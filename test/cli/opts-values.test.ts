import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixture, spawnCli } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

const F = fixture("tree", "branched.jsonl");
const dir = mkdtempSync(join(tmpdir(), "pisess-opts-values-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Issue 26, item 9: an empty value for a numeric option was taken as 0 (yargs reads it with Number(), which also
// takes "0x10" as 16 and "1e1" as 10). Every numeric option of every command: exit 2, one line naming it.
const EMPTY: [args: string[], option: string][] = [
  [["tree", F, "--depth", ""], "--depth"],
  [["tree", F, "--width", ""], "--width"],
  [["tree", F, "--width="], "--width"],
  [["path", F, "--width", ""], "--width"],
  [["diff", F, "--leaves", "--width", ""], "--width"],
  [["validate", F, "--max-warnings", ""], "--max-warnings"],
  [["context", F, "--max-output", ""], "--max-output"],
  [["grep", "x", F, "--context", ""], "--context"],
  [["ls", F, "--limit", ""], "--limit"],
  [["ls", F, "-n", ""], "--limit"],
  [["bloat", F, "--top", ""], "--top"],
  [["follow", F, "--width", ""], "--width"],
  [["follow", F, "--until-idle", ""], "--until-idle"],
];

describe("an empty numeric value is refused", () => {
  for (const [args, option] of EMPTY)
    it(`${args.slice(0, 1).concat(args.slice(2)).join(" ")}: exit 2 naming ${option}`, async () => {
      const r = args === EMPTY[0]?.[0] ? spawnCli(args) : await cliOut(args);
      expect(r.stdout).toBe("");
      expect(r.stderr.split("\n")[0]).toContain(`pisess: ${option} takes a`);
      expect(r.code).toBe(2);
    });
});

describe("numbers are decimal digits only", () => {
  for (const v of ["0x10", "1e1", " 1", "1 ", "+1", "0b1", "Infinity"])
    it(`--depth ${JSON.stringify(v)}: exit 2`, async () => {
      const r = await cliOut(["tree", F, "--depth", v]);
      expect(r.stderr).toBe("pisess: --depth takes a whole number ≥ 0\n");
      expect(r.code).toBe(2);
    });

  it("plain values still work: --depth 0, --max-warnings -1, --until-idle 0.2, defaults", async () => {
    expect((await cliOut(["tree", F, "--depth", "0"])).code).toBe(0);
    expect((await cliOut(["validate", F, "--max-warnings", "-1"])).code).toBe(0);
    expect((await cliOut(["bloat", F])).code).toBe(0);
    expect((await cliOut(["grep", "loader", F])).code).toBe(0);
    const idle = await cliOut(["follow", F, "--from-start", "--until-idle", "0.2"]);
    expect(idle.code).toBe(0);
    expect(idle.stdout).toContain("Fix the parser");
  });
});

// Issue 26, item 8: an array option took the operands after it as more values (`usage --by leaf FILE` read FILE as
// a second --by key). Every option with several values takes one value each time it is given (or a comma list).
describe("options with several values leave the operands alone", () => {
  it("usage --by leaf FILE: FILE is the target", async () => {
    const r = await cliOut(["usage", "--by", "leaf", F, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { by: string[]; rows: unknown[] };
    expect(doc.by).toEqual(["leaf"]);
    expect(doc.rows).toHaveLength(2);
  });

  it("usage --by day,model --by leaf: a comma list, repeated", async () => {
    const r = await cliOut(["usage", "--by", "day,model", "--by", "leaf", F, "--json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { by: string[] }).by).toEqual(["day", "model", "leaf"]);
  });

  it("tree --search WORD FILE: FILE is the operand; repeated --search words all must match", async () => {
    const one = await cliOut(["tree", "--search", "loader", F]);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe("• b0000006 user: Let me rephrase: fix the loader\n• b0000007 assistant: Done with the loader.\n");
    const two = await cliOut(["tree", "--search", "loader", "--search", "done", F]);
    expect(two.stdout).toBe("• b0000007 assistant: Done with the loader.\n");
  });

  it("grep --role user PATTERN FILE and lineage --forks-in DIR FILE", async () => {
    const g = await cliOut(["grep", "--role", "user", "loader", F, "--json"]);
    expect(g.code).toBe(0);
    expect(g.stdout).toContain("fix the loader");
    const l = await cliOut(["lineage", "--forks-in", dir, F]);
    expect(l.code).toBe(0);
  });
});

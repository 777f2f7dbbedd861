import { describe, expect, it } from "vitest";
import { runCli } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

// Issue "What a new user hit", item 8: one count and one wording of a session's problems, from the diagnostics.

/** "FILE: N problems (E errors, W warnings) found while reading; pisess validate FILE checks more" → numbers. */
function readingLine(stderr: string, file: string): { total: number; error: number; warning: number } {
  const m = new RegExp(
    `^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: (\\d+) problems? \\((\\d+) errors?, (\\d+) warnings?\\) found while reading; pisess validate \\S+ checks more$`,
    "m",
  ).exec(stderr);
  if (!m) throw new Error(`no problem line in: ${stderr}`);
  return { total: Number(m[1]), error: Number(m[2]), warning: Number(m[3]) };
}

describe("one count, one wording", () => {
  for (const file of ["fixtures/corpus/gen-v3-faults.jsonl", "fixtures/tree/broken-links.jsonl", "fixtures/newuser/warnings-only.jsonl"]) {
    it(`${file}: tree, path, info and ls agree; validate finds at least as many, worded alike (CLI in process)`, async () => {
      const tree = readingLine((await cliOut(["tree", file])).stderr, file);
      expect(tree.total).toBe(tree.error + tree.warning);
      expect(readingLine((await cliOut(["path", file])).stderr, file)).toEqual(tree);
      const info = await cliOut(["info", file]);
      expect(readingLine(info.stderr, file)).toEqual(tree);
      expect(info.stdout).toContain(`problems    ${tree.total} problem${tree.total === 1 ? "" : "s"} (${tree.error} error`);
      const infoJson = JSON.parse((await cliOut(["info", file, "--json"])).stdout);
      expect(infoJson.problems).toBe(tree.total);
      expect(infoJson.problemsBySeverity).toEqual({ error: tree.error, warning: tree.warning });
      const ls = JSON.parse((await cliOut(["ls", file, "--json"])).stdout);
      expect(ls.sessions[0].problems).toBe(tree.total);
      // validate reads the same diagnostics and checks more: never fewer of either severity.
      const v = JSON.parse((await cliOut(["validate", file, "--format", "json"])).stdout).summary;
      expect(v.error).toBeGreaterThanOrEqual(tree.error);
      expect(v.warning).toBeGreaterThanOrEqual(tree.warning);
      const text = (await cliOut(["validate", file])).stdout;
      expect(text).toMatch(/^\d+ problems? \(\d+ errors?, \d+ warnings?, \d+ info\) in 1 of 1 file$/m);
    });
  }

  it("validate --quiet --fail-on warning on a warnings-only file: exit 1, and no 'no problems'", async () => {
    const r = await runCli(["validate", "fixtures/newuser/warnings-only.jsonl", "--quiet", "--fail-on", "warning"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("no problems");
    expect(r.stdout).toContain("1 warning not shown: --quiet");
  });
});

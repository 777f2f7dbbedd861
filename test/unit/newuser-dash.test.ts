import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixture, runCli } from "../support/helpers.js";

// Issue "What a new user hit", item 2: "-" is stdin only where a command documents a file operand.
const F = "fixtures/tree/branched.jsonl";
const text = readFileSync(fixture("tree", "branched.jsonl"), "utf8");

function noMarker(r: { stdout: string; stderr: string }): void {
  expect(r.stderr).not.toContain("\u0000");
  expect(r.stdout).not.toContain("\u0000");
  expect(r.stderr).not.toMatch(/must be a string|ERR_|null bytes/);
}

describe('"-" as stdin, only for documented file operands', () => {
  it("diff FILE - compares the file with stdin (documented)", async () => {
    const r = await runCli(["diff", F, "-"], { input: text });
    noMarker(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("right: - @");
  });

  it("tree - reads stdin", async () => {
    const r = await runCli(["tree", "-", "--json"], { input: text });
    noMarker(r);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).entries.length).toBe(text.trim().split("\n").length - 1);
  });

  it("validate - reads stdin and names it -", async () => {
    const r = await runCli(["validate", "-", "--format", "json"], { input: text });
    noMarker(r);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).files[0].file).toBe("-");
  });

  it("grep - FILE searches for a hyphen", async () => {
    const r = await runCli(["grep", "-", F, "--ndjson"]);
    noMarker(r);
    expect(r.code).toBe(0);
    const hits = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { snippet: string });
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(h.snippet).toContain("-");
  });

  it("grep x - : a target named -, an ordinary path (grep documents no stdin)", async () => {
    const r = await runCli(["grep", "x", "-"], { input: text });
    noMarker(r);
    expect(r.stderr).toBe("pisess: -: no such file\n");
  });

  it("lineage - and ls - : an ordinary path", async () => {
    for (const args of [
      ["lineage", "-"],
      ["ls", "-"],
    ]) {
      const r = await runCli(args, { input: text });
      noMarker(r);
      expect(r.stderr).toContain("pisess: -: no such file");
    }
  });

  it("tree FILE --leaf - : an ordinary reference", async () => {
    const r = await runCli(["tree", F, "--leaf", "-"]);
    noMarker(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no entry matches "-"');
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, spawnCli } from "../support/helpers.js";

// Issue "What a new user hit", item 7: a mistyped or empty folder must not pass CI as "no problems".
const empty = mkdtempSync(join(tmpdir(), "pisess-empty-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe("validate: inputs that hold no session file", () => {
  it("an empty folder: exit 2, says so, no 'no problems'", async () => {
    const r = await runCli(["validate", empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`pisess: ${empty}: no session files under this folder (--allow-empty accepts that)\n`);
    expect(r.stdout).not.toContain("no problems");
  });

  it("an empty folder with --allow-empty: exit 0, a note", async () => {
    const r = await runCli(["validate", empty, "--allow-empty"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("no session files under this folder");
  });

  it("an empty folder, --format json: the folder is an input error", async () => {
    const r = await runCli(["validate", empty, "--format", "json"]);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout) as { summary: { ioErrors: number } };
    expect(doc.summary.ioErrors).toBe(1);
  });

  it("a missing path: exit 2, and no 'no problems'", async () => {
    const r = await runCli(["validate", "no/such/dir"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no/such/dir: no such file");
    expect(r.stdout).not.toContain("no problems");
  });
});

describe("lineage --forks-in a folder that is not there", () => {
  it("warns on stderr and lists it in the JSON", async () => {
    const r = spawnCli(["lineage", "fixtures/tree/branched.jsonl", "--forks-in", "/nonexistent-pisess", "--json"]);
    expect(r.stderr).toContain("warning: --forks-in /nonexistent-pisess: no such file");
    expect(JSON.parse(r.stdout).unsearched).toEqual([{ path: "/nonexistent-pisess", reason: "no such file" }]);
  });
});

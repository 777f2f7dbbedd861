import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { expectGolden } from "../support/golden.js";
import { fingerprint, fixture, runCli, type FileFingerprint, spawnCli } from "../support/helpers.js";
import { diffJsonOut, diffOut } from "../support/inproc.js";

// Relative paths keep the output the same on every machine (the CLI runs in the repository root).
const F = (name: string) => `fixtures/diff/${name}`;

const files = readdirSync(fixture("diff")).filter((f) => f.endsWith(".jsonl"));
let before: FileFingerprint[] = [];
beforeAll(() => {
  before = files.map((f) => fingerprint(fixture("diff", f)));
});
afterAll(() => {
  // Read-only: every fixture keeps its bytes and its mtime.
  expect(files.map((f) => fingerprint(fixture("diff", f)))).toEqual(before);
});

function json(stdout: string): Record<string, any> {
  return JSON.parse(stdout) as Record<string, any>;
}

describe("pisess diff FILE A B", () => {
  it("sibling branches: text (golden), exit 1", async () => {
    const r = spawnCli(["diff", F("branches.jsonl"), "label:try-a", "leaf"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    expectGolden("diff-branches.txt", r.stdout);
  });

  it("side by side (golden, in process)", async () => {
    const r = await diffOut(F("branches.jsonl"), { a: "label:try-a", b: "leaf", sideBySide: true, width: 120 });
    expect(r.code).toBe(1);
    expectGolden("diff-branches-side-by-side.txt", r.stdout);
  });

  it("side by side falls back to unified when too narrow", async () => {
    const narrow = await runCli(["diff", F("branches.jsonl"), "label:try-a", "leaf", "--side-by-side", "--width", "60"]);
    expect(narrow.stdout).toContain("re-asked prompt:");
    expect(narrow.stdout).not.toContain(" │ @");
  });

  it("JSON shape (in process, the renderer the command uses)", async () => {
    const r = await diffJsonOut(F("branches.jsonl"), { a: "label:try-a", b: "leaf" });
    expect(r.code).toBe(1);
    const o = json(r.stdout);
    expect(o.base).toEqual({ id: "a0000005", line: 6 });
    expect(o.left.leaf).toEqual({ id: "b0000005", line: 11 });
    expect(o.left.entries[0]).toEqual({ id: "b0000001", line: 7, type: "message", role: "user" });
    expect(o.right.entries.map((e: { line: number }) => e.line)).toEqual([13, 14, 15, 16]);
    expect(o.reask).toEqual({ left: { id: "b0000001", line: 7 }, right: { id: "c0000001", line: 13 }, sameText: false });
    expect(o.left.stats.toolCalls).toEqual({ bash: 1, edit: 1 });
    expect(o.right.stats.files).toEqual({ read: [], changed: ["test/app.test.ts"] });
  });

  it("a leaf against its ancestor: one side empty (in process)", async () => {
    const r = await diffJsonOut(F("branches.jsonl"), { a: "a0000005", b: "label:try-a" });
    expect(r.code).toBe(1);
    const o = json(r.stdout);
    expect(o.left.entries).toEqual([]);
    expect(o.right.entries).toHaveLength(5);
    expect(o.reask).toBeNull();
  });

  it("the same path: exit 0 (in process)", async () => {
    const r = await diffOut(F("branches.jsonl"), { a: "@11", b: "label:try-a" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("the two paths are the same");
  });

  it("FILE A: A against the active leaf (in process)", async () => {
    const r = await diffJsonOut(F("branches.jsonl"), { a: "label:try-a" });
    expect(r.code).toBe(1);
    const o = json(r.stdout);
    expect(o.left.leaf.line).toBe(16);
    expect(o.right.leaf.line).toBe(11);
  });

  it("two roots: base null", async () => {
    const r = await diffJsonOut(F("two-roots.jsonl"), { a: "@3", b: "@5" });
    expect(r.code).toBe(1);
    expect(json(r.stdout).base).toBeNull();
    const t = await diffOut(F("two-roots.jsonl"), { a: "@3", b: "@5" });
    expect(t.stdout).toContain("fork point: none (the paths share no entries)");
  });

  it("a path into a parent cycle: exit 1 (a finding), the parent-cycle diagnostic", async () => {
    const r = await runCli(["diff", F("cycle.jsonl"), "@6", "leaf"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/:4: error parent-cycle: parent cycle through lines 4, 5;/);
  });

  it("bad references and usage: exit 2", async () => {
    // The report's errors in process (ReportError: exit 2, printed as the missing file's below).
    await expect(diffOut(F("branches.jsonl"), { a: "zzz", b: "leaf" })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('no entry matches "zzz"'),
    });
    await expect(diffOut(F("branches.jsonl"))).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining("--leaves") });
    const missing = await runCli(["diff", "fixtures/diff/nope.jsonl", "@1", "@2"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file");
  });

  it("session text is sanitized", async () => {
    const input =
      '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n' +
      '{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}\n' +
      '{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"evil \\u001b[31mred\\u0007"}}\n' +
      '{"type":"message","id":"aaaa0003","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"ok"}}\n';
    const r = await runCli(["diff", "-", "@3", "@4"], { input });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("\u001b");
    expect(r.stdout).not.toContain("\u0007");
    expect(r.stdout).toContain("evil \\x1b[31mred\\x07");
  });
});

describe("pisess diff FILE --leaves", () => {
  it("every leaf against the active path (golden; the in-process runner writes the same)", async () => {
    const r = await runCli(["diff", F("compaction.jsonl"), "--leaves"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    expectGolden("diff-leaves-compaction.txt", r.stdout);
    expect((await diffOut(F("compaction.jsonl"), { leaves: true })).stdout).toBe(r.stdout);
  });

  it("JSON: one document with every pair (in process)", async () => {
    const r = await diffOut(F("branches.jsonl"), { leaves: true, json: true });
    expect(r.code).toBe(1);
    const o = json(r.stdout);
    expect(o.active).toEqual({ id: "c0000004", line: 16 });
    expect(o.diffs).toHaveLength(1);
    expect(o.diffs[0].right.leaf).toEqual({ id: "b0000006", line: 12 });
    expect(o.diffs[0].base).toEqual({ id: "a0000005", line: 6 });
  });

  it("a leaf below a cycle is reported (parent-cycle) and the exit code is 1", async () => {
    const r = await runCli(["diff", F("cycle.jsonl"), "--leaves", "--json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/:4: error parent-cycle: parent cycle through lines 4, 5;/);
    expect(json(r.stdout).diffs).toEqual([{ leaf: { id: "60000006", line: 6 }, error: "cycle", cycle: [5, 4] }]);
  });

  it("one leaf only: exit 0 (in process)", async () => {
    const r = await diffOut(F("unrelated-a.jsonl"), { leaves: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("only one leaf: nothing to compare\n");
  });
});

describe("pisess diff FILE1 FILE2", () => {
  it("a fork and its parent (golden)", async () => {
    const r = await runCli(["diff", F("fork-child.jsonl"), F("fork-parent.jsonl")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    expectGolden("diff-fork.txt", r.stdout);
  });

  // Through the CLI, and byte for byte what the in-process tests above render.
  it("a fork and its parent: JSON with files and lineage", async () => {
    const r = await runCli(["diff", F("fork-parent.jsonl"), F("fork-child.jsonl"), "--json"]);
    expect(r.stdout).toBe((await diffJsonOut(F("fork-parent.jsonl"), { a: F("fork-child.jsonl") })).stdout);
    const o = json(r.stdout);
    expect(o.align).toBe("id");
    expect(o.lineage).toMatchObject({ relation: "right-forked-from-left", matchedBy: "basename", rightParent: { field: "parentSession" } });
    expect(o.base).toEqual({ id: "f0000004", line: 5, right: { id: "f0000004", line: 5 } });
    expect(o.left.file).toBe(F("fork-parent.jsonl"));
    expect(o.right.file).toBe(F("fork-child.jsonl"));
  });

  it("two unrelated files: aligned by content, no lineage (in process)", async () => {
    const r = await diffJsonOut(F("unrelated-a.jsonl"), { a: F("unrelated-b.jsonl") });
    expect(r.code).toBe(1);
    const o = json(r.stdout);
    expect(o.align).toBe("content");
    expect(o.lineage.relation).toBe("none");
    expect(o.base).toEqual({ id: "11110003", line: 4, right: { id: "22220003", line: 4 } });
    expect(o.left.entries).toEqual([{ id: "11110004", line: 5, type: "message", role: "assistant" }]);
  });

  it("a file against itself: exit 0 (in process)", async () => {
    const r = await diffOut(F("branches.jsonl"), { a: F("branches.jsonl") });
    expect(r.code).toBe(0);
  });

  it("entry references after a second file are refused (in process)", async () => {
    await expect(diffOut(F("fork-child.jsonl"), { a: F("fork-parent.jsonl"), b: "leaf" })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining("takes no entry references"),
    });
  });
});

describe("pisess diff --context", () => {
  it("across a compaction (golden)", async () => {
    const r = await runCli(["diff", F("compaction.jsonl"), "@5", "@8", "--context"]);
    expect(r.code).toBe(1);
    expectGolden("diff-context-compaction.txt", r.stdout);
  });

  it("JSON: messages with their sources, shared ones marked (in process)", async () => {
    const r = await diffJsonOut(F("compaction.jsonl"), { a: "@5", b: "@8", context: true });
    const o = json(r.stdout);
    expect(o.mode).toBe("context");
    expect(o.base).toBeNull();
    expect(o.right.compaction).toEqual({ id: "70000005", line: 6 });
    expect(o.right.keptFrom).toEqual({ id: "70000003", line: 4 });
    expect(o.right.entries[0]).toEqual({ index: 0, role: "compactionSummary", source: { id: "70000005", line: 6, type: "compaction" } });
    expect(o.right.entries[1]).toMatchObject({ index: 1, role: "user", shared: true });
  });

  it("same context: exit 0 (in process)", async () => {
    const r = await diffOut(F("compaction.jsonl"), { a: "@8", b: "@8", context: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("the two contexts are the same");
  });
});

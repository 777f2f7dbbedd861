import { describe, expect, it } from "vitest";
import { corpus, fingerprint, fixture, runCli } from "../support/helpers.js";
import { contextJsonOut, showJsonOut, type TreeArgs, treeOut } from "../support/inproc.js";

const ndjson = (s: string) =>
  s
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("pi 1.6 entries through the CLI", () => {
  it("context --json names, for an edited message, the context_edit that shaped it", async () => {
    const f = fixture("context", "edits.jsonl");
    const before = fingerprint(f);
    const r = await runCli(["context", f, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { entries: Record<string, unknown>[]; messages: { content: unknown }[] };
    expect(doc.entries).toEqual([
      { id: "e0000001", line: 2, type: "message" },
      { id: "e0000002", line: 3, type: "message", edit: { id: "e0000006", line: 7 } },
      { id: "e0000003", line: 4, type: "message" },
      { id: "e0000004", line: 5, type: "message", edit: { id: "e0000008", line: 9 } },
      { id: "e0000009", line: 10, type: "message" },
    ]);
    expect(doc.messages[1]?.content).toBe("My API key is [redacted]. Why does the build fail?");
    const llm = JSON.parse((await contextJsonOut(f, { llm: true })).stdout) as { entries: Record<string, unknown>[] };
    expect(llm.entries[1]).toEqual({ id: "e0000002", line: 3, type: "message", edit: { id: "e0000006", line: 7 } });
    expect(fingerprint(f)).toEqual(before);
  });

  // The tree command itself is spawned in cli-tree.test.ts; here its report and renderers, in-process.
  it("tree shows context edits as pi's /tree does and never shows usage entries under a filter", async () => {
    const f = corpus("pi16-written.jsonl");
    const all = await treeOut(f, { filter: "all", width: 200 });
    expect(all.stdout).toMatch(/\[context omit: cb279bd9\]/);
    expect(all.stdout).toMatch(/\[context replace: 68ce6e4d\] \[test output elided: 40 passed\]/);
    expect(all.stdout).toMatch(/\[system\]/);
    const types = async (a: TreeArgs) => ndjson((await treeOut(f, { output: "ndjson", ...a })).stdout).map((o) => o.type);
    const allTypes = await types({ filter: "all" });
    expect(allTypes).not.toContain("usage");
    expect(allTypes).toContain("context_edit");
    expect(await types({})).not.toContain("context_edit");
    // Without a filter (--json) every entry is there.
    const doc = (await treeOut(f, { output: "json" })).stdout;
    expect(doc).toContain('"type":"usage"');
    const found = ndjson((await treeOut(f, { output: "ndjson", filter: "all", search: ["context", "omit"] })).stdout).map((o) => o.line);
    expect(found).toEqual([14, 15, 29]);
  });

  it("show names a context edit's target, and every edit that names an entry", async () => {
    const f = corpus("pi16-written.jsonl");
    const edit = JSON.parse((await showJsonOut(f, "@14")).stdout) as Record<string, unknown>;
    expect(edit.target).toEqual({ id: "cb279bd9", line: 12 });
    const edited = JSON.parse((await runCli(["show", f, "@18", "--json"])).stdout) as Record<string, unknown>;
    expect(edited.editedBy).toEqual([
      { id: "e451addf", line: 20 },
      { id: "dabf28ac", line: 29 },
    ]);
    expect((await runCli(["show", f, "@18"])).stdout).toMatch(/^edited by e451addf @20, dabf28ac @29$/m);
  });

  it("diff --context compares the edited contexts", async () => {
    const r = await runCli(["diff", fixture("context", "edits.jsonl"), "@6", "@10", "--context", "--width", "200"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^- #1 @3 e0000002 user: My API key is sk-live-1234/m);
    expect(r.stdout).toMatch(/^\+ #1 @3 e0000002 user: My API key is \[redacted\]/m);
    expect(r.stdout).toMatch(/^\+ #3 @5 e0000004 toolResult: \[bash\] \[3 type errors, TS2322\]/m);
  });
});

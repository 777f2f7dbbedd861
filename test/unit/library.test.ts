import { readFileSync } from "node:fs";
import { createReadStream } from "node:fs";
import { describe, expect, it } from "vitest";
import { corpus, fixture, ROOT, expectedOf } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";

interface Lib {
  openSession: (input: unknown) => Promise<{ entries: { line: number }[]; defaultLeaf: { line: number } | null; store: { close(): void } }>;
  resolveRef: (s: unknown, ref: string) => { ok: boolean; rec?: unknown };
  pathTo: (s: unknown, rec: unknown) => { ok: boolean; path?: { line: number }[] };
  buildTree: (s: unknown) => { roots: unknown[] };
  buildContext: (
    s: unknown,
    path: unknown[],
    read: (r: unknown) => Record<string, unknown>,
  ) => { messages: unknown[]; thinkingLevel: string };
  convertToLlm: (m: unknown[]) => unknown[];
  readEntry: (s: unknown, r: unknown) => Record<string, unknown>;
  checkSession: (s: unknown) => { code: string }[];
}

describe("library entry point (built package)", async () => {
  const lib = (await import(`${ROOT}/dist/index.js`)) as Lib;
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { exports: Record<string, { import: string }> };

  it("is the package's main export", () => {
    expect(pkg.exports["."]?.import).toBe("./dist/index.js");
  });

  it("opens a file, resolves a reference, walks the path and builds pi's context", async () => {
    const s = await lib.openSession(corpus("gen-v3-branchy.jsonl"));
    const expected = expectedOf("gen-v3-branchy") as {
      leaves: { line: number; path: number[]; context: { messages: unknown[]; thinkingLevel: string }; llm: unknown[] }[];
    };
    const leaf = expected.leaves[0]!;
    const ref = lib.resolveRef(s, `@${leaf.line}`);
    expect(ref.ok).toBe(true);
    const p = lib.pathTo(s, ref.rec);
    expectEqual(
      p.path?.map((r) => r.line),
      leaf.path,
    );
    const ctx = lib.buildContext(s, p.path!, (r) => lib.readEntry(s, r));
    expectEqual(ctx.messages, leaf.context.messages);
    expectEqual(lib.convertToLlm(ctx.messages), leaf.llm);
    expect(lib.buildTree(s).roots.length).toBeGreaterThan(0);
    s.store.close();
  });

  it("opens a stream and validates it", async () => {
    const s = await lib.openSession(createReadStream(fixture("tree", "broken-links.jsonl")));
    expect(s.entries).toHaveLength(9);
    const codes = lib.checkSession(s).map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(["parent-cycle", "self-parent", "dangling-parent", "duplicate-id"]));
  });

  it("exports every command as a report returning {data, diagnostics, exitCode}", async () => {
    const all = lib as unknown as Record<string, unknown>;
    const names = [
      "treeReport",
      "pathReport",
      "contextReport",
      "diffReport",
      "lsReport",
      "infoReport",
      "leavesReport",
      "showReport",
      "labelsReport",
      "lineageReport",
      "grepReport",
      "validateReport",
      "schemaReport",
      "bloatReport",
      "compactionsReport",
      "budgetReport",
    ];
    for (const n of names) expect(typeof all[n], n).toBe("function");
    type R = { data: Record<string, unknown>; diagnostics: unknown[]; exitCode: number };
    const file = fixture("fork", "empty-parent-session.jsonl");
    const s = await lib.openSession(file);
    const info = await (all.infoReport as (s: unknown) => Promise<R>)(s);
    s.store.close();
    expect(info.exitCode).toBe(0);
    expect((info.data.header as { parentSession: string }).parentSession).toBe("p.jsonl");
    const env = { PI_CODING_AGENT_DIR: fixture("fork") };
    const ls = await (all.lsReport as (o: unknown) => Promise<R>)({ dirs: [file], env, cwd: "/" });
    expectEqual(
      (ls.data.sessions as { id: string }[]).map((x) => x.id),
      ["f0000000-0000-4000-8000-000000000001"],
    );
    const grep = await (all.grepReport as (o: unknown) => Promise<R>)({ pattern: "hello", targets: [file], env, cwd: "/" });
    expect(grep.exitCode).toBe(0);
    const v = await (all.validateReport as (o: unknown) => Promise<R>)({
      inputs: [fixture("validate", "dangling-parent.jsonl")],
      open: all.openFile,
    });
    expect(v.exitCode).toBe(1);
    expect(v.diagnostics.map((d) => (d as { code: string }).code)).toContain("dangling-parent");
  });
});

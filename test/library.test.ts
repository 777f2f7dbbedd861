import { readFileSync } from "node:fs";
import { createReadStream } from "node:fs";
import { describe, expect, it } from "vitest";
import { corpus, fixture, ROOT } from "./helpers.js";

interface Lib {
  openSession: (input: unknown) => Promise<{ entries: { line: number }[]; defaultLeaf: { line: number } | null; store: { close(): void } }>;
  resolveRef: (s: unknown, ref: string) => { ok: boolean; rec?: unknown };
  pathTo: (s: unknown, rec: unknown) => { ok: boolean; path?: { line: number }[] };
  buildTree: (s: unknown) => { roots: unknown[] };
  buildContext: (s: unknown, path: unknown[], read: (r: unknown) => Record<string, unknown>) => { messages: unknown[]; thinkingLevel: string };
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
    const expected = JSON.parse(readFileSync(corpus("gen-v3-branchy.expected.json"), "utf8")) as {
      leaves: { line: number; path: number[]; context: { messages: unknown[]; thinkingLevel: string }; llm: unknown[] }[];
    };
    const leaf = expected.leaves[0]!;
    const ref = lib.resolveRef(s, `@${leaf.line}`);
    expect(ref.ok).toBe(true);
    const p = lib.pathTo(s, ref.rec);
    expect(p.path?.map((r) => r.line)).toEqual(leaf.path);
    const ctx = lib.buildContext(s, p.path!, (r) => lib.readEntry(s, r));
    expect(ctx.messages).toEqual(leaf.context.messages);
    expect(lib.convertToLlm(ctx.messages)).toEqual(leaf.llm);
    expect(lib.buildTree(s).roots.length).toBeGreaterThan(0);
    s.store.close();
  });

  it("opens a stream and validates it", async () => {
    const s = await lib.openSession(createReadStream(fixture("tree", "broken-links.jsonl")));
    expect(s.entries).toHaveLength(9);
    const codes = lib.checkSession(s).map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(["parent-cycle", "self-parent", "dangling-parent", "duplicate-id"]));
  });
});

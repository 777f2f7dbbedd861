import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSession } from "../src/model/load.js";
import { buildTree } from "../src/ops/tree.js";
import { treeJson } from "../src/render/tree-json.js";
import { runCli } from "./helpers.js";

// Not timed: these only prove that extreme shapes load and render without recursion (no stack overflow).
// The timed versions of the same shapes are in the benchmark (bench/gen-shapes.mjs, npm run bench).

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const id = (i: number) => (0x10000000 + i).toString(16);

function writeShape(file: string, shape: "chain" | "siblings", n: number): void {
  const fd = openSync(file, "w");
  let buf = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: new Date(T0).toISOString(), cwd: "/" }) + "\n";
  for (let i = 0; i < n; i++) {
    const parentId = i === 0 ? null : shape === "chain" ? id(i - 1) : id(0);
    const ts = new Date(T0 + 1000 + Math.floor(i / (shape === "siblings" ? 3 : 1)) * 1000).toISOString();
    buf += `{"type":"message","id":"${id(i)}","parentId":${parentId === null ? "null" : `"${parentId}"`},"timestamp":"${ts}","message":{"role":"user","content":"p ${i}","timestamp":1}}\n`;
    if (buf.length > 1 << 20) {
      writeSync(fd, buf);
      buf = "";
    }
  }
  writeSync(fd, buf);
  closeSync(fd);
}

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pisess-scale-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("scale", () => {
  it("a 1,000,000-entry chain loads and renders tree --json without recursion", { timeout: 300_000 }, async () => {
    const file = join(dir, "chain.jsonl");
    const n = 1_000_000;
    writeShape(file, "chain", n);
    const session = await loadSession({ kind: "file", path: file });
    try {
      expect(session.entries.length).toBe(n);
      const tree = buildTree(session);
      expect(tree.roots.length).toBe(1);
      expect(tree.problems).toEqual([]);
      // what `tree --json` writes: every entry, getTree order (the command hands the tree itself to treeJson)
      let bytes = 0;
      let opens = 0;
      let closes = 0;
      let last = "";
      for (const chunk of treeJson(session, tree.roots, session.defaultLeaf)) {
        bytes += chunk.length;
        for (let i = chunk.indexOf('"children":['); i !== -1; i = chunk.indexOf('"children":[', i + 1)) opens++;
        for (let i = chunk.indexOf("]}"); i !== -1; i = chunk.indexOf("]}", i + 1)) closes++;
        last = chunk;
      }
      expect(opens).toBe(n);
      // every node closes, plus the document
      expect(closes).toBe(n + 1);
      expect(last.endsWith("]}\n")).toBe(true);
      expect(bytes).toBeGreaterThan(n * 50);
    } finally {
      session.store.close();
    }
  });

  it("a node with 100,000 children: tree --json through the CLI", { timeout: 300_000 }, () => {
    const file = join(dir, "siblings.jsonl");
    const n = 100_000;
    writeShape(file, "siblings", n);
    const r = runCli(["tree", file, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { roots: { id: string; children: { id: string; timestamp: string }[] }[] };
    expect(doc.roots.length).toBe(1);
    const kids = doc.roots[0]?.children ?? [];
    expect(kids.length).toBe(n - 1);
    // getTree order: by timestamp, ties in file order
    expect(kids.slice(0, 4).map((k) => k.id)).toEqual([id(1), id(2), id(3), id(4)]);
    for (let i = 1; i < kids.length; i++) expect((kids[i - 1] as { timestamp: string }).timestamp <= (kids[i] as { timestamp: string }).timestamp).toBe(true);
  });
});

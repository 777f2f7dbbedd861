import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { buildTree, flatTree } from "../../src/ops/tree.js";
import { treeJson, type TreeJsonDocument } from "../../src/render/tree-json.js";
import { BIN } from "../support/helpers.js";
import { treeOut } from "../support/inproc.js";

const haveJq = spawnSync("jq", ["--version"]).status === 0;

// Not timed: these only prove that extreme shapes load and render without recursion (no stack overflow).
// The timed versions of the same shapes are in the benchmark (bench/gen-shapes.mjs, npm run bench), the chain
// there with 1,000,000 entries. Here 50,000: several times the depth a recursive walk survives on Node's default
// stack (about 10,000 to 14,000 frames), and hundreds of times jq 1.6's nesting limit (256) for the old nested
// document.
const CHAIN = 50_000;

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const id = (i: number) => (0x10000000 + i).toString(16);

function writeShape(file: string, shape: "chain" | "siblings", n: number): void {
  const fd = openSync(file, "w");
  let buf = `${JSON.stringify({ type: "session", version: 3, id: "s", timestamp: new Date(T0).toISOString(), cwd: "/" })}\n`;
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
  it("a 50,000-entry chain loads and renders tree --json without recursion", { timeout: 300_000 }, async () => {
    const file = join(dir, "chain.jsonl");
    const n = CHAIN;
    writeShape(file, "chain", n);
    const session = await loadSession({ kind: "file", path: file });
    try {
      expect(session.entries.length).toBe(n);
      const tree = buildTree(session);
      expect(tree.roots.length).toBe(1);
      expect(tree.problems).toEqual([]);
      // what `tree --json` writes: every entry, in file order, in chunks
      let bytes = 0;
      let entries = 0;
      let biggest = 0;
      let last = "";
      for (const chunk of treeJson(session, flatTree(tree), session.defaultLeaf)) {
        bytes += chunk.length;
        biggest = Math.max(biggest, chunk.length);
        for (let i = chunk.indexOf('"parentLine":'); i !== -1; i = chunk.indexOf('"parentLine":', i + 1)) entries++;
        last = chunk;
      }
      expect(entries).toBe(n);
      // Streamed: no chunk holds more than a few entries past the 64 KiB mark.
      expect(biggest).toBeLessThan(1 << 17);
      // The document closes its entries array and itself: nothing is nested per entry.
      expect(last.endsWith(`"children":[]}]}\n`)).toBe(true);
      expect(bytes).toBeGreaterThan(n * 50);
    } finally {
      session.store.close();
    }
  });

  // In process (the tree command's report and renderer, test/inproc.ts): the CLI path is the jq test's.
  // 100,000 children: more than a spread into a call (f(...children)) survives.
  it("a node with 100,000 children: tree --json", { timeout: 300_000 }, async () => {
    const file = join(dir, "siblings.jsonl");
    const n = 100_000;
    writeShape(file, "siblings", n);
    const r = await treeOut(file, { output: "json" });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as TreeJsonDocument;
    expect(doc.roots).toEqual([2]);
    expect(doc.entries.length).toBe(n);
    const kids = doc.entries[0]?.children ?? [];
    expect(kids.length).toBe(n - 1);
    // getTree order: by timestamp, ties in file order (the writer gives three siblings each second)
    expect(kids.slice(0, 4)).toEqual([3, 4, 5, 6]);
    const ts = new Map(doc.entries.map((e) => [e.line, e.timestamp as string]));
    // One assertion, not one per child: the first child out of order, or -1.
    const unordered = kids.findIndex((k, i) => i > 0 && (ts.get(kids[i - 1] as number) as string) > (ts.get(k) as string));
    expect(unordered).toBe(-1);
    expect(doc.entries.every((e, i) => e.parentLine === (i === 0 ? null : 2))).toBe(true);
  });

  it.skipIf(!haveJq)("a 50,000-entry chain: tree --json parses in jq", { timeout: 300_000 }, () => {
    const file = join(dir, "chain.jsonl");
    if (!existsSync(file)) writeShape(file, "chain", CHAIN);
    // The nested document of old was a million levels deep (jq 1.6 stops at 256).
    const r = spawnSync(
      "sh",
      [
        "-c",
        '"$0" "$1" tree "$2" --json | jq -c "[.leaf.line, (.entries | length), .roots, .entries[-1].parentLine]"',
        process.execPath,
        BIN,
        file,
      ],
      { encoding: "utf8" },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(`[${CHAIN + 1},${CHAIN},[2],${CHAIN}]`);
  });
});

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { buildTree, flattenNodes, flatTree } from "../../src/ops/tree.js";
import { buildView } from "../../src/ops/view.js";
import { treeJson, type TreeJsonDocument, type TreeJsonEntry } from "../../src/render/tree-json.js";
import { corpus, fixture, piBogusLines, runCli, expectedOf } from "../support/helpers.js";
import { type TreeArgs, treeOut } from "../support/inproc.js";
import { expectEqual, expectSame } from "../support/expect-fast.js";

const files = readdirSync(corpus("")).filter((f) => f.endsWith(".jsonl"));

/** Nesting depth of a parsed JSON value (a scalar is 0, `[]` is 1), walked with a stack. */
function depth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    max = Math.max(max, d + 1);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** The document the command writes without filters (the skeleton loader, the whole tree). */
async function wholeDoc(path: string): Promise<{ text: string; doc: TreeJsonDocument }> {
  const s = await loadSession({ kind: "file", path }, { detail: "skeleton" });
  try {
    const text = [...treeJson(s, flatTree(buildTree(s)), s.defaultLeaf)].join("");
    return { text, doc: JSON.parse(text) as TreeJsonDocument };
  } finally {
    s.store.close();
  }
}

/** The links of a document must agree with each other: parentLine ⇔ listed among the parent's children. */
function expectConsistent(doc: TreeJsonDocument): void {
  const byLine = new Map(doc.entries.map((e) => [e.line, e]));
  expectSame(byLine.size, doc.entries.length, "entries with a line of their own");
  const lines = doc.entries.map((e) => e.line);
  expectEqual(
    lines,
    [...lines].sort((a, b) => a - b),
    "entries in line order",
  );
  for (const r of doc.roots) expectSame(byLine.get(r)?.parentLine, null, `root ${r} has no parent`);
  expectEqual(
    doc.entries.filter((e) => e.parentLine === null).map((e) => e.line),
    [...doc.roots].sort((a, b) => a - b),
    "roots",
  );
  for (const e of doc.entries) {
    for (const c of e.children) expectSame(byLine.get(c)?.parentLine, e.line, `parent of child ${c} of line ${e.line}`);
    const siblings = e.parentLine === null ? undefined : byLine.get(e.parentLine)?.children;
    if (e.parentLine !== null && !siblings?.includes(e.line))
      expect(siblings, `children of the parent of line ${e.line}`).toContain(e.line);
  }
}

interface PiNode {
  line: number;
  label?: string;
  children: PiNode[];
}
interface PiExpected {
  tree?: PiNode[];
  leaf: { id: string; line: number };
  /** v1: pi invents random ids where pisess derives `L<line>`. */
  idsSynthetic?: boolean;
  entries: { line: number; id?: string; parentId?: string | null; parentLine?: number | null; type: string; role?: string }[];
}

describe("tree --json: depth is constant whatever the session's shape", () => {
  for (const file of files) {
    it(file, async () => {
      const { doc } = await wholeDoc(corpus(file));
      expect(depth(doc)).toBeLessThanOrEqual(64);
      // document → entries → entry → children
      expect(depth(doc)).toBe(4);
    });
  }

  it("a chain of 20,000 entries, and the same filtered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pisess-tree-json-"));
    try {
      const path = join(dir, "chain.jsonl");
      const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}'];
      for (let i = 0; i < 20_000; i++) {
        const role = i % 2 === 0 ? "user" : "assistant";
        const content = role === "user" ? `"q${i}"` : `[{"type":"text","text":"a${i}"}]`;
        lines.push(
          `{"type":"message","id":"e${i}","parentId":${i === 0 ? "null" : `"e${i - 1}"`},"timestamp":"2025-01-01T00:00:00Z","message":{"role":"${role}","content":${content}}}`,
        );
      }
      writeFileSync(path, `${lines.join("\n")}\n`);
      const { doc } = await wholeDoc(path);
      expect(doc.entries).toHaveLength(20_000);
      expect(depth(doc)).toBe(4);
      const s = await loadSession({ kind: "file", path });
      try {
        const view = buildView(s, buildTree(s), {
          filter: "user-only",
          search: [],
          from: undefined,
          leaf: s.defaultLeaf,
          activeFirst: false,
        });
        const filtered = JSON.parse([...treeJson(s, flattenNodes(view.roots), s.defaultLeaf)].join("")) as TreeJsonDocument;
        expect(filtered.entries).toHaveLength(10_000);
        expect(depth(filtered)).toBe(4);
        expectConsistent(filtered);
      } finally {
        s.store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("tree --json against pi's getTree (corpus expected.json)", () => {
  for (const file of files) {
    it(file, async () => {
      const expected = expectedOf(file) as PiExpected;
      const { text, doc } = await wholeDoc(corpus(file));
      // The chunked writer writes what JSON.stringify would.
      expect(text).toBe(`${JSON.stringify(doc)}\n`);
      expectConsistent(doc);
      expect(doc.leaf?.line).toBe(expected.leaf.line);
      const bogus = piBogusLines(corpus(file));
      const byLine = new Map(doc.entries.map((e) => [e.line, e]));

      // pi's tree, flattened: parent, children and label of each line, roots in order.
      const piParent = new Map<number, number | null>();
      const piChildren = new Map<number, number[]>();
      const piLabel = new Map<number, string>();
      const piRoots = (expected.tree ?? []).map((n) => n.line).filter((l) => !bogus.has(l));
      const stack: [PiNode, number | null][] = (expected.tree ?? []).map((n) => [n, null]);
      while (stack.length > 0) {
        const [n, p] = stack.pop()!;
        if (bogus.has(n.line)) continue;
        // pi lists the last of a duplicate id twice (and loses the first): keep one copy.
        if (piParent.has(n.line)) continue;
        piParent.set(n.line, p);
        if (n.label !== undefined) piLabel.set(n.line, n.label);
        piChildren.set(
          n.line,
          n.children.map((c) => c.line).filter((l) => !bogus.has(l)),
        );
        for (const c of n.children) stack.push([c, n.line]);
      }

      // pi leaves out parent cycles and what hangs below them; pisess shows them below a cut (cycle: true).
      const inCycle = new Set<number>();
      const below = doc.entries.filter((e) => e.cycle === true).map((e) => e.line);
      while (below.length > 0) {
        const l = below.pop()!;
        inCycle.add(l);
        below.push(...(byLine.get(l) as TreeJsonEntry).children);
      }
      // pi loses the first entry of a duplicate id (its node is replaced by the last one).
      const ids = new Map<string, number[]>();
      for (const e of expected.entries) if (e.id !== undefined) ids.set(e.id, [...(ids.get(e.id) ?? []), e.line]);
      const lost = new Set([...ids.values()].flatMap((ls) => ls.slice(0, -1)));
      const compared = doc.entries.filter((e) => !inCycle.has(e.line) && !lost.has(e.line));

      expectEqual(
        doc.roots.filter((l) => !inCycle.has(l) && !lost.has(l)),
        [...new Set(piRoots)],
        "roots",
      );
      expectEqual(
        compared.map((e) => e.line).sort((a, b) => a - b),
        [...piParent.keys()].sort((a, b) => a - b),
        "lines compared",
      );
      for (const e of compared) {
        expectSame(e.parentLine, piParent.get(e.line), `parent of line ${e.line}`);
        expectEqual(
          e.children.filter((l) => !lost.has(l)),
          [...new Set(piChildren.get(e.line))],
          `children of line ${e.line}`,
        );
        expectSame(e.label, piLabel.get(e.line), `label of line ${e.line}`);
      }

      // Every entry pi keeps, as pi reads it: type, role, id and parentId as written.
      const piEntries = expected.entries.filter((e) => !bogus.has(e.line));
      expectEqual(
        doc.entries.map((e) => e.line),
        piEntries.map((e) => e.line),
        "entries",
      );
      for (const pe of piEntries) {
        const e = byLine.get(pe.line) as TreeJsonEntry;
        expectEqual([e.type, e.role], [pe.type, pe.type === "message" ? pe.role : undefined], `line ${pe.line}`);
        if (expected.idsSynthetic !== true) expectEqual([e.id, e.parentId], [pe.id ?? null, pe.parentId ?? null], `line ${pe.line}`);
        // pi's resolved parent, except where the entry is a root of the document: a self-parent or a cut cycle.
        if (e.parentLine !== null) expectSame(e.parentLine, pe.parentLine, `parent of line ${pe.line}`);
        else
          expectSame(
            pe.parentLine === null || pe.parentLine === undefined || pe.parentLine === pe.line || e.cycle === true,
            true,
            `line ${pe.line}`,
          );
      }
    });
  }
});

describe("tree --json with --filter: the same entries --ndjson shows (in process, the command's renderers)", () => {
  for (const file of ["gen-v3-branchy.jsonl", "gen16-branchy.jsonl"]) {
    it(file, async () => {
      for (const args of [{ filter: "user-only" }, { filter: "all" }, { filter: "no-tools", search: ["the"] }] as TreeArgs[]) {
        const doc = JSON.parse((await treeOut(corpus(file), { output: "json", ...args })).stdout) as TreeJsonDocument;
        const rows = (await treeOut(corpus(file), { output: "ndjson", ...args })).stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { line: number; id: string; children: string[] });
        expect(rows.length).toBeGreaterThan(0);
        expectEqual(
          doc.entries.map((e) => e.line),
          rows.map((r) => r.line).sort((a, b) => a - b),
        );
        const idOf = new Map(doc.entries.map((e) => [e.line, e.id]));
        // The first entry of each line, as doc.entries.find would give it.
        const entryAt = new Map<number, TreeJsonEntry>();
        for (const e of doc.entries) if (!entryAt.has(e.line)) entryAt.set(e.line, e);
        for (const r of rows) {
          const e = entryAt.get(r.line) as TreeJsonEntry;
          // Same children; --ndjson lists the active branch first, --json keeps pi's getTree order.
          expectEqual(
            e.children.map((l) => idOf.get(l)).sort(),
            [...r.children].sort(),
            `${file} ${JSON.stringify(args)} children of line ${r.line}`,
          );
        }
        expectConsistent(doc);
        expect(depth(doc)).toBe(4);
      }
    });
  }
});

const jq = spawnSync("jq", ["--version"], { encoding: "utf8" });
const haveJq = jq.status === 0;

describe.skipIf(!haveJq)(`tree --json through jq (${haveJq ? jq.stdout.trim() : "jq missing"})`, () => {
  const dir = mkdtempSync(join(tmpdir(), "pisess-tree-jq-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const runJq = (input: string, filter: string) =>
    spawnSync("jq", ["-r", filter], { input, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });

  // The bytes `tree --json` writes, rendered in-process (the tree page's example below goes through the binary).
  // One jq run reads the documents one after another (a stream of JSON texts), printing each one's .leaf.line.
  it("reads every corpus file: .leaf is pi's default leaf", async () => {
    const outs: string[] = [];
    for (const file of files) outs.push((await treeOut(corpus(file), { output: "json" })).stdout);
    expect(outs.every((o) => o.endsWith("\n"))).toBe(true);
    const r = runJq(outs.join(""), ".leaf.line");
    expect(r.stderr).toBe("");
    const got = r.stdout.split("\n").slice(0, -1);
    expectEqual(
      files.map((file, i) => `${file} ${got[i]}`),
      files.map((file) => `${file} ${String((expectedOf(file) as PiExpected).leaf.line)}`),
    );
    expect(got).toHaveLength(files.length);
  });

  it("the examples of docs/commands/tree.md", async () => {
    const out = (await runCli(["tree", fixture("tree", "branched.jsonl"), "--json"])).stdout;
    // branched.jsonl: user messages on lines 3, 7 and 11; a label on line 6.
    expect(runJq(out, '[.entries[] | select(.role == "user")] | length').stdout.trim()).toBe("3");
    expect(runJq(out, '.entries[] | select(.label) | "\\(.line) \\(.label)"').stdout.trim()).toBe("6 parser-done");
    // The active path, leaf first: line 11 and its ancestors as written in the fixture.
    const path =
      "(.entries | map({key: (.line | tostring), value: .parentLine}) | from_entries) as $p | [.leaf.line | recurse($p[tostring] // empty)]";
    expect(runJq(out, `${path} | @json`).stdout.trim()).toBe("[11,10,9,8,7,2]");
  });

  it("a chain of 5,000 entries (nested, it was 10,000 levels deep)", async () => {
    const path = join(dir, "chain.jsonl");
    const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}'];
    for (let i = 0; i < 5000; i++)
      lines.push(
        `{"type":"custom","id":"e${i}","parentId":${i === 0 ? "null" : `"e${i - 1}"`},"timestamp":"2025-01-01T00:00:00Z","customType":"k"}`,
      );
    writeFileSync(path, `${lines.join("\n")}\n`);
    const r = runJq((await treeOut(path, { output: "json" })).stdout, '"\\(.leaf.id) \\(.entries | length) \\(.roots)"');
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("e4999 5000 [2]");
  });
});

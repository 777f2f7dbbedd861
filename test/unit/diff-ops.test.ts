import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { leafRecs } from "../../src/ops/leaves.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { readEntry, type Session } from "../../src/model/session.js";
import type { EntryRec, Rec } from "../../src/model/detail.js";
import { buildContext } from "../../src/ops/context.js";
import { chooseAlign, diffContexts, diffPaths, entryKey, lineageOf, sidePath, type SideInput } from "../../src/ops/diff.js";
import { findByLine, resolveRef } from "../../src/ops/refs.js";
import { computeStats, fileAccessOf } from "../../src/ops/stats.js";
import { corpus, fixture, expectedOf } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";

const sessions: Session[] = [];
afterAll(() => {
  for (const s of sessions) s.store.close();
});

async function load(path: string, name = path): Promise<Session<"full">> {
  const s = await loadSession({ kind: "file", path }, { name });
  sessions.push(s);
  return s;
}

function side(session: Session<"full">, leaf: Rec<"full"> | null): SideInput {
  return { session, leaf, read: (rec) => readEntry(session, rec) };
}

function ref(session: Session<"full">, r: string): Rec<"full"> {
  const res = resolveRef(session, r);
  if (!res.ok) throw new Error(`no ${r}`);
  // One of the full session's records.
  return res.rec as Rec<"full">;
}

function path(session: Session<"full">, leaf: Rec<"full"> | null): Rec<"full">[] {
  const r = sidePath(session, leaf);
  if (!r.ok) throw new Error("cycle");
  return r.path;
}

/** Diff two references within one session. */
async function diffRefs(file: string, a: string, b: string) {
  const s = await load(fixture("diff", file));
  const l = ref(s, a);
  const r = ref(s, b);
  return diffPaths(side(s, l), path(s, l), side(s, r), path(s, r));
}

const lines = (recs: Rec<"full">[]) => recs.map((r) => r.line);

describe("diffPaths within one file", () => {
  it("sibling branches: base is the last common entry, each side the rest", async () => {
    const d = await diffRefs("branches.jsonl", "label:try-a", "leaf");
    expect(d.align).toBe("same-file");
    expect(d.left.base?.id).toBe("a0000005");
    expect(d.right.base).toBe(d.left.base);
    expectEqual(lines(d.left.divergent), [7, 8, 9, 10, 11]);
    expectEqual(lines(d.right.divergent), [13, 14, 15, 16]);
    expect(d.same).toBe(false);
  });

  it("re-asked prompts: both sides start with a user message", async () => {
    const d = await diffRefs("branches.jsonl", "label:try-a", "leaf");
    expect(d.reask?.left.id).toBe("b0000001");
    expect(d.reask?.right.id).toBe("c0000001");
    expect(d.reask?.sameText).toBe(false);
  });

  it("a leaf against its own ancestor: one side empty, no re-ask", async () => {
    const d = await diffRefs("branches.jsonl", "a0000005", "label:try-a");
    expect(d.left.base?.id).toBe("a0000005");
    expectEqual(d.left.divergent, []);
    expectEqual(lines(d.right.divergent), [7, 8, 9, 10, 11]);
    expect(d.reask).toBeNull();
    expect(d.left.stats.entries).toBe(0);
    expect(d.left.stats.durationMs).toBeNull();
  });

  it("the same entry twice: same path", async () => {
    const d = await diffRefs("branches.jsonl", "@11", "label:try-a");
    expect(d.same).toBe(true);
    expect(d.left.base?.line).toBe(11);
  });

  it("two roots: base null, no re-ask pair", async () => {
    const d = await diffRefs("two-roots.jsonl", "@3", "@5");
    expect(d.left.base).toBeNull();
    expect(d.right.base).toBeNull();
    expectEqual(lines(d.left.divergent), [2, 3]);
    expectEqual(lines(d.right.divergent), [4, 5]);
    expect(d.reask).toBeNull();
  });

  it("stats of each side", async () => {
    const d = await diffRefs("branches.jsonl", "label:try-a", "leaf");
    expect(d.left.stats).toMatchObject({
      entries: 5,
      userTurns: 1,
      assistantTurns: 2,
      toolCalls: { bash: 1, edit: 1 },
      toolCallCount: 2,
      errors: 1,
      tokens: { input: 3200, output: 110, cacheRead: 2600, cacheWrite: 100 },
      cost: 0.019,
      models: ["anthropic/claude-sonnet-4-5"],
      files: { read: [], changed: ["src/app.ts"] },
      start: "2026-01-01T10:00:30.000Z",
      end: "2026-01-01T10:00:50.000Z",
      durationMs: 20000,
    });
    expect(d.right.stats).toMatchObject({ errors: 1, models: ["openai/gpt-5"], files: { read: [], changed: ["test/app.test.ts"] } });
  });

  it("a cycle is reported, not walked forever", async () => {
    const s = await load(fixture("diff", "cycle.jsonl"));
    const r = sidePath(s, ref(s, "@6"));
    expect(r.ok).toBe(false);
    if (!r.ok) expectEqual(lines(r.cycle).sort(), [4, 5]);
  });

  it("leafRecs: every entry no other names as parent, plus the default leaf", async () => {
    const s = await load(fixture("diff", "branches.jsonl"));
    expectEqual(lines(leafRecs(s)), [12, 16]);
  });
});

describe("diffPaths across files", () => {
  it("a fork and its parent align by id; the lineage names the parent", async () => {
    const child = await load(fixture("diff", "fork-child.jsonl"), "fork-child.jsonl");
    const parent = await load(fixture("diff", "fork-parent.jsonl"), "fork-parent.jsonl");
    const lp = path(child, child.defaultLeaf);
    const rp = path(parent, parent.defaultLeaf);
    expect(chooseAlign(child, parent, lp, rp)).toBe("id");
    const d = diffPaths(side(child, child.defaultLeaf), lp, side(parent, parent.defaultLeaf), rp);
    expect(d.left.base?.id).toBe("f0000004");
    expect(d.right.base?.id).toBe("f0000004");
    expectEqual(lines(d.left.divergent), [6, 7, 8]);
    expectEqual(lines(d.right.divergent), [6, 7, 8]);
    const lin = lineageOf(
      { file: "fork-child.jsonl", absPath: fixture("diff", "fork-child.jsonl"), session: child },
      { file: "fork-parent.jsonl", absPath: fixture("diff", "fork-parent.jsonl"), session: parent },
    );
    expect(lin).toMatchObject({
      relation: "left-forked-from-right",
      matchedBy: "basename",
      leftParent: { field: "parentSession" },
      rightParent: null,
    });
    const exact = lineageOf(
      { file: "p.jsonl", absPath: "/home/u/.pi/agent/sessions/--home-u-app--/fork-parent.jsonl", session: parent },
      { file: "c.jsonl", absPath: "/elsewhere/c.jsonl", session: child },
    );
    expect(exact).toMatchObject({ relation: "right-forked-from-left", matchedBy: "path" });
  });

  it("two unrelated files align by content", async () => {
    const a = await load(fixture("diff", "unrelated-a.jsonl"));
    const b = await load(fixture("diff", "unrelated-b.jsonl"));
    const d = diffPaths(side(a, a.defaultLeaf), path(a, a.defaultLeaf), side(b, b.defaultLeaf), path(b, b.defaultLeaf));
    expect(d.align).toBe("content");
    expect(d.left.base?.id).toBe("11110003");
    expect(d.right.base?.id).toBe("22220003");
    expectEqual(lines(d.left.divergent), [5]);
    expectEqual(lines(d.right.divergent), [5]);
    const lin = lineageOf({ file: "a", absPath: "/x/a", session: a }, { file: "b", absPath: "/x/b", session: b });
    expect(lin.relation).toBe("none");
  });

  it("an empty session: everything on the other side", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pisess-diff-"));
    try {
      const f = join(dir, "empty.jsonl");
      writeFileSync(f, '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n');
      const e = await load(f);
      const b = await load(fixture("diff", "two-roots.jsonl"));
      const d = diffPaths(side(e, null), [], side(b, b.defaultLeaf), path(b, b.defaultLeaf));
      expect(d.left.base).toBeNull();
      expectEqual(lines(d.right.divergent), [4, 5]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("entryKey ignores ids and timestamps", () => {
    const a = { type: "message", id: "1", parentId: null, timestamp: "t1", message: { role: "user", content: "hi", timestamp: 1 } };
    const b = {
      type: "message",
      id: "2",
      parentId: "0",
      timestamp: "t2",
      message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 2 },
    };
    expect(entryKey(a)).toBe(entryKey(b));
    expect(entryKey({ ...a, message: { role: "user", content: "ho" } })).not.toBe(entryKey(a));
  });
});

describe("diffContexts (--context)", () => {
  it("a path across a compaction: kept messages show as shared", async () => {
    const s = await load(fixture("diff", "compaction.jsonl"));
    const read = (rec: EntryRec) => readEntry(s, rec);
    const before = ref(s, "@5");
    const after = ref(s, "@8");
    const lc = buildContext(s, path(s, before), read);
    const rc = buildContext(s, path(s, after), read);
    const d = diffContexts({ ...side(s, before), context: lc }, { ...side(s, after), context: rc }, "same-file");
    // The raw paths: the left is an ancestor of the right ...
    const raw = diffPaths(side(s, before), path(s, before), side(s, after), path(s, after));
    expectEqual(raw.left.divergent, []);
    // ... but the contexts differ from the first message on: the compaction replaced the history.
    expect(d.left.base).toBeNull();
    expectEqual(
      d.left.divergent.map((i) => [i.role, i.source?.line, i.shared]),
      [
        ["user", 2, false],
        ["assistant", 3, false],
        ["user", 4, true],
        ["assistant", 5, true],
      ],
    );
    expectEqual(
      d.right.divergent.map((i) => [i.role, i.source?.line, i.shared]),
      [
        ["compactionSummary", 6, false],
        ["user", 4, true],
        ["assistant", 5, true],
        ["user", 7, false],
        ["assistant", 8, false],
      ],
    );
    expect(d.right.context.compaction?.line).toBe(6);
    expect(d.same).toBe(false);
  });

  it("a branch summary: common leading messages, then the summary", async () => {
    const s = await load(fixture("diff", "compaction.jsonl"));
    const read = (rec: EntryRec) => readEntry(s, rec);
    const a = ref(s, "@8");
    const b = ref(s, "@11");
    const d = diffContexts(
      { ...side(s, a), context: buildContext(s, path(s, a), read) },
      { ...side(s, b), context: buildContext(s, path(s, b), read) },
      "same-file",
    );
    expect(d.left.base).toBeNull(); // the left context starts with the compaction summary
    const c = ref(s, "@3");
    const e = diffContexts(
      { ...side(s, c), context: buildContext(s, path(s, c), read) },
      { ...side(s, b), context: buildContext(s, path(s, b), read) },
      "same-file",
    );
    expect(e.left.base?.index).toBe(1);
    expectEqual(e.left.divergent, []);
    expectEqual(
      e.right.divergent.map((i) => i.role),
      ["branchSummary", "user", "assistant"],
    );
  });
});

describe("stats", () => {
  it("classifies file tools", () => {
    expect(fileAccessOf("read")).toBe("read");
    expect(fileAccessOf("Edit")).toBe("changed");
    expect(fileAccessOf("write")).toBe("changed");
    expect(fileAccessOf("bash")).toBeUndefined();
  });

  it("without a reader, files are not computed", async () => {
    const s = await load(fixture("diff", "branches.jsonl"));
    const st = computeStats(path(s, s.defaultLeaf));
    expect(st.files).toBeNull();
    expectEqual(st.toolCalls, { read: 1, write: 1 });
    const withFiles = computeStats(path(s, s.defaultLeaf), (r) => readEntry(s, r));
    expectEqual(withFiles.files, { read: ["src/app.ts"], changed: ["test/app.test.ts"] });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The corpus: pi's own paths (expected.json) decide what the base and the divergent entries must be.

interface ExpectedLeaf {
  line: number;
  path?: number[];
  error?: string;
}

const CORPUS = [
  "gen-v1",
  "gen-v2",
  "gen-v3-branchy",
  "gen-v3-cycle-crlf-bom",
  "gen-v3-faults",
  "gen-v3-long",
  "real-v1-before-compaction",
  "real-v1-large-session",
];
const MAX_PAIRS = 80;

function expectedSplit(a: number[], b: number[]): { base: number | null; left: number[]; right: number[] } {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return { base: k > 0 ? (a[k - 1] as number) : null, left: a.slice(k), right: b.slice(k) };
}

/**
 * The entry pi starts a path from for the leaf on `line`: pi names leaves by id, so a duplicate id means the last
 * entry with it, and an entry without an id means the default leaf (getBranch(undefined)).
 */
function piLeaf(s: Session<"full">, line: number): Rec<"full"> {
  const rec = findByLine(s, line) as Rec<"full">;
  if (rec.id === undefined) return s.defaultLeaf as Rec<"full">;
  return s.byId.get(rec.id) ?? rec;
}

describe("corpus: base and divergent entries match pi's paths", () => {
  for (const name of CORPUS) {
    it(name, async () => {
      const expected = expectedOf(name) as { leaves: ExpectedLeaf[] };
      const s = await load(corpus(`${name}.jsonl`));
      const leaves = expected.leaves.filter((l): l is Required<ExpectedLeaf> => l.path !== undefined && l.error === undefined);
      // Every leaf, plus for each leaf an entry halfway up its path (a non-leaf reference: the path up to it).
      const targets: { line: number; path: number[] }[] = [...leaves];
      for (const l of leaves) {
        const mid = Math.floor(l.path.length / 2);
        if (mid > 0) targets.push({ line: l.path[mid - 1] as number, path: l.path.slice(0, mid) });
      }
      const pairs: [number, number][] = [];
      for (let i = 0; i < targets.length; i++) for (let j = 0; j < targets.length; j++) if (i !== j) pairs.push([i, j]);
      // All pairs for small files, an evenly spread sample otherwise.
      const step = Math.max(1, Math.ceil(pairs.length / MAX_PAIRS));
      let tried = 0;
      for (let p = 0; p < pairs.length; p += step) {
        const [i, j] = pairs[p] as [number, number];
        const a = targets[i] as { line: number; path: number[] };
        const b = targets[j] as { line: number; path: number[] };
        const la = piLeaf(s, a.line);
        const lb = piLeaf(s, b.line);
        const d = diffPaths(side(s, la), path(s, la), side(s, lb), path(s, lb));
        const want = expectedSplit(a.path, b.path);
        expect(d.left.base?.line ?? null, `${name} ${a.line} vs ${b.line}`).toBe(want.base);
        expectEqual(lines(d.left.divergent), want.left);
        expectEqual(lines(d.right.divergent), want.right);
        expect(d.same).toBe(want.left.length === 0 && want.right.length === 0);
        tried++;
      }
      expect(tried).toBeGreaterThan(0);
    });
  }

  it("a fork written from a corpus path aligns with its parent by id", async () => {
    const name = "gen-v3-branchy";
    const expected = expectedOf(name) as { leaves: Required<ExpectedLeaf>[] };
    const text = readFileSync(corpus(`${name}.jsonl`), "utf8").split("\n");
    const parent = await load(corpus(`${name}.jsonl`));
    const dir = mkdtempSync(join(tmpdir(), "pisess-diff-"));
    try {
      const [x, y] = expected.leaves as [Required<ExpectedLeaf>, Required<ExpectedLeaf>];
      // /fork: the header (with parentSession) and the path root..x, ids kept, in path order.
      const header = JSON.parse(text[0] as string) as Record<string, unknown>;
      header.parentSession = corpus(`${name}.jsonl`);
      const forkText = `${[JSON.stringify(header), ...x.path.map((l) => text[l - 1] as string)].join("\n")}\n`;
      const forkFile = join(dir, "fork.jsonl");
      writeFileSync(forkFile, forkText);
      const fork = await load(forkFile);
      const yRec = findByLine(parent, y.line) as Rec<"full">;
      const fp = path(fork, fork.defaultLeaf);
      const pp = path(parent, yRec);
      const d = diffPaths(side(fork, fork.defaultLeaf), fp, side(parent, yRec), pp);
      expect(d.align).toBe("id");
      const want = expectedSplit(x.path, y.path);
      // Fork line n+1 holds parent line x.path[n-1].
      expect(d.right.base?.line ?? null).toBe(want.base);
      expectEqual(
        d.left.divergent.map((r) => x.path[r.line - 2]),
        want.left,
      );
      expectEqual(lines(d.right.divergent), want.right);
      const lin = lineageOf(
        { file: "fork.jsonl", absPath: forkFile, session: fork },
        { file: name, absPath: corpus(`${name}.jsonl`), session: parent },
      );
      expect(lin).toMatchObject({ relation: "left-forked-from-right", matchedBy: "path" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

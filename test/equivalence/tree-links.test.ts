import type { SpendSession } from "../../src/ops/totals.js";
import fc from "fast-check";
import { describe, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { treeShape } from "../../src/ops/leaves.js";
import { buildTree, treeLinks, treeProblems } from "../../src/ops/tree.js";
import { ROOT, sessionFiles } from "../support/helpers.js";
import { expectStrictEqual } from "../support/expect-fast.js";

/**
 * treeLinks is buildTree without the nodes: the same parents and problems. treeShape given only the links walks the
 * entries in file order (every parent first) or builds the tree itself: the same shape as from the tree, on every
 * fixture and on generated sessions whose parents come before or after their children, with cycles and duplicates.
 */

function same(session: SpendSession): void {
  const tree = buildTree(session);
  const links = treeLinks(session);
  expectStrictEqual(links.parent, tree.parent);
  expectStrictEqual(links.problems, tree.problems);
  expectStrictEqual(treeProblems(session), tree.problems);
  expectStrictEqual(treeShape(session, links), treeShape(session, tree));
  const exclude = new Uint8Array(session.entries.length).map((_, i) => (i % 3 === 0 ? 1 : 0));
  expectStrictEqual(treeShape(session, links, { exclude }), treeShape(session, tree, { exclude }));
}

describe("treeLinks and the file-order treeShape equal buildTree's", () => {
  it.each(sessionFiles().map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const s = await loadSession({ kind: "file", path: f }, { detail: "spend" });
    s.store.close();
    same(s);
  });

  it("generated sessions: parents before and after, dangling, self, cycles, duplicate ids, labels, spend", async () => {
    const entryArb = fc.record({
      id: fc.integer({ min: 0, max: 30 }),
      parent: fc.oneof(fc.integer({ min: -1, max: 30 }), fc.constant(null)),
      kind: fc.constantFrom("user", "assistant", "label", "usage", "compaction"),
      ms: fc.integer({ min: 0, max: 50 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(entryArb, { minLength: 1, maxLength: 40 }), async (es) => {
        const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'];
        for (const e of es) {
          const base = {
            id: `e${e.id}`,
            parentId: e.parent === null ? null : e.parent < 0 ? undefined : `e${e.parent}`,
            timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, e.ms)).toISOString(),
          };
          const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { total: 0.5 } };
          if (e.kind === "label") lines.push(JSON.stringify({ type: "label", ...base, targetId: `e${e.ms % 31}`, label: `l${e.ms}` }));
          else if (e.kind === "usage") lines.push(JSON.stringify({ type: "usage", ...base, kind: "cache_warm", usage }));
          else if (e.kind === "compaction")
            lines.push(JSON.stringify({ type: "compaction", ...base, summary: "s", firstKeptEntryId: "e1", tokensBefore: 5, usage }));
          else lines.push(JSON.stringify({ type: "message", ...base, message: { role: e.kind, content: "x", usage } }));
        }
        const { Readable } = await import("node:stream");
        const s = await loadSession({ kind: "stream", name: "-", stream: Readable.from([`${lines.join("\n")}\n`]) }, { detail: "spend" });
        same(s);
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import type { EntryRec } from "../../src/model/detail.js";
import { buildTree } from "../../src/ops/tree.js";
import { buildView } from "../../src/ops/view.js";
import { ROOT, sessionFiles } from "../support/helpers.js";
import { expectSame, expectStrictEqual } from "../support/expect-fast.js";

/** SessionView.onPath is kept as marks, not in a Set's storage: it must still answer as the Set of the path would. */
describe("the view's onPath answers as a Set of the active path", () => {
  it.each(sessionFiles().map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const s = await loadSession({ kind: "file", path: f }, { detail: "preview" });
    s.store.close();
    const tree = buildTree(s);
    const view = buildView(s, tree, { filter: "default", search: [], from: undefined, leaf: s.defaultLeaf, activeFirst: true });
    // The reference: the walk up the tree's parents from the leaf (cut cycles stop it), as a plain Set.
    const want = new Set<EntryRec>();
    for (let cur = s.defaultLeaf; cur && !want.has(cur); cur = tree.parent[cur.index] ?? null) {
      want.add(cur);
      if (tree.nodes[cur.index]?.cycleCut) break;
    }
    const on = view.onPath;
    expect(on).toBeInstanceOf(Set);
    expect(on.size).toBe(want.size);
    expectStrictEqual([...on], [...want]);
    expectStrictEqual([...on.keys()], [...want.keys()]);
    expectStrictEqual([...on.entries()], [...want.entries()]);
    const each: EntryRec[] = [];
    on.forEach((r) => {
      each.push(r);
    });
    expectStrictEqual(each, [...want]);
    for (const rec of s.entries) expectSame(on.has(rec), want.has(rec), `line ${rec.line}`);
    // A record of another load, at the same index, is not on this path.
    const other = await loadSession({ kind: "file", path: f }, { detail: "skeleton" });
    other.store.close();
    for (const rec of other.entries) expectSame(on.has(rec), false, `line ${rec.line} of another load`);
    // Changed, it goes on as a Set.
    const extra = other.entries[0];
    if (extra) {
      on.add(extra);
      want.add(extra);
      expectStrictEqual([...on], [...want]);
      expect(on.delete(extra)).toBe(true);
      expect(on.has(extra)).toBe(false);
      expect(on.size).toBe(want.size - 1);
    }
  });
});

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { buildTree, treeProblems } from "../../src/ops/tree.js";
import { ROOT, sessionFiles } from "../support/helpers.js";

/** Every session file among the fixtures (corpus, faults, forks, validate cases…). */

describe("treeProblems: buildTree's problems without the tree", () => {
  it("same problems, same order, on every fixture; every code the tree reports is among them", async () => {
    const codes = new Set<string>();
    for (const path of sessionFiles(join(ROOT, "fixtures"))) {
      const session = await loadSession({ kind: "file", path }, { detail: "skeleton" });
      try {
        const want = buildTree(session).problems;
        expect(treeProblems(session), path).toEqual(want);
        for (const d of want) codes.add(d.code);
      } finally {
        session.store.close();
      }
    }
    expect([...codes].sort()).toEqual(["dangling-parent", "invalid-timestamp", "parent-cycle", "self-parent"]);
  });
});

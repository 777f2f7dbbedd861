import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { checkContextEdits } from "../../src/check/edits.js";
import { loadSession } from "../../src/model/load.js";
import { leafRecs } from "../../src/ops/leaves.js";
import { contextReport } from "../../src/reports/context.js";
import { sessionFiles } from "../support/helpers.js";

// context judges the edits on its path without the tree (check/edits.ts pathRelations); validate judges every edit
// through the tree (relations). For every leaf of every fixture with context_edits, the context's edit findings
// are validate's findings at the lines of the edits on that path.
const EDIT_CODE = /^context-edit-/;

describe("context's edit findings on a path", () => {
  const files = sessionFiles().filter((f) => readFileSync(f, "utf8").includes('"context_edit"'));

  it("covers files with edits", () => {
    expect(files.length).toBeGreaterThan(8);
  });

  it("are validate's (through the tree) for the edits on the path, at every leaf", async () => {
    let leaves = 0;
    for (const file of files) {
      const session = await loadSession({ kind: "file", path: file });
      const all = checkContextEdits(session).filter((d) => EDIT_CODE.test(d.code));
      for (const leaf of leafRecs(session)) {
        const r = contextReport(session, { leaf: `@${leaf.line}` });
        const ctx = r.data.context;
        if (ctx === null) continue;
        leaves++;
        const lines = new Set(ctx.context.edits.map((e) => e.edit.line));
        const want = all.filter((d) => d.line !== null && lines.has(d.line));
        const got = r.data.problems.filter((d) => EDIT_CODE.test(d.code));
        const key = (ds: typeof got) => ds.map((d) => JSON.stringify(d)).sort();
        if (!isDeepStrictEqual(key(got), key(want))) expect(key(got), `${file} @${leaf.line}`).toEqual(key(want));
      }
    }
    expect(leaves).toBeGreaterThan(30);
  });
});

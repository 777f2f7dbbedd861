import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as lib from "../../src/index.js";
import { fixture, ROOT } from "../support/helpers.js";

/**
 * Issue 28: docs/library.md (the README's library section before) said treeReport returns `roots`; it returns
 * `flat`. The table of reports is held to the library: every exported report has a row, and the fields a row says
 * a report's data has are the ones it returns on a bundled session.
 */
const page = readFileSync(join(ROOT, "docs", "library.md"), "utf8");

/** The report table: name → the text of its signature cell. */
const rows = new Map([...page.matchAll(/^\| `(\w+)` \| `([^`]*)`/gm)].map((m) => [m[1] as string, m[2] as string] as const));

/** The top-level field names a row's `Report<{a, b?, …}>` lists (the first alternative of a union). */
function documentedFields(name: string): string[] {
  const sig = rows.get(name) ?? "";
  const m = /Report<\{([^}]*)\}/.exec(sig);
  if (!m) throw new Error(`${name}: no Report<{…}> in its row: ${sig}`);
  return (m[1] as string)
    .split(",")
    .map((f) => f.trim().replace(/\?$/, "").split(/\s/)[0] as string)
    .filter((f) => f !== "" && f !== "…");
}

describe("docs/library.md", () => {
  it("has a row for every report the library exports", () => {
    const exported = Object.keys(lib).filter((k) => /Report$/.test(k) && typeof (lib as Record<string, unknown>)[k] === "function");
    expect(exported.length).toBeGreaterThan(15);
    for (const name of exported) expect([...rows.keys()], name).toContain(name);
  });

  it("treeReport: the data is {leaf, flat} for JSON output (not roots), {leaf, view, rows} for text", async () => {
    expect(documentedFields("treeReport")).toEqual(["leaf", "flat", "view", "rows"]);
    const session = await lib.openSession(fixture("tree", "branched.jsonl"));
    try {
      expect(Object.keys(lib.treeReport(session, { output: "json" }).data).sort()).toEqual(["flat", "leaf"]);
      expect(Object.keys(lib.treeReport(session, {}).data).sort()).toEqual(["leaf", "rows", "view"]);
    } finally {
      session.store.close();
    }
  });

  it("the data of path, leaves, labels and compactions has the fields their rows list", async () => {
    const session = await lib.openSession(fixture("tree", "branched.jsonl"));
    try {
      const got: Record<string, string[]> = {
        pathReport: Object.keys(lib.pathReport(session).data),
        leavesReport: Object.keys((await lib.leavesReport(session)).data),
        labelsReport: Object.keys(lib.labelsReport(session).data),
        compactionsReport: Object.keys(lib.compactionsReport(session).data),
      };
      for (const [name, keys] of Object.entries(got)) expect(keys.sort(), name).toEqual(documentedFields(name).sort());
    } finally {
      session.store.close();
    }
  });
});

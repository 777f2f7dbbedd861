import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/helpers.js";

/**
 * Issue 28: `node parity/run.mjs --concurrency 1` died of a stack overflow in piDifferences. pi's getTree nests one
 * level per entry of a chain, and the parity suite cloned (structuredClone) and compared (a recursive firstDiff)
 * that tree on the main thread, whose stack is smaller than a worker's. The comparison helpers run here in a Node of
 * their own, on the main thread with its default stack, on a tree 100,000 levels deep.
 */
const DIFF = pathToFileURL(join(ROOT, "parity", "diff.mjs")).href;

function runDeep(body: string): { status: number | null; stdout: string; stderr: string } {
  const script = `const { firstDiff, cloneDeep, preview } = await import(${JSON.stringify(DIFF)});
const chain = (n, leafValue) => { const root = { id: "r", children: [] }; let node = root;
  for (let i = 0; i < n; i++) { const c = { id: "e" + i, children: [] }; node.children.push(c); node = c; }
  node.value = leafValue; return root; };
${body}`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("parity's comparison helpers on a tree nested 100,000 deep (main thread)", () => {
  it("firstDiff finds the one difference at the bottom, with its path", () => {
    const r = runDeep(`const d = firstDiff([chain(100000, 1)], [chain(100000, 2)]);
console.log(JSON.stringify({ depth: (d.path.match(/\\.children\\[0\\]/g) ?? []).length, end: d.path.slice(-18), expected: d.expected, actual: d.actual }));`);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({ depth: 100000, end: ".children[0].value", expected: "1", actual: "2" });
  });

  it("firstDiff: equal trees are equal; the order of a recursive walk (items before length, keys sorted)", () => {
    const r = runDeep(`console.log(JSON.stringify([
  firstDiff(chain(100000, 1), chain(100000, 1)),
  firstDiff([1, [2, 3]], [1, [2, 4], 5]),
  firstDiff([1, 2], [1, 2, 3]),
  firstDiff({ b: 1, a: { x: 1 } }, { a: { x: 2 }, b: 2 }),
  firstDiff({ a: undefined }, {}),
]));`);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual([
      null,
      { path: "$[1][1]", expected: "3", actual: "4" },
      { path: "$.length", expected: 2, actual: 3, extra: "3" },
      { path: "$.a.x", expected: "1", actual: "2" },
      null,
    ]);
  });

  it("cloneDeep copies it (a new object at every level, the same values); preview says it is too deep", () => {
    const r = runDeep(`const t = chain(100000, 7); const c = cloneDeep(t);
let a = t, b = c, fresh = true, n = 0;
while (a.children.length > 0) { fresh &&= a !== b && a.children !== b.children && a.id === b.id; a = a.children[0]; b = b.children[0]; n++; }
console.log(JSON.stringify({ n, fresh, value: b.value, same: firstDiff(t, c), preview: preview(t) }));`);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({ n: 100000, fresh: true, value: 7, same: null, preview: "<object nested too deep to show>" });
  });
});

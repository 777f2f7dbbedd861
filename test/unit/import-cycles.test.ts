import { existsSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { type AstNode, parseTs, SRC, srcFiles, walk } from "../support/src-ast.js";

/** The relative modules a file imports or re-exports (type-only ones too: a circle of types is still a circle). */
function importsOf(ast: AstNode): string[] {
  const out: string[] = [];
  for (const n of walk(ast)) {
    const isImport = n.type === "ImportDeclaration" || n.type === "ImportExpression";
    const isReexport = n.type === "ExportNamedDeclaration" || n.type === "ExportAllDeclaration";
    if (!isImport && !isReexport) continue;
    const source = n.source as AstNode | null | undefined;
    if (source?.type === "Literal" && typeof source.value === "string" && source.value.startsWith(".")) out.push(source.value);
  }
  return out;
}

/** `./x.js` from `dir/a.ts` → `dir/x.ts` (sources import their siblings by the name they have once built). */
function resolveSpec(file: string, spec: string): string {
  const joined = posix.join(dirname(file), spec);
  return joined.replace(/\.js$/, ".ts");
}

/**
 * Every cycle of the graph, each once, as the path round it starting at its lowest-named module (Tarjan's strongly
 * connected components, iterative; a component of several modules is reported with one circle through it).
 */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { v: string; i: number }[] = [{ v: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1] as { v: string; i: number };
      const edges = graph.get(top.v) ?? [];
      if (top.i < edges.length) {
        const w = edges[top.i++] as string;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v) as number, index.get(w) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v) as number, low.get(top.v) as number));
      if (low.get(top.v) !== index.get(top.v)) continue;
      const comp: string[] = [];
      for (;;) {
        const w = stack.pop() as string;
        onStack.delete(w);
        comp.push(w);
        if (w === top.v) break;
      }
      const self = (graph.get(top.v) ?? []).includes(top.v);
      if (comp.length > 1 || self) found.push(circleThrough(graph, new Set(comp)));
    }
  }
  return found;
}

/** One circle inside a strongly connected component, from its lowest-named module back to it (breadth first). */
function circleThrough(graph: Map<string, string[]>, comp: Set<string>): string[] {
  const start = [...comp].sort()[0] as string;
  const from = new Map<string, string>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q] as string;
    for (const w of graph.get(v) ?? []) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let u = v; u !== start; u = from.get(u) as string) path.push(from.get(u) as string);
        return [...path.reverse(), start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

function graphOf(files: { file: string; ast: AstNode }[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const { file, ast } of files) graph.set(file, [...new Set(importsOf(ast).map((s) => resolveSpec(file, s)))].sort());
  return graph;
}

describe("no import cycles in src/", () => {
  it("no module imports itself back through others", () => {
    const files = srcFiles();
    const graph = graphOf(files);
    // Every edge names a file that exists: a resolution slip would hide a cycle.
    const missing = [...graph.entries()].flatMap(([f, to]) => to.filter((t) => !existsSync(join(SRC, t))).map((t) => `${f} → ${t}`));
    expect(missing).toEqual([]);
    expect(cycles(graph).map((c) => c.join(" → "))).toEqual([]);
  });

  it("finds a cycle when there is one", () => {
    const files = [
      { file: "a/x.ts", ast: parseTs('import { y } from "../b/y.js";\nexport const x = 1;', "x.ts") },
      { file: "b/y.ts", ast: parseTs('import type { Z } from "./z.js";\nexport const y = 1;', "y.ts") },
      { file: "b/z.ts", ast: parseTs('export { x } from "../a/x.js";\nexport type Z = 1;', "z.ts") },
      { file: "c/w.ts", ast: parseTs('import("./w.js");', "w.ts") },
      { file: "c/v.ts", ast: parseTs('import { x } from "../a/x.js";', "v.ts") },
    ];
    expect(cycles(graphOf(files)).map((c) => c.join(" → "))).toEqual(["a/x.ts → b/y.ts → b/z.ts → a/x.ts", "c/w.ts → c/w.ts"]);
  });
});

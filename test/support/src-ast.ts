import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
// oxc's parser, as rolldown (vite's bundler, already installed) ships it: TypeScript 7's package has no
// in-process parser (no ts.createSourceFile), only an API that talks to the native compiler.
import { parseAst } from "rolldown/parseAst";
import { ROOT } from "./helpers.js";

export const SRC = join(ROOT, "src");

/** An ESTree node as oxc gives it: a type, UTF-16 offsets into the text, and its fields. */
export interface AstNode {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

export interface SrcFile {
  /** Path under src/, with forward slashes (`model/load.ts`). */
  file: string;
  text: string;
  ast: AstNode;
}

export function parseTs(text: string, file: string): AstNode {
  return parseAst(text, { lang: "ts" }, file) as unknown as AstNode;
}

/** Every .ts file under src/, parsed, in sorted order. */
export function srcFiles(): SrcFile[] {
  const names = readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.split("\\").join("/"))
    .sort();
  return names.map((file) => {
    const text = readFileSync(join(SRC, file), "utf8");
    return { file, text, ast: parseTs(text, file) };
  });
}

function isNode(v: unknown): v is AstNode {
  return typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string";
}

/** Every node under `root`, parents before children (an explicit stack: no recursion). */
export function* walk(root: AstNode): Generator<AstNode> {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (isNode(v)) {
      yield v;
      const kids = Object.values(v).filter((c) => typeof c === "object" && c !== null);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
  }
}

/** The 1-based line of each offset in `text`. */
export function lineOf(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/helpers.js";

/**
 * Code with strings, template literals and comments blanked to spaces (same length, so offsets stay), for a scan
 * that looks at punctuation only. A template's `${…}` is blanked too: no spread is written inside one.
 */
function codeOnly(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    const two = text.slice(i, i + 2);
    let end = -1;
    if (two === "//") end = text.indexOf("\n", i);
    else if (two === "/*") end = text.indexOf("*/", i + 2) + 2;
    else if (c === '"' || c === "'" || c === "`") {
      end = i + 1;
      while (end < text.length && text[end] !== c) end += text[end] === "\\" ? 2 : 1;
      end++;
    } else if (c === "/" && /[=(,:;!&|?{}[]\s*$/.test(text.slice(Math.max(0, i - 20), i))) {
      // A regular expression literal (a division follows a value, not an operator or an opening).
      end = i + 1;
      let inClass = false;
      while (end < text.length && text[end] !== "\n" && (inClass || text[end] !== "/")) {
        if (text[end] === "\\") end++;
        else if (text[end] === "[") inClass = true;
        else if (text[end] === "]") inClass = false;
        end++;
      }
      end++;
    }
    if (end < 0) {
      out += c;
      i++;
      continue;
    }
    if (end <= i) end = text.length;
    out += text.slice(i, end).replace(/[^\n]/g, " ");
    i = end;
  }
  return out;
}

/** Where a `...` spreads into a call's arguments (`f(...xs)`, `o.push(a, ...xs)`, `new C(...xs)`), by line. */
function callSpreads(text: string): number[] {
  const code = codeOnly(text);
  const stack: string[] = [];
  const found: number[] = [];
  for (let i = 0; i < code.length; i++) {
    const c = code[i] as string;
    if (c === "(" || c === "[" || c === "{") stack.push(c);
    else if (c === ")" || c === "]" || c === "}") stack.pop();
    else if (code.startsWith("...", i)) {
      if (stack[stack.length - 1] === "(") {
        // A rest parameter is not a spread: `(...args: T)`, or `(...args) =>` untyped.
        const after = /^\.\.\.\s*[\w$]+\s*([:)])\s*(=>)?/.exec(code.slice(i));
        const rest = after !== null && (after[1] === ":" || after[2] === "=>");
        if (!rest) found.push(code.slice(0, i).split("\n").length);
      }
      i += 2;
    }
  }
  return found;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir, { recursive: true, encoding: "utf8" }))
    if (f.endsWith(".ts") && !f.endsWith(".generated.ts")) out.push(join(dir, f));
  return out.sort();
}

describe("no array spread into a call's arguments in src (#32.5)", () => {
  it("the scan finds what it looks for, and not rest parameters, array or object spreads", () => {
    const sample = [
      "out.push(...xs);",
      "const m = Math.max(...a.map((x) => x.n));",
      "f(a, ...rest);",
      "String.fromCharCode(...codes)",
      "function g(...args: string[]) { return [...args, { ...o }]; }",
      "const h = (...xs) => xs;",
      "interface T { push(...rows: string[][]): number }",
      '// push(...commented)\nconst s = "push(...quoted)"; const t = `x(...)`;',
    ].join("\n");
    expect(callSpreads(sample)).toEqual([1, 2, 3, 4]);
  });

  it("src spreads no array into a call: a spread's items are arguments, and enough of them overflow the stack", () => {
    // Math.max(...locs), lines.push(...more), out.push(...unanswered) threw "Maximum call stack size exceeded" past
    // about 125,000 items. Append with a loop, take a maximum with reduce.
    const bad: string[] = [];
    for (const file of sources(join(ROOT, "src")))
      for (const line of callSpreads(readFileSync(file, "utf8"))) bad.push(`${file.slice(ROOT.length + 1)}:${line}`);
    expect(bad).toEqual([]);
  });
});

import { createRequire } from "node:module";
import type Table from "cli-table3";
import { wrapColoured } from "./width.js";

// cli-table3 loads on the first table drawn: JSON output never draws one.
const load = createRequire(import.meta.url);

/** A table of text cells, filled row by row and turned into text by `tableText`. */
export interface TextTable {
  push(...rows: string[][]): number;
  toString(): string;
}

export type Align = "left" | "right";

/** Printable ASCII: one column per character in cli-table3's measure as in any other. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * cli-table3's measure of a cell: the widest line, colour codes left out, wide characters counted twice. Its own
 * function builds a regular expression per call, so plain ASCII text (nearly every cell) is measured by its length.
 */
let measuring: ((s: string) => number) | undefined;

function measure(): (s: string) => number {
  // Made once: boxedTable is called once per leaf by `diff --leaves`.
  if (measuring === undefined) {
    const { strlen } = load("cli-table3/src/utils") as { strlen(s: string): number };
    measuring = (s) => (PRINTABLE_ASCII.test(s) ? s.length : strlen(s));
  }
  return measuring;
}

/**
 * A table of one-line cells is laid out here, in cli-table3's measure and to its bytes
 * (test/equivalence/text-table.test.ts compares the two on generated tables); cells of several lines go to cli-table3.
 * cli-table3 took 0.1 ms a row of 4 to 11 columns, quadratic past a thousand rows (20,000 leaves: minutes), and 10 ms
 * to load: `usage --by day,model` on 10,000 sessions (600 rows) took 0.54 s with it, 0.36 s without.
 */
class BorderlessTable implements TextTable {
  private readonly rows: string[][] = [];
  constructor(
    private readonly head: string[],
    private readonly aligns: Align[] | undefined,
  ) {}

  push(...rows: string[][]): number {
    for (const r of rows) this.rows.push(r);
    return this.rows.length;
  }

  toString(): string {
    return plainShape(this.head, this.rows)
      ? alignedLayout(this.head, this.aligns, this.rows)
      : cliTable3Layout(this.head, this.aligns, this.rows);
  }
}

/** One line per cell, as many cells as headings: the only shape alignedLayout takes on. */
function plainShape(head: readonly string[], rows: readonly (readonly string[])[]): boolean {
  const oneLine = (c: unknown) => typeof c === "string" && !c.includes("\n");
  return head.every(oneLine) && rows.every((r) => r.length === head.length && r.every(oneLine));
}

/** A borderless-looking table without colour codes of its own (colour comes from the Style). */
export function makeTable(head: string[], aligns?: Align[]): TextTable {
  return new BorderlessTable(head, aligns);
}

/** Table text without trailing spaces on each line. */
export function tableText(t: TextTable): string {
  return t
    .toString()
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n");
}

const NO_BORDER = {
  top: "",
  "top-mid": "",
  "top-left": "",
  "top-right": "",
  bottom: "",
  "bottom-mid": "",
  "bottom-left": "",
  "bottom-right": "",
  left: "",
  "left-mid": "",
  mid: "",
  "mid-mid": "",
  right: "",
  "right-mid": "",
  middle: "",
};

/** makeTable's table drawn by cli-table3: no borders, left padding 0, right padding 2. */
export function cliTable3Layout(head: string[], aligns: Align[] | undefined, rows: readonly string[][]): string {
  const Cli3 = load("cli-table3") as typeof Table;
  const t = new Cli3({
    head,
    style: { head: [], border: [], "padding-left": 0, "padding-right": 2, compact: true },
    chars: NO_BORDER,
    ...(aligns ? { colAligns: aligns } : {}),
  });
  for (const r of rows) t.push(r);
  return t.toString();
}

/** cliTable3Layout's output for one-line cells, in time linear in the cells. */
export function alignedLayout(head: readonly string[], aligns: readonly Align[] | undefined, rows: readonly (readonly string[])[]): string {
  const strlen = measure();
  const all = [head, ...rows];
  const widths = head.map(() => 0);
  const lens = all.map((r) =>
    r.map((c, i) => {
      const w = strlen(c);
      if (w > (widths[i] as number)) widths[i] = w;
      return w;
    }),
  );
  const out: string[] = [];
  for (let j = 0; j < all.length; j++) {
    const r = all[j] as readonly string[];
    const l = lens[j] as number[];
    let line = "";
    for (let i = 0; i < r.length; i++) {
      const gap = " ".repeat((widths[i] as number) - (l[i] as number));
      line += aligns?.[i] === "right" ? `${gap}${r[i]}  ` : `${r[i]}${gap}  `;
    }
    out.push(line);
  }
  return out.join("\n");
}

/** Each column's width in alignedLayout's measure over `rows` (the headings among them). */
export function columnWidths(rows: readonly (readonly string[])[]): number[] {
  const strlen = measure();
  const widths: number[] = [];
  for (const r of rows)
    for (let i = 0; i < r.length; i++) {
      const w = strlen(r[i] as string);
      if (w > (widths[i] ?? 0)) widths[i] = w;
    }
  return widths;
}

/**
 * alignedLayout's lines (trailing spaces cut, as tableText cuts them) with the column widths given: a cell wider
 * than its column pushes the rest of its line right.
 */
export function alignedLines(
  aligns: readonly Align[] | undefined,
  rows: readonly (readonly string[])[],
  widths: readonly number[],
): string[] {
  const strlen = measure();
  return rows.map((r) => {
    let line = "";
    for (let i = 0; i < r.length; i++) {
      const c = r[i] as string;
      const gap = " ".repeat(Math.max(0, (widths[i] ?? 0) - strlen(c)));
      line += aligns?.[i] === "right" ? `${gap}${c}  ` : `${c}${gap}  `;
    }
    return line.replace(/\s+$/, "");
  });
}

/** A boxed table as cli-table3 draws it by default (compact, one space of padding, cells aligned left). */
export function boxedTableCli3(head: string[], rows: readonly string[][]): string {
  const Cli3 = load("cli-table3") as typeof Table;
  const t = new Cli3({ head, style: { head: [], border: [], compact: true } });
  for (const r of rows) t.push(r);
  return t.toString();
}

/**
 * A boxed table (as boxedTable) with fixed column widths (padding included), cells wrapped to fit them: cli-table3's
 * word wrap, which carries colours across the lines it makes (drawing it here would have to copy that rule for
 * rule to keep `diff --width` byte for byte; only one table per comparison is drawn this way).
 */
export function boxedTableWrapped(head: string[], rows: readonly string[][], colWidths: number[]): string {
  const Cli3 = load("cli-table3") as typeof Table;
  // cli-table3's hard wrap counts a colour code's characters and cuts through one (a stray ESC): cells are wrapped
  // here, to the width inside the padding, and cli-table3 only lays them out (carrying colours over line breaks).
  const wrap = (r: readonly string[]): string[] => r.map((c, i) => wrapColoured(c, (colWidths[i] ?? 0) - 2));
  const t = new Cli3({ head: wrap(head), style: { head: [], border: [], compact: true }, colWidths });
  for (const r of rows) t.push(wrap(r));
  return t.toString();
}

/**
 * boxedTableCli3's output, drawn here: `pisess diff --leaves` draws one such table per leaf, and cli-table3 takes
 * about a millisecond for each (100,000 leaves: minutes). Cells may span lines; a cell with both line breaks and
 * colour codes goes to cli-table3, which carries colours across lines.
 */
export function boxedTable(head: string[], rows: readonly string[][]): string {
  const n = head.length;
  const all = [head, ...rows];
  let multiline = false;
  for (const r of all) {
    if (r.length !== n) return boxedTableCli3(head, rows);
    for (const c of r) {
      if (typeof c !== "string") return boxedTableCli3(head, rows);
      if (c.includes("\n")) {
        if (c.includes("\u001b")) return boxedTableCli3(head, rows);
        multiline = true;
      }
    }
  }
  const strlen = measure();
  // One line per cell (the common case): no split, one width per cell.
  const cells = multiline ? all.map((r) => r.map((c) => c.split("\n"))) : all.map((r) => r.map((c) => [c]));
  const lens = cells.map((r) => r.map((ls) => ls.map(strlen)));
  const widths: number[] = new Array<number>(n).fill(0);
  for (const r of lens) for (let i = 0; i < n; i++) for (const len of r[i] as number[]) if (len > (widths[i] as number)) widths[i] = len;
  const rule = (l: string, m: string, r: string) => `${l}${widths.map((w) => "─".repeat(w + 2)).join(m)}${r}`;
  let out = rule("┌", "┬", "┐");
  for (let j = 0; j < cells.length; j++) {
    const row = cells[j] as string[][];
    const rowLens = lens[j] as number[][];
    // A table without columns has no lines but its rules.
    let height = n === 0 ? 0 : 1;
    if (multiline) for (const ls of row) if (ls.length > height) height = ls.length;
    for (let k = 0; k < height; k++) {
      let line = "\n│";
      for (let i = 0; i < n; i++) {
        const text = (row[i] as string[])[k];
        const w = widths[i] as number;
        line += text === undefined ? ` ${" ".repeat(w)} │` : ` ${text}${" ".repeat(w - ((rowLens[i] as number[])[k] as number))} │`;
      }
      out += line;
    }
    if (j === 0 && cells.length > 1) out += `\n${rule("├", "┼", "┤")}`;
  }
  return `${out}\n${rule("└", "┴", "┘")}`;
}

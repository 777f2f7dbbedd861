import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  alignedLayout,
  BIG_TABLE_ROWS,
  boxedTable,
  boxedTableCli3,
  cliTable3Layout,
  makeTable,
  tableText,
} from "../../src/render/text-table.js";

// The layouts drawn without cli-table3 (big tables, diff's per-leaf stats table) must be cli-table3's, byte for byte.
const piece = fc.constantFrom(
  "a",
  "bb",
  "1,234",
  "$0.0012",
  " ",
  "",
  "好",
  "é",
  "🙂",
  "…",
  "x y",
  "\u001b[1mbold\u001b[22m",
  "\u001b[31mred\u001b[39m",
);
const line = fc.array(piece, { maxLength: 4 }).map((p) => p.join(""));
const lines = fc.array(line, { minLength: 1, maxLength: 3 }).map((l) => l.join("\n"));
/** A table of 1 to 4 columns: `table(n)` draws its parts. */
const columns = <T>(table: (n: number) => fc.Arbitrary<T>): fc.Arbitrary<T> => fc.integer({ min: 1, max: 4 }).chain(table);
/** One row (or the header, or the alignments) of a table of `n` columns. */
const cells = <T>(n: number, cell: fc.Arbitrary<T>): fc.Arbitrary<T[]> => fc.array(cell, { minLength: n, maxLength: n });

describe("text tables drawn without cli-table3", () => {
  it("alignedLayout matches cli-table3's borderless layout", () => {
    fc.assert(
      fc.property(
        columns((n) =>
          fc.tuple(
            cells(n, line),
            fc.option(cells(n, fc.constantFrom("left" as const, "right" as const)), { nil: undefined }),
            fc.array(cells(n, line), { maxLength: 12 }),
          ),
        ),
        ([head, aligns, rows]) => {
          expect(alignedLayout(head, aligns, rows)).toBe(cliTable3Layout(head, aligns, rows));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("boxedTable matches cli-table3's default boxed layout, cells of several lines included", () => {
    fc.assert(
      fc.property(
        columns((n) => fc.tuple(cells(n, line), fc.array(cells(n, lines), { maxLength: 12 }))),
        ([head, rows]) => {
          expect(boxedTable(head, rows)).toBe(boxedTableCli3(head, rows));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a table past BIG_TABLE_ROWS reads as cli-table3 would draw it", () => {
    const rows = Array.from({ length: BIG_TABLE_ROWS + 5 }, (_, i) => [`leaf ${i}`, String(i * 7), i % 3 === 0 ? "好" : "-"]);
    const t = makeTable(["name", "n", "note"], ["left", "right", "left"]);
    for (const r of rows) t.push(r);
    const expected = cliTable3Layout(["name", "n", "note"], ["left", "right", "left"], rows)
      .split("\n")
      .map((l) => l.replace(/\s+$/, ""))
      .join("\n");
    expect(tableText(t)).toBe(expected);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alignedLayout, boxedTable, boxedTableCli3, cliTable3Layout, makeTable, tableText } from "../../src/render/text-table.js";

// The layouts drawn without cli-table3 (tables of one-line cells, diff's per-leaf stats table) must be cli-table3's, byte for byte.
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
  "\t",
);
const line = fc.array(piece, { maxLength: 4 }).map((p) => p.join(""));
const lines = fc.array(line, { minLength: 1, maxLength: 3 }).map((l) => l.join("\n"));
/** A table of 1 to `most` columns (usage's widest table has 11): `table(n)` draws its parts. */
const columns = <T>(table: (n: number) => fc.Arbitrary<T>, most = 4): fc.Arbitrary<T> => fc.integer({ min: 1, max: most }).chain(table);
/** One row (or the header, or the alignments) of a table of `n` columns. */
const cells = <T>(n: number, cell: fc.Arbitrary<T>): fc.Arbitrary<T[]> => fc.array(cell, { minLength: n, maxLength: n });

describe("text tables drawn without cli-table3", () => {
  it("alignedLayout matches cli-table3's borderless layout", () => {
    fc.assert(
      fc.property(
        columns(
          (n) =>
            fc.tuple(
              cells(n, line),
              fc.option(cells(n, fc.constantFrom("left" as const, "right" as const)), { nil: undefined }),
              fc.array(cells(n, line), { maxLength: 40 }),
            ),
          11,
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

  it("makeTable draws what cli-table3 draws: one-line cells (0, 3 and 1,005 rows) in one pass, cells of two lines by cli-table3", () => {
    const head = ["name", "n", "note"];
    const aligns = ["left", "right", "left"] as const;
    const drawn = (rows: string[][]) => {
      const t = makeTable(head, [...aligns]);
      for (const r of rows) t.push(r);
      return tableText(t);
    };
    const cli3 = (rows: string[][]) =>
      cliTable3Layout(head, [...aligns], rows)
        .split("\n")
        .map((l) => l.replace(/\s+$/, ""))
        .join("\n");
    const big = Array.from({ length: 1005 }, (_, i) => [`leaf ${i}`, String(i * 7), i % 3 === 0 ? "好" : "-"]);
    const small = big.slice(0, 3);
    const spanning = [...small, ["two\nlines", "1", "好\n🙂"]];
    for (const rows of [[], small, big, spanning]) expect(drawn(rows)).toBe(cli3(rows));
  });
});

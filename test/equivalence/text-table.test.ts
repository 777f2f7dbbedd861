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

describe("text tables drawn without cli-table3", () => {
  it("alignedLayout matches cli-table3's borderless layout", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((n) =>
            fc.tuple(
              fc.array(line, { minLength: n, maxLength: n }),
              fc.option(fc.array(fc.constantFrom("left" as const, "right" as const), { minLength: n, maxLength: n }), { nil: undefined }),
              fc.array(fc.array(line, { minLength: n, maxLength: n }), { maxLength: 12 }),
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
        fc
          .integer({ min: 1, max: 4 })
          .chain((n) =>
            fc.tuple(
              fc.array(line, { minLength: n, maxLength: n }),
              fc.array(fc.array(lines, { minLength: n, maxLength: n }), { maxLength: 12 }),
            ),
          ),
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

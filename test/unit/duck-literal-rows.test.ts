import { describe, expect, it } from "vitest";
import { literalRows, openDuck } from "../../src/reports/duck.js";

/** literalRows: rows handed to DuckDB as one string literal read back as they went in (the index's day lists). */
describe("literalRows", () => {
  const cols = [
    ["n", "DOUBLE"],
    ["t", "VARCHAR"],
  ] as const;

  it("reads numbers, texts with quotes and nulls back as they went in, and no rows as none", async () => {
    const duck = await openDuck();
    try {
      const rows: (string | number | null)[][] = [
        [20485, "2026-01-01"],
        [-18_000_000, "it's"],
        [null, "2026-W01"],
        [0.5, null],
      ];
      expect((await duck.conn.runAndReadAll(literalRows(cols, rows))).getRowsJS()).toEqual(rows);
      expect((await duck.conn.runAndReadAll(literalRows(cols, []))).getRowsJS()).toEqual([]);
    } finally {
      duck.close();
    }
  });
});

/**
 * The store's writer of table rows, for the layers above the model: a batch's rows as CSV bytes in one reusable
 * buffer (TableBytes, whose buffers come back by giveBack), and JSON text as DuckDB reads it (wellFormedJson). The
 * byte-level writer lives with the byte scanners (src/io/scan/table-bytes.ts) and is reached only through this
 * module: what knows the tables (src/ops/fleet-tables.ts, src/reports/tables-text.ts) hands it each table's JSON
 * columns; ops, check, reports, render, web and commands import nothing from src/io/scan (test/layers.test.ts).
 */
export { giveBack, TableBytes, wellFormedJson } from "../io/scan/index.js";

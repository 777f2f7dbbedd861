import type { Row } from "../ops/fleet-rows.js";
import { TABLE_NAMES, TABLES, type TableName } from "../ops/fleet-tables.js";
import { wellFormedJson } from "../model/row-bytes.js";

export { giveBack, TableBytes, wellFormedJson } from "../model/row-bytes.js";

/**
 * How rows travel as text: NDJSON (the `--format ndjson` output, objects as the JSON Schemas describe them) or CSV
 * (the intermediate DuckDB turns into Parquet: no key names and no date texts to write, and DuckDB's fastest reader;
 * sql.ts reads it back with the declared types, timestamps as milliseconds).
 */
export type RowText = "ndjson" | "csv";

const NAMES = Object.fromEntries(Object.values(TABLES).map((t) => [t.name, t.columns.map((c) => c.name)])) as Record<TableName, string[]>;
const STAMPS = Object.fromEntries(
  Object.values(TABLES).map((t) => [t.name, t.columns.flatMap((c, i) => (c.type === "timestamp" ? [i] : []))]),
) as Record<TableName, number[]>;

/** Each table's columns of JSON text, by table name and by index in TABLE_NAMES. */
const JSONS = Object.fromEntries(Object.values(TABLES).map((t) => [t.name, t.columns.map((c) => c.type === "json")])) as Record<
  TableName,
  boolean[]
>;
/** Which columns of the table at index i in TABLE_NAMES hold JSON text. */
export const jsonColumns = (i: number): boolean[] => JSONS[TABLE_NAMES[i] as TableName];

/** String.prototype.isWellFormed (Node 20+), typed locally: the project's lib setting predates it. */
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

function ndjsonLine(row: Row, names: string[], stamps: number[], jsons: boolean[]): string {
  const o: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) {
    let v = row[i];
    if (jsons[i] && typeof v === "string") v = wellFormedJson(v);
    // A lone surrogate has no UTF-8 form: JSON.stringify would write it as a \ud800 escape, which DuckDB's reader
    // (and jq 1.6) refuse; U+FFFD stands in for it, as in the CSV and Parquet text.
    o[names[i] as string] = typeof v === "string" && !isWellFormed(v) ? Buffer.from(v, "utf8").toString("utf8") : v;
  }
  for (const i of stamps) {
    const v = row[i];
    if (typeof v === "number") o[names[i] as string] = new Date(v).toISOString();
  }
  return JSON.stringify(o);
}

/** One row of `table` as an NDJSON line (without its line break). */
export function ndjsonRow(table: TableName, row: Row): string {
  return ndjsonLine(row, NAMES[table], STAMPS[table], JSONS[table]);
}

import type { Row } from "../ops/fleet-rows.js";
import { TABLES, type TableName } from "../ops/fleet-tables.js";

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

function ndjsonLine(row: Row, names: string[], stamps: number[]): string {
  const o: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) o[names[i] as string] = row[i];
  for (const i of stamps) {
    const v = row[i];
    if (typeof v === "number") o[names[i] as string] = new Date(v).toISOString();
  }
  return JSON.stringify(o);
}

const NEEDS_QUOTES = /[",\n\r]/;

/** A CSV field: null is an empty field, an empty or special string is quoted (DuckDB reads "" as the empty string). */
function csvField(v: string | number | boolean | null): string {
  if (v === null) return "";
  if (typeof v !== "string") return String(v);
  if (v === "" || NEEDS_QUOTES.test(v)) return `"${v.replace(/"/g, '""')}"`;
  return v;
}

/** `first`: the first field as text already (the session's file, the same on every row of a session). */
function csvLine(row: Row, first: string): string {
  const fields: string[] = new Array(row.length);
  fields[0] = first;
  for (let i = 1; i < row.length; i++) fields[i] = csvField(row[i] ?? null);
  return fields.join(",");
}

/** Adds the rows of one session to `lines` as text, one line each (their first field, its file, is written once). */
export function rowsText(table: TableName, rows: readonly Row[], as: RowText, lines: string[]): void {
  if (as === "csv") {
    const first = rows.length > 0 ? csvField(rows[0]?.[0] ?? null) : "";
    for (const r of rows) lines.push(csvLine(r, first));
    return;
  }
  const names = NAMES[table];
  const stamps = STAMPS[table];
  for (const r of rows) lines.push(ndjsonLine(r, names, stamps));
}

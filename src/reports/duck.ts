import { type ColumnType, TABLES, type TableName } from "../ops/fleet-tables.js";
import { type DuckApi, duckApi } from "./duck-api.js";
import { ReportError } from "./report.js";

/**
 * DuckDB (@duckdb/node-api, an optional dependency) is loaded here only, on demand: `pisess sql` and
 * `pisess tables --format parquet` need it; nothing else does.
 */

export type Connection = Awaited<ReturnType<Awaited<ReturnType<DuckApi["DuckDBInstance"]["create"]>>["connect"]>>;

export interface Duck {
  conn: Connection;
  /** Another connection to the same database (closed with it), for a second statement at the same time. */
  connect(): Promise<Connection>;
  close(): void;
}

/**
 * `oneThread`: DuckDB runs on one thread until a `RESET threads`: while this thread (and the table workers) read
 * sessions, DuckDB's idle worker threads take cores from them (index-db.ts openIndex).
 */
export async function openDuck(oneThread = false): Promise<Duck> {
  let api: DuckApi;
  try {
    api = duckApi();
  } catch {
    throw new ReportError(
      "this needs DuckDB, an optional dependency that is not installed: npm install @duckdb/node-api (or use tables --format ndjson)",
    );
  }
  const instance = await api.DuckDBInstance.create(":memory:", oneThread ? { threads: "1" } : undefined);
  const conn = await instance.connect();
  // Timestamps are shown in UTC whatever the machine's zone.
  await conn.run("SET TimeZone = 'UTC'");
  const more: Connection[] = [];
  return {
    conn,
    async connect() {
      const c = await instance.connect();
      await c.run("SET TimeZone = 'UTC'");
      more.push(c);
      return c;
    },
    close() {
      for (const c of more) c.closeSync();
      conn.closeSync();
      instance.closeSync();
    },
  };
}

export const DUCK_TYPE: Record<ColumnType, string> = {
  string: "VARCHAR",
  integer: "BIGINT",
  number: "DOUBLE",
  boolean: "BOOLEAN",
  timestamp: "TIMESTAMPTZ",
  json: "VARCHAR",
};

export function quote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** Fields and rows of literalRows's one text: characters no number, day or week name holds. */
const FIELD = "\u001f";
const ROW = "\u001e";

/**
 * Rows as a query, from one string literal split in SQL: a VALUES list is parsed and planned value by value (300
 * rows: 8-17 ms of a query), one literal is not. A null is an empty field (so no value may be an empty text), and no
 * value may hold U+001E or U+001F.
 */
export function literalRows(
  cols: readonly (readonly [name: string, type: "DOUBLE" | "VARCHAR"])[],
  rows: readonly (readonly (string | number | null)[])[],
): string {
  const select = cols.map(([name, type], i) => `CAST(nullif(split_part(r, chr(31), ${i + 1}), '') AS ${type}) AS ${name}`).join(", ");
  if (rows.length === 0) return `SELECT ${select} FROM (SELECT '' AS r) WHERE false`;
  const text = rows.map((r) => r.map((v) => (v === null ? "" : String(v))).join(FIELD)).join(ROW);
  return `SELECT ${select} FROM (SELECT unnest(string_split(${quote(text)}, chr(30))) AS r)`;
}

/**
 * DuckDB's CSV reader buffer, and so its longest line (it must hold a whole row): at least this (the default longest
 * line), more, with room to spare, for a longer row (a tool call's arguments can run to megabytes; with the default,
 * such a row failed the whole command). Its default buffer (32 MB) cost a third more CPU on the bench fleet, for
 * memory to touch and nothing gained.
 */
const CSV_BUFFER = 2 * 1024 * 1024;

/**
 * The table's columns from the CSV intermediate (tables-text.ts): declared types, nothing sniffed; timestamps come
 * as milliseconds since the epoch. `longest`: bytes of its longest row (WrittenTables.longest).
 */
export function selectCsv(table: TableName, path: string, longest: number): string {
  const cols = TABLES[table].columns;
  const types = cols.map((c) => `${quote(c.name)}: ${quote(c.type === "timestamp" ? "BIGINT" : DUCK_TYPE[c.type])}`).join(", ");
  const select = cols.map((c) => (c.type === "timestamp" ? `make_timestamptz(${c.name} * 1000) AS ${c.name}` : c.name)).join(", ");
  const buffer = Math.max(CSV_BUFFER, longest + 1024);
  // new_line: told, not sniffed: DuckDB's reader otherwise fails on a carriage return inside a quoted field ("state
  // machine reached an invalid state"), and one such value in one session broke every query over the fleet.
  return `SELECT ${select} FROM read_csv(${quote(path)}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', new_line = '\\n', allow_quoted_nulls = false, buffer_size = ${buffer}, max_line_size = ${buffer}, columns = {${types}})`;
}

export async function copyToParquet(conn: Connection, table: TableName, csv: string, parquet: string, longest: number): Promise<void> {
  try {
    await conn.run(`COPY (${selectCsv(table, csv, longest)}) TO ${quote(parquet)} (FORMAT parquet)`);
  } catch (err) {
    // DuckDB's message goes on for many lines (the CSV reader's settings); one line says which value failed.
    const lines = (err instanceof Error ? err.message : String(err)).split("\n");
    const why = lines.find((l) => l.startsWith("Error when converting")) ?? lines[0];
    throw new ReportError(`${table}.parquet: ${why}`);
  }
}

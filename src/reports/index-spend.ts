import { FIXED_BITS, FIXED_MAX_BITS } from "../ops/exact-sum.js";
import { DAY_MS, dayOffsets, QUARTER_MS } from "../ops/fleet-time.js";
import { type Connection, type Duck, literalRows } from "./duck.js";

/**
 * The index's spend per quarter hour: each session's usage rows summed per quarter hour of UTC (the calendar's unit,
 * fleet-time.ts), kind, model and copy state, costs as exact integers of 2^-80 (exact-sum.ts). `usage` answers from
 * it (src/reports/usage-index.ts): a few rows per session instead of every record, summed once per update instead
 * of once per question. Kept by the update beside the rows it sums, in the same transaction.
 */

/** 2^80 as DuckDB reads it (a DOUBLE): the unit of exact-sum.ts's fixed sums, and its bound (2^20). */
const FIXED_SCALE_SQL = `CAST('${String(2n ** BigInt(FIXED_BITS))}' AS DOUBLE)`;

/** Whether `col` is an exact multiple of 2^-80 below 2^20 (exact-sum.ts fixedUnits), and the multiple. */
export function fixedSql(col: string): { test: string; units: string } {
  return {
    test: `(abs(${col}) < ${2 ** FIXED_MAX_BITS} AND floor(${col} * ${FIXED_SCALE_SQL}) = ${col} * ${FIXED_SCALE_SQL})`,
    units: `CAST(${col} * ${FIXED_SCALE_SQL} AS HUGEINT)`,
  };
}

/** The quarter hour of a usage row's timestamp (fleet-time.ts quarterOf, in SQL: the same double division). */
export const QUARTER_SQL = `floor(CAST(epoch_ms(u.timestamp) AS DOUBLE) / ${QUARTER_MS})`;

/** The UTC day of a quarter hour (fleet-time.ts utcDayOf, in SQL: the same double arithmetic). */
export function utcDaySql(quarter: string): string {
  return `floor(${quarter} * ${QUARTER_MS} / ${DAY_MS})`;
}

export const SPEND_TABLE = "spend_quarters";

export const SPEND_COLUMNS = [
  "session VARCHAR NOT NULL",
  "quarter DOUBLE",
  "assistant BOOLEAN NOT NULL",
  "model VARCHAR NOT NULL",
  "copied BOOLEAN NOT NULL",
  /** Whether the rows' costs are fixed units (else cost is NULL and usage-index.ts reads those rows one by one). */
  "fixed BOOLEAN NOT NULL",
  "n DOUBLE NOT NULL",
  "input DOUBLE NOT NULL",
  "output DOUBLE NOT NULL",
  "cache_read DOUBLE NOT NULL",
  "cache_write DOUBLE NOT NULL",
  "cache_write_1h DOUBLE NOT NULL",
  "cost HUGEINT",
];

/** The sums of the usage rows of `from` (a FROM clause naming them `u`, with its WHERE: idx.usage's, or the rows just read). */
export function spendSumsSql(from: string): string {
  const fixed = fixedSql("u.cost");
  return `SELECT u.session, ${QUARTER_SQL} AS quarter, u.source = 'assistant' AS assistant, u.provider || '/' || u.model AS model,
  u.is_copied AS copied, ${fixed.test} AS fixed, CAST(count(*) AS DOUBLE), CAST(sum(u.input) AS DOUBLE), CAST(sum(u.output) AS DOUBLE),
  CAST(sum(u.cache_read) AS DOUBLE), CAST(sum(u.cache_write) AS DOUBLE), CAST(sum(u.cache_write_1h) AS DOUBLE),
  sum(CASE WHEN ${fixed.test} THEN ${fixed.units} END)
  FROM ${from} GROUP BY ALL`;
}

/**
 * Sums the usage rows of each of `from` (spendSumsSql's) into the spend table: the sessions whose rows were just
 * replaced or patched (their old sums were dropped with their rows: index-db.ts dropSql).
 */
export async function insertSpendSums(conn: Connection, from: readonly string[]): Promise<void> {
  for (const f of from) await conn.run(`INSERT INTO idx.${SPEND_TABLE} ${spendSumsSql(f)}`);
}

/**
 * The index's quarter-hour sums with the local day each is in (`local_day`; by fleet-time.ts's rule: the zone's
 * offset over the quarter's UTC day, from `days`, rows of (UTC day `d`, offset `off`)), or, on a day the offset
 * changes, the quarter itself (`change_quarter`): summed per local day, a session's spend is a few rows, not one per
 * quarter hour. The quarter kept per row (its least) has the local day the calendar gives it.
 */
export function localDays(days: string | null): string {
  const utcDay = utcDaySql("s.quarter");
  const join = days === null ? "" : `LEFT JOIN (${days}) o ON o.d = ${utcDay}`;
  const off = days === null ? "CAST(NULL AS DOUBLE)" : "o.off";
  return `SELECT s.*, CASE WHEN ${off} IS NOT NULL THEN floor((s.quarter * ${QUARTER_MS} + ${off}) / ${DAY_MS}) END AS local_day,
  CASE WHEN ${off} IS NULL THEN s.quarter END AS change_quarter FROM idx.${SPEND_TABLE} s ${join}`;
}

/** Every UTC day the index has spend on, with the zone's offset over it (dayOffsets: null on a day it changes). */
export interface DayList {
  days: [utcDay: number, offset: number | null][];
  /** The same as rows (UTC day `d`, offset `off`) for localDays. */
  sql: string;
}

/** The index's UTC days with spend and the zone's offset over each, null for none. */
export async function dayList(duck: Duck, timeZone: string | undefined): Promise<DayList | null> {
  const rows = (
    await duck.conn.runAndReadAll(`SELECT DISTINCT ${utcDaySql("quarter")} FROM idx.${SPEND_TABLE} WHERE quarter IS NOT NULL`)
  ).getRowsJS();
  if (rows.length === 0) return null;
  const offsetOf = dayOffsets(timeZone);
  const days = rows.map((r): [number, number | null] => [Number(r[0]), offsetOf(Number(r[0]))]);
  const cols = [
    ["d", "DOUBLE"],
    ["off", "DOUBLE"],
  ] as const;
  return { days, sql: literalRows(cols, days) };
}

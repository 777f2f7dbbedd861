import { addFixed, exactZero } from "../ops/exact-sum.js";
import type { calendar } from "../ops/fleet-time.js";
import { DAY_MS, QUARTER_MS } from "../ops/fleet-time.js";
import { type ExactSums, type GroupKey, rowKey, type UsageKeys, type UsageSnapshot } from "../ops/fleet-usage.js";
import { type Duck, literalRows, quote } from "./duck.js";
import { type IndexState, scopeIsWhole, scopeTable } from "./index-db.js";
import { type DayList, dayList, localDays } from "./index-spend.js";
import type { CountSettings } from "./usage-count.js";

/**
 * usage's rows summed in SQL, for the questions most asked (by day, week, month and model, no project): the index's
 * quarter-hour sums grouped by the rows' own keys, sessions counted distinct, handed to the aggregator as a snapshot
 * (as worker threads hand theirs over). Moving every session's groups into JavaScript to count them there was most of
 * an answer (10,000 sessions: 30,000 groups). The buckets stay the calendar's (fleet-time.ts): it is asked in
 * JavaScript for each local day of the UTC days with spend (and each quarter hour of a day the zone's offset changes).
 */

const KEYS: readonly GroupKey[] = ["day", "week", "month", "model"];

/** Whether rows keyed by `by` can be summed in SQL (the others need each session's name, project or leaves). */
export function summedInSql(by: readonly GroupKey[], settings: CountSettings): boolean {
  return settings.project === undefined && by.every((k) => KEYS.includes(k));
}

/** The spend rows a count reads: the sessions asked about (not skipped), copies left out unless asked for. */
async function sourceSql(duck: Duck, state: IndexState, settings: CountSettings, days: string | null): Promise<string> {
  const where = [`s.session NOT IN (SELECT path FROM idx.files WHERE status = 'skipped')`];
  if (!settings.includeCopied) where.push("NOT s.copied");
  if (!scopeIsWhole(state)) {
    await scopeTable(duck, state.scope);
    where.push("s.session IN (SELECT path FROM scope)");
  }
  return `SELECT s.* FROM (${localDays(days)}) s WHERE ${where.join(" AND ")}`;
}

/**
 * The calendar's buckets of every local day (and change-day quarter) the days hold, as rows (`ld` or `cq`, then
 * day, week, month), null for none. On a day of one offset, its quarters fall into at most two local days, each
 * bucketed as the calendar buckets its first quarter of that day; on a day the offset changes, each quarter by
 * itself (localDays puts them there).
 */
function bucketList(days: DayList | null, cal: ReturnType<typeof calendar>): string | null {
  if (days === null) return null;
  const rows: (string | number | null)[][] = [];
  const seen = new Set<number>();
  const add = (ld: number | null, cq: number | null, quarter: number) => {
    const b = cal(quarter * QUARTER_MS);
    rows.push([ld, cq, b.day, b.week, b.month]);
  };
  const perDay = DAY_MS / QUARTER_MS;
  for (const [d, off] of days.days) {
    const first = d * perDay;
    if (off === null) {
      for (let q = first; q < first + perDay; q++) add(null, q, q);
      continue;
    }
    const localOf = (q: number) => Math.floor((q * QUARTER_MS + off) / DAY_MS);
    for (let ld = localOf(first); ld <= localOf(first + perDay - 1); ld++) {
      if (seen.has(ld)) continue;
      seen.add(ld);
      // The day's first quarter whose local time is in ld.
      add(ld, null, Math.max(first, Math.ceil((ld * DAY_MS - off) / QUARTER_MS)));
    }
  }
  const cols = [
    ["ld", "DOUBLE"],
    ["cq", "DOUBLE"],
    ["day", "VARCHAR"],
    ["week", "VARCHAR"],
    ["month", "VARCHAR"],
  ] as const;
  return literalRows(cols, rows);
}

/** A grouping set's bit in GROUPING(cols…): set for each column the set leaves out (the first column highest). */
function maskOf(cols: readonly string[], set: readonly string[]): number {
  return cols.reduce((m, c, i) => (set.includes(c) ? m : m | (1 << (cols.length - 1 - i))), 0);
}

interface Plan {
  sql: string;
  cols: string[];
  rowMask: number;
  modelMask: number | null;
  totalMask: number;
}

/** The one query: rows, their models (breakdown) and the totals, as grouping sets of the spend rows. */
function plan(by: readonly GroupKey[], breakdown: boolean, source: string, buckets: string | null, s: CountSettings): Plan {
  const keys = by.filter((k) => KEYS.includes(k));
  const cols = breakdown && !keys.includes("model") ? [...keys, "model"] : keys;
  const withModel = breakdown ? cols : null;
  const sets = [keys, ...(withModel && withModel.length !== keys.length ? [withModel] : []), ...(keys.length > 0 ? [[]] : [])];
  // No buckets (nothing asks for a time, or no spend has one): every row's are null.
  const from =
    buckets !== null
      ? `SELECT s.*, b.day, b.week, b.month FROM (${source}) s LEFT JOIN (${buckets}) b ON b.ld IS NOT DISTINCT FROM s.local_day AND b.cq IS NOT DISTINCT FROM s.change_quarter`
      : `SELECT s.*, NULL::VARCHAR AS day, NULL::VARCHAR AS week, NULL::VARCHAR AS month FROM (${source}) s`;
  const where: string[] = [];
  if (s.since !== undefined) where.push(`day >= ${quote(s.since)}`);
  if (s.until !== undefined) where.push(`day <= ${quote(s.until)}`);
  const group = cols.length > 0 ? `GROUPING(${cols.join(", ")})` : "0";
  const sql = `SELECT ${group} AS g, ${cols.map((c) => `${c}, `).join("")}CAST(count(DISTINCT session) AS DOUBLE) AS sessions,
  coalesce(sum(n) FILTER (WHERE assistant), 0) AS turns, sum(input), sum(output), sum(cache_read), sum(cache_write), sum(cache_write_1h),
  sum(cost), sum(cost) FILTER (WHERE NOT assistant), bool_and(fixed)
  FROM (${from}) ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
  GROUP BY GROUPING SETS (${sets.map((set) => `(${set.join(", ")})`).join(", ")})`;
  return {
    sql,
    cols,
    rowMask: maskOf(cols, keys),
    modelMask: withModel ? maskOf(cols, withModel) : null,
    totalMask: maskOf(cols, []),
  };
}

function sumsOf(v: (i: number) => unknown): ExactSums {
  const num = (i: number) => Number(v(i) ?? 0);
  const exact = (i: number) => {
    const s = exactZero();
    const units = v(i);
    if (typeof units === "bigint") addFixed(s, units);
    return s;
  };
  const [input, output, cacheRead, cacheWrite] = [num(2), num(3), num(4), num(5)];
  return {
    sessions: num(0),
    turns: num(1),
    input,
    output,
    cacheRead,
    cacheWrite,
    cacheWrite1h: num(6),
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: exact(7),
    summaryCost: exact(8),
  };
}

/**
 * The count of `by` (day, week, month, model) over the index as a snapshot, or undefined where a cost is not a sum of
 * fixed units (the count then adds those records one by one: usage-index.ts).
 */
export async function rowsFromIndex(
  duck: Duck,
  state: IndexState,
  by: readonly GroupKey[],
  breakdown: boolean,
  s: CountSettings,
  cal: ReturnType<typeof calendar>,
  time: { timed: boolean; timeZone: string | undefined },
): Promise<UsageSnapshot | undefined> {
  const days = time.timed ? await dayList(duck, time.timeZone) : null;
  const source = await sourceSql(duck, state, s, days?.sql ?? null);
  const p = plan(by, breakdown, source, bucketList(days, cal), s);
  const result = (await duck.conn.runAndReadAll(p.sql)).getColumnsJS() as unknown[][];
  const at = (c: number, i: number) => (result[c] as unknown[])[i];
  const width = 1 + p.cols.length;
  const rows = new Map<string, UsageSnapshot["rows"][number]>();
  const models: { key: string; model: string; sums: ExactSums }[] = [];
  let total: ExactSums | undefined;
  for (let i = 0; i < (result[0]?.length ?? 0); i++) {
    if (at(width + 9, i) === false) return undefined;
    const mask = Number(at(0, i));
    const keys: UsageKeys = {};
    for (const [c, col] of p.cols.entries()) if (by.includes(col as GroupKey)) keys[col as GroupKey] = at(1 + c, i) as string | null;
    const sums = sumsOf((k) => at(width + k, i));
    const key = rowKey(by, keys);
    if (mask === p.totalMask) total = sums;
    if (mask === p.rowMask && sums.sessions > 0) rows.set(key, { key, keys, sums, models: [] });
    if (mask === p.modelMask && sums.sessions > 0) models.push({ key, model: String(at(p.cols.indexOf("model") + 1, i)), sums });
  }
  for (const m of models) rows.get(m.key)?.models.push({ model: m.model, sums: m.sums });
  return { rows: [...rows.values()], total: total ?? sumsOf(() => null) };
}

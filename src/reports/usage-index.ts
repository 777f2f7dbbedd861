import type { DamageNote } from "../ops/fleet-files.js";
import type { SpendGroup, SpendRecord, UsageAggregator } from "../ops/fleet-usage.js";
import type { Duck } from "./duck.js";
import type { IndexState } from "./index-db.js";
import { dayList, fixedSql, localDays, QUARTER_SQL, SPEND_TABLE } from "./index-spend.js";
import type { CountNotes, CountSettings } from "./usage-count.js";
import { rowsFromIndex, summedInSql } from "./usage-index-rows.js";

/** What a count reads of each record besides its spend (the rest is left unread: see spendRows and groupSql). */
export interface SpendNeeds {
  time: boolean;
  model: boolean;
  leaf: boolean;
  /** Copies are counted too (else the index leaves them out before they are read). */
  copied: boolean;
  /** The session's project (its header cwd): grouped or filtered by. */
  project: boolean;
  /** The zone of the calendar (undefined: the local one). */
  timeZone: string | undefined;
}

const FIXED_SQL = fixedSql("u.cost").test;

/** The spend rows a count reads (what it does not look at is a constant, not read), each with whether its cost is fixed. */
function spendRows(need: SpendNeeds): string {
  return `SELECT u.session, ${need.time ? QUARTER_SQL : "CAST(NULL AS DOUBLE)"} AS quarter,
  ${need.time ? "CAST(epoch_ms(u.timestamp) AS DOUBLE)" : "CAST(NULL AS DOUBLE)"} AS time,
  u.source = 'assistant' AS assistant, ${need.model ? "u.provider || '/' || u.model" : "'?'"} AS model, ${need.copied ? "u.is_copied" : "false"} AS copied,
  ${need.leaf ? "CAST(u.leaf_line AS DOUBLE)" : "CAST(-1 AS DOUBLE)"} AS leaf, u.line, u.input, u.output, u.cache_read, u.cache_write, u.cache_write_1h, u.cost,
  ${FIXED_SQL} AS fixed
  FROM idx.usage u ${need.copied ? "" : "WHERE NOT u.is_copied"}`;
}

/** Sessions and models as numbers into the dictionaries (texts decoded for every row were most of the time). */
function numbered(sql: string, cols: string): string {
  return `WITH f AS (SELECT path, CAST(row_number() OVER (ORDER BY path) - 1 AS DOUBLE) AS k FROM idx.files),
  m AS (SELECT name, CAST(row_number() OVER (ORDER BY name) - 1 AS DOUBLE) AS k FROM (SELECT DISTINCT provider || '/' || model AS name FROM idx.usage)),
  g AS (${sql})
  SELECT ${cols} FROM g JOIN f ON f.path = g.session LEFT JOIN m ON m.name = g.model`;
}

/**
 * The spend of every session summed per quarter hour of UTC (the calendar's unit: fleet-time.ts), kind, model, leaf
 * and copy state, costs as exact integers of 2^-80: the count adds the sums as it would add each record
 * (exact-sum.ts), a few groups per session instead of every record moved into JavaScript. Without leaves, the
 * index's sums (index-spend.ts) are summed further over what the count does not look at; by leaf, the usage rows.
 * Numbers as DOUBLE (every count fits exactly). Summed first, then numbered: joins on texts cost more than the sums.
 */
function groupSql(need: SpendNeeds, days: string | null): string {
  const cols = "f.k, g.quarter, g.assistant, coalesce(m.k, 0), g.copied, g.leaf, g.n, g.i, g.o, g.cr, g.cw, g.cw1, g.c, g.fixed";
  if (!need.leaf) {
    const sums = `SELECT session, ${need.time ? "min(quarter)" : "CAST(NULL AS DOUBLE)"} AS quarter, assistant, ${need.model ? "model" : "'?'"} AS model,
    ${need.copied ? "copied" : "false"} AS copied, CAST(-1 AS DOUBLE) AS leaf, sum(n) AS n, sum(input) AS i, sum(output) AS o,
    sum(cache_read) AS cr, sum(cache_write) AS cw, sum(cache_write_1h) AS cw1, sum(cost) AS c, fixed
    FROM (${need.time ? localDays(days) : `SELECT * FROM idx.${SPEND_TABLE}`}) ${need.copied ? "" : "WHERE NOT copied"}
    GROUP BY session, ${need.time ? "local_day, change_quarter, " : ""}assistant, ${need.model ? "model, " : ""}${need.copied ? "copied, " : ""}fixed`;
    return numbered(sums, cols);
  }
  const sums = `SELECT session, quarter, assistant, model, copied, leaf, CAST(count(*) AS DOUBLE) AS n, CAST(sum(input) AS DOUBLE) AS i,
  CAST(sum(output) AS DOUBLE) AS o, CAST(sum(cache_read) AS DOUBLE) AS cr, CAST(sum(cache_write) AS DOUBLE) AS cw,
  CAST(sum(cache_write_1h) AS DOUBLE) AS cw1, sum(CASE WHEN fixed THEN ${fixedSql("cost").units} END) AS c, fixed
  FROM (${spendRows(need)}) GROUP BY ALL`;
  return numbered(sums, cols);
}

/** The records whose cost is not a fixed sum's (none, for realistic prices), one by one. */
function restSql(need: SpendNeeds): string {
  const rows = `SELECT * FROM (${spendRows(need)}) WHERE NOT fixed`;
  return `${numbered(rows, "f.k, g.time, g.assistant, coalesce(m.k, 0), g.copied, g.leaf, CAST(g.input AS DOUBLE), CAST(g.output AS DOUBLE), CAST(g.cache_read AS DOUBLE), CAST(g.cache_write AS DOUBLE), CAST(g.cache_write_1h AS DOUBLE), g.cost")} ORDER BY f.k, g.line`;
}

async function dictionary(duck: Duck, sql: string): Promise<string[]> {
  return (await duck.conn.runAndReadAll(sql)).getRowsJS().map((r) => String(r[0]));
}

interface SessionSpend {
  groups: SpendGroup[];
  rest: SpendRecord[];
}

async function columns(duck: Duck, sql: string): Promise<unknown[][]> {
  return (await duck.conn.runAndReadAll(sql)).getColumnsJS() as unknown[][];
}

/** Every indexed file (absolute paths, sorted) and the spend of each that has any. */
async function spendBySession(duck: Duck, need: SpendNeeds): Promise<{ paths: string[]; spends: Map<string, SessionSpend> }> {
  const paths = await dictionary(duck, "SELECT path FROM idx.files ORDER BY path");
  const models = need.model
    ? await dictionary(duck, "SELECT DISTINCT provider || '/' || model AS name FROM idx.usage ORDER BY name")
    : ["?"];
  const out = new Map<string, SessionSpend>();
  const of = (k: number): SessionSpend => {
    const path = paths[k] as string;
    let s = out.get(path);
    if (!s) {
      s = { groups: [], rest: [] };
      out.set(path, s);
    }
    return s;
  };
  const days = need.time && !need.leaf ? await dayList(duck, need.timeZone) : null;
  const g = await columns(duck, groupSql(need, days?.sql ?? null));
  const num = (c: unknown[] | undefined, i: number) => (c as number[])[i] as number;
  // No rows: no columns either.
  let rest = false;
  for (let i = 0; i < (g[0]?.length ?? 0); i++) {
    if ((g[13] as boolean[])[i] !== true) {
      rest = true;
      continue;
    }
    const quarter = (g[1] as (number | null)[])[i] ?? null;
    of(num(g[0], i)).groups.push({
      quarter,
      assistant: (g[2] as boolean[])[i] === true,
      model: models[num(g[3], i)] as string,
      copied: (g[4] as boolean[])[i] === true,
      leafLine: num(g[5], i),
      records: num(g[6], i),
      input: num(g[7], i),
      output: num(g[8], i),
      cacheRead: num(g[9], i),
      cacheWrite: num(g[10], i),
      cacheWrite1h: num(g[11], i),
      cost: (g[12] as bigint[])[i] as bigint,
    });
  }
  if (!rest) return { paths, spends: out };
  const r = await columns(duck, restSql(need));
  for (let i = 0; i < (r[0]?.length ?? 0); i++) {
    const time = (r[1] as (number | null)[])[i] ?? null;
    const [input, output, cacheRead, cacheWrite] = [num(r[6], i), num(r[7], i), num(r[8], i), num(r[9], i)];
    of(num(r[0], i)).rest.push({
      time: time === null ? Number.NaN : time,
      assistant: (r[2] as boolean[])[i] === true,
      model: models[num(r[3], i)] as string,
      usage: {
        input,
        output,
        cacheRead,
        cacheWrite,
        cacheWrite1h: num(r[10], i),
        reasoning: 0,
        totalTokens: input + output + cacheRead + cacheWrite,
        cost: num(r[11], i),
      },
      copied: (r[4] as boolean[])[i] === true,
      leafLine: num(r[5], i),
    });
  }
  return { paths, spends: out };
}

interface FileFacts {
  status: string;
  cwd: string | null;
  problems: DamageNote[];
}

/**
 * By absolute path: what was found of each file, and its session's cwd when the count looks at it. Files read
 * whole with nothing to say are most of a fleet and are not listed.
 */
async function fileFacts(duck: Duck, project: boolean): Promise<Map<string, FileFacts>> {
  const rows = (
    await duck.conn.runAndReadAll(
      project
        ? "SELECT f.path, f.status, s.cwd, f.problems FROM idx.files f LEFT JOIN idx.sessions s ON s.file = f.path"
        : // No join where no cwd is asked for (a third of this query's time).
          "SELECT path, status, NULL, problems FROM idx.files WHERE status <> 'read' OR problems <> '[]'",
    )
  ).getRowsJS();
  const facts = new Map<string, FileFacts>();
  for (const r of rows)
    facts.set(String(r[0]), {
      status: String(r[1]),
      cwd: r[2] === null ? null : String(r[2]),
      problems: JSON.parse(String(r[3])) as DamageNote[],
    });
  return facts;
}

const READ_CLEAN: FileFacts = { status: "read", cwd: null, problems: [] };

/**
 * Counts the index's rows of the files asked about into `agg`, as countFiles counts the sessions themselves: the
 * same project filter and notes, in file order (costs are summed exactly: in any order, the same to the bit).
 */
export async function countFromIndex(
  duck: Duck,
  state: IndexState,
  s: CountSettings,
  agg: UsageAggregator,
  notes: CountNotes,
  need: SpendNeeds,
): Promise<void> {
  if (summedInSql(agg.by, s)) {
    const snap = await rowsFromIndex(duck, state, agg.by, agg.breakdown, s, agg.cal, { timed: need.time, timeZone: need.timeZone });
    if (snap !== undefined) {
      noteFiles(state, await fileFacts(duck, false), notes);
      agg.merge(snap);
      return;
    }
  }
  const { paths, spends } = await spendBySession(duck, need);
  const indexed = new Set(paths);
  const facts = await fileFacts(duck, need.project);
  for (const f of state.scope) {
    if (!indexed.has(f.path)) continue;
    const fact = facts.get(f.path) ?? READ_CLEAN;
    if (fact.status === "skipped") {
      notes.skipped.push(f.name);
      continue;
    }
    const project = fact.cwd;
    if (s.project !== undefined && (project === null || !project.includes(s.project))) continue;
    for (const d of fact.problems) notes.damage.push({ ...d, file: f.name });
    const spend = spends.get(f.path);
    const scope = {
      project,
      name: f.name,
      includeCopied: s.includeCopied,
      ...(s.since !== undefined ? { since: s.since } : {}),
      ...(s.until !== undefined ? { until: s.until } : {}),
    };
    agg.addRecords(spend?.rest ?? [], scope, spend?.groups ?? []);
  }
}

/** The notes of the files asked about (skipped, damaged) when the sums come from SQL: as countFromIndex makes them. */
function noteFiles(state: IndexState, facts: ReadonlyMap<string, FileFacts>, notes: CountNotes): void {
  for (const f of state.scope) {
    const fact = facts.get(f.path);
    if (fact === undefined) continue;
    if (fact.status === "skipped") notes.skipped.push(f.name);
    else for (const d of fact.problems) notes.damage.push({ ...d, file: f.name });
  }
}

import type { DamageNote } from "../ops/fleet-files.js";
import type { SpendRecord, UsageAggregator } from "../ops/fleet-usage.js";
import type { Duck } from "./duck.js";
import type { IndexState } from "./index-db.js";
import { BATCH } from "./pool.js";
import type { CountNotes, CountSettings } from "./usage-count.js";

/** What a count reads of each record besides its spend (the rest is left unread: see spendSql). */
export interface SpendNeeds {
  time: boolean;
  model: boolean;
  leaf: boolean;
  /** Copies are counted too (else the index leaves them out before they are read). */
  copied: boolean;
}

/**
 * The usage rows a count reads, in file order, numbers as numbers (DOUBLE: every count and cost fits exactly). The
 * session and the model come as numbers into small dictionaries (texts decoded for every row were most of the
 * time), and what the count does not look at is a constant (`need`), not read.
 */
function spendSql(need: SpendNeeds): string {
  return `WITH f AS (SELECT path, CAST(row_number() OVER (ORDER BY path) - 1 AS DOUBLE) AS k FROM idx.files),
  m AS (SELECT name, CAST(row_number() OVER (ORDER BY name) - 1 AS DOUBLE) AS k FROM (SELECT DISTINCT provider || '/' || model AS name FROM idx.usage))
  SELECT f.k, ${need.time ? "CAST(epoch_ms(u.timestamp) AS DOUBLE)" : "CAST(0 AS DOUBLE)"}, u.source = 'assistant', ${need.model ? "m.k" : "CAST(0 AS DOUBLE)"},
  CAST(u.input AS DOUBLE), CAST(u.output AS DOUBLE), CAST(u.cache_read AS DOUBLE), CAST(u.cache_write AS DOUBLE),
  CAST(u.cache_write_1h AS DOUBLE), CAST(u.reasoning AS DOUBLE), u.cost, u.is_copied, ${need.leaf ? "CAST(u.leaf_line AS DOUBLE)" : "CAST(0 AS DOUBLE)"}
  FROM idx.usage u JOIN f ON f.path = u.session ${need.model ? "JOIN m ON m.name = u.provider || '/' || u.model" : ""}
  ${need.copied ? "" : "WHERE NOT u.is_copied"} ORDER BY f.k, u.line`;
}

async function dictionary(duck: Duck, sql: string): Promise<string[]> {
  return (await duck.conn.runAndReadAll(sql)).getRowsJS().map((r) => String(r[0]));
}

async function spendBySession(duck: Duck, need: SpendNeeds): Promise<Map<string, SpendRecord[]>> {
  const paths = await dictionary(duck, "SELECT path FROM idx.files ORDER BY path");
  const models = need.model
    ? await dictionary(duck, "SELECT DISTINCT provider || '/' || model AS name FROM idx.usage ORDER BY name")
    : ["?"];
  const cols = (await duck.conn.runAndReadAll(spendSql(need))).getColumnsJS();
  const out = new Map<string, SpendRecord[]>();
  // No rows: no columns either.
  if (cols.length === 0) return out;
  const col = (i: number) => cols[i] as number[];
  const [session, time, model] = [col(0), col(1), col(3)];
  const assistant = cols[2] as boolean[];
  const copied = cols[11] as boolean[];
  const n = session.length;
  let list: SpendRecord[] = [];
  let at = -1;
  for (let i = 0; i < n; i++) {
    const k = session[i] as number;
    if (k !== at) {
      at = k;
      list = [];
      out.set(paths[k] as string, list);
    }
    const input = col(4)[i] as number;
    const output = col(5)[i] as number;
    const cacheRead = col(6)[i] as number;
    const cacheWrite = col(7)[i] as number;
    list.push({
      time: time[i] === null ? Number.NaN : (time[i] as number),
      assistant: assistant[i] === true,
      model: models[model[i] as number] as string,
      usage: {
        input,
        output,
        cacheRead,
        cacheWrite,
        cacheWrite1h: col(8)[i] as number,
        reasoning: col(9)[i] as number,
        totalTokens: input + output + cacheRead + cacheWrite,
        cost: col(10)[i] as number,
      },
      copied: copied[i] === true,
      leafLine: col(12)[i] as number,
    });
  }
  return out;
}

interface FileFacts {
  status: string;
  cwd: string | null;
  problems: DamageNote[];
}

/** By absolute path: what was found of each file, and its session's cwd. */
async function fileFacts(duck: Duck): Promise<Map<string, FileFacts>> {
  const rows = (
    await duck.conn.runAndReadAll("SELECT f.path, f.status, s.cwd, f.problems FROM idx.files f LEFT JOIN idx.sessions s ON s.file = f.path")
  ).getRowsJS();
  const out = new Map<string, FileFacts>();
  for (const r of rows)
    out.set(String(r[0]), {
      status: String(r[1]),
      cwd: r[2] === null ? null : String(r[2]),
      problems: JSON.parse(String(r[3])) as DamageNote[],
    });
  return out;
}

/**
 * Counts the index's rows of the files asked about into `agg`, as countFiles counts the sessions themselves: in
 * file order, a part aggregator per batch of files (so that costs are summed in the same order, to the bit), the
 * same project filter and notes.
 */
export async function countFromIndex(
  duck: Duck,
  state: IndexState,
  s: CountSettings,
  agg: UsageAggregator,
  part: () => UsageAggregator,
  notes: CountNotes,
  need: SpendNeeds,
): Promise<void> {
  const spends = await spendBySession(duck, need);
  const facts = await fileFacts(duck);
  for (let i = 0; i < state.scope.length; i += BATCH) {
    const p = part();
    for (const f of state.scope.slice(i, i + BATCH)) {
      const fact = facts.get(f.path);
      if (fact === undefined) continue;
      if (fact.status === "skipped") {
        notes.skipped.push(f.name);
        continue;
      }
      const project = fact.cwd;
      if (s.project !== undefined && (project === null || !project.includes(s.project))) continue;
      for (const d of fact.problems) notes.damage.push({ ...d, file: f.name });
      p.addRecords(spends.get(f.path) ?? [], {
        project,
        name: f.name,
        includeCopied: s.includeCopied,
        ...(s.since !== undefined ? { since: s.since } : {}),
        ...(s.until !== undefined ? { until: s.until } : {}),
      });
    }
    agg.merge(p.snapshot());
  }
}

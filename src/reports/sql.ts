import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PiEnv } from "../io/discover.js";
import { dropScratch, scratchDir } from "../io/scratch.js";
import type { DamageNote, FleetFailure } from "../ops/fleet-files.js";
import { type SqlValue, TABLE_NAMES, TABLES, type TableName } from "../ops/fleet-tables.js";
import { type Connection, type Duck, DUCK_TYPE, openDuck, quote, selectCsv } from "./duck.js";
import { ReportError, type Report } from "./report.js";
import { writeTables } from "./tables.js";

/** read_json with the table's declared columns and types, so an empty table still has them. */
function readNdjsonExpr(table: TableName, path: string): string {
  const cols = TABLES[table].columns.map((c) => `${quote(c.name)}: ${quote(DUCK_TYPE[c.type])}`).join(", ");
  return `read_json(${quote(path)}, format = 'newline_delimited', columns = {${cols}})`;
}

/** Views named as the tables over files written by `pisess tables` (parquet or ndjson, whichever is there). */
async function createViews(duck: Duck, dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    throw new ReportError(`--tables ${dir}: not a readable directory`);
  }
  for (const t of TABLE_NAMES) {
    let from: string;
    if (names.includes(`${t}.parquet`)) from = `read_parquet(${quote(join(dir, `${t}.parquet`))})`;
    else if (names.includes(`${t}.ndjson`)) from = readNdjsonExpr(t, join(dir, `${t}.ndjson`));
    else throw new ReportError(`--tables ${dir}: no ${t}.parquet or ${t}.ndjson (write them with pisess tables)`);
    await duck.conn.run(`CREATE VIEW ${t} AS SELECT * FROM ${from}`);
  }
}

export interface SqlOptions {
  /** Unreadable folders and files are still reported, but do not make the exit status 2 (--allow-unreadable). */
  allowUnreadable?: boolean;
  query: string;
  targets?: string[];
  /** Tables written by `pisess tables`, instead of reading sessions. */
  tables?: string;
  env: PiEnv;
  cwd: string;
  onProgress?: (done: number, total: number) => void;
  /** Answer from this index database, brought up to date first (src/reports/index-db.ts). */
  db?: string;
  waitMs?: number;
  /** Test hook: awaited inside the index update's transaction. */
  inTransaction?: () => Promise<void>;
}

/** What is known of a query's result before its rows: its columns, and the notes of the sessions read. */
export interface SqlHead {
  columns: string[];
  /** DuckDB's type of each column (BIGINT, VARCHAR, …). */
  types: string[];
  failures: FleetFailure[];
  damage: DamageNote[];
  missingRoot?: string;
}

export interface SqlData extends SqlHead {
  rows: SqlValue[][];
}

/** The rows of a result, a DuckDB chunk (up to 2,048 rows) at a time, as they are made. */
export type SqlRows = AsyncIterable<SqlValue[][]>;

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;

function queryError(err: unknown): ReportError {
  return new ReportError(`query: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`);
}

/** A streaming result's rows as JSON values, integers that fit a double as numbers (DuckDB's JSON gives text). */
async function* resultRows(result: Awaited<ReturnType<Connection["stream"]>>, ints: readonly boolean[]): SqlRows {
  const chunks = result.yieldRowsJson();
  for (;;) {
    let next: IteratorResult<unknown[][]>;
    try {
      next = await chunks.next();
    } catch (err) {
      // A value that fails part way through the result (a cast, say) fails when its chunk is made.
      throw queryError(err);
    }
    if (next.done) return;
    yield (next.value as SqlValue[][]).map((row) =>
      row.map((v, i) => (ints[i] && typeof v === "string" && Number.isSafeInteger(Number(v)) ? Number(v) : v)),
    );
  }
}

/**
 * `pisess sql`: a query over the tables (as views), with embedded DuckDB. The result streams: `consume` gets its
 * columns and its rows chunk by chunk as DuckDB makes them (a result larger than memory is never held), and DuckDB
 * and the staged tables stay until it returns.
 */
export async function sqlStream(opts: SqlOptions, consume: (head: SqlHead, rows: SqlRows) => Promise<void>): Promise<Report<SqlHead>> {
  if (opts.tables !== undefined && (opts.targets ?? []).length > 0)
    throw new ReportError("--tables reads written tables: give no session paths with it");
  if (opts.db !== undefined && opts.tables === undefined) return sqlIndexed(opts, consume);
  // On one thread while the sessions are read (as an index update: index-db.ts openIndex); the query on every core.
  const duck = await openDuck(true);
  let work: string | undefined;
  const head: SqlHead = { columns: [], types: [], failures: [], damage: [] };
  try {
    if (opts.tables !== undefined) await createViews(duck, opts.tables);
    else {
      work = await scratchDir(join(tmpdir(), "pisess-sql-"));
      const t = await writeTables(opts.targets ?? [], work, "csv", opts.env, opts.cwd, opts.onProgress);
      head.failures = t.failures;
      head.damage = t.damage;
      if (t.missingRoot !== undefined) head.missingRoot = t.missingRoot;
      for (const name of TABLE_NAMES)
        await duck.conn.run(`CREATE VIEW ${name} AS ${selectCsv(name, join(work, `${name}.csv`), t.longest[name])}`);
    }
    await duck.conn.run("RESET threads");
    return await runQuery(duck, opts, head, consume);
  } finally {
    duck.close();
    if (work !== undefined) await dropScratch(work);
  }
}

/** sqlStream over the index: views over its rows of the files asked about (index-db.ts scopeViews). */
async function sqlIndexed(opts: SqlOptions, consume: (head: SqlHead, rows: SqlRows) => Promise<void>): Promise<Report<SqlHead>> {
  const { indexOptionsOf, withIndex } = await import("./fleet-index.js");
  const { scopeViews, indexDamage } = await import("./index-db.js");
  return withIndex(indexOptionsOf(opts), async (duck, state) => {
    await scopeViews(duck, state);
    const head: SqlHead = { columns: [], types: [], failures: state.failures, damage: await indexDamage(duck, state.scope) };
    if (state.missingRoot !== undefined) head.missingRoot = state.missingRoot;
    return runQuery(duck, opts, head, consume);
  });
}

async function runQuery(
  duck: Duck,
  opts: SqlOptions,
  head: SqlHead,
  consume: (head: SqlHead, rows: SqlRows) => Promise<void>,
): Promise<Report<SqlHead>> {
  let result: Awaited<ReturnType<Connection["stream"]>>;
  try {
    result = await duck.conn.stream(opts.query);
  } catch (err) {
    throw queryError(err);
  }
  head.columns = result.columnNames();
  head.types = result.columnTypes().map(String);
  await consume(
    head,
    resultRows(
      result,
      head.types.map((t) => INTEGER.test(t)),
    ),
  );
  return { data: head, diagnostics: [], exitCode: head.failures.length > 0 && opts.allowUnreadable !== true ? 2 : 0 };
}

/** `pisess sql` with the whole result in memory (sqlStream streams it). */
export async function sqlReport(opts: SqlOptions): Promise<Report<SqlData>> {
  const rows: SqlValue[][] = [];
  const r = await sqlStream(opts, async (_head, chunks) => {
    for await (const chunk of chunks) for (const row of chunk) rows.push(row);
  });
  return { ...r, data: { ...r.data, rows } };
}

import { lstat, mkdir, open, readdir, rename, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { PiEnv } from "../io/discover.js";
import { dropScratch, forgetScratch, scratchDir } from "../io/scratch.js";
import { type DamageNote, type FleetFailure, fleetFiles } from "../ops/fleet-files.js";
import { ParentCache } from "../ops/fleet-parents.js";
import { TABLE_NAMES, type TableName } from "../ops/fleet-tables.js";
import { batchesOf, runOnThreads, threadCount, workerModule } from "./pool.js";
import { ReportError, type Report } from "./report.js";
import { type ReadState, recycle, type TablesBatchResult, type TablesWorkerInit, tablesBatch } from "./tables-batch.js";
import type { RowText } from "./tables-text.js";

export const TABLE_FORMATS = ["parquet", "ndjson"] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];
/** files: one file per table; hive: a folder per table, Parquet partitioned by day (`messages/day=2026-11-30/…`). */
export const TABLE_LAYOUTS = ["files", "hive"] as const;
export type TableLayout = (typeof TABLE_LAYOUTS)[number];

export interface TablesOptions {
  /** Unreadable folders and files are still reported, but do not make the exit status 2 (--allow-unreadable). */
  allowUnreadable?: boolean;
  targets?: string[];
  /** A new or empty directory. */
  out: string;
  format?: TableFormat;
  layout?: TableLayout;
  env: PiEnv;
  cwd: string;
  onProgress?: (done: number, total: number) => void;
  /** Threads that read sessions (1: this one only); default as for usage (pool.ts threadCount). */
  threads?: number;
}

export interface TablesData {
  out: string;
  format: TableFormat;
  layout: TableLayout;
  /** Rows written per table. */
  rows: Record<TableName, number>;
  files: string[];
  root?: string;
  missingRoot?: string;
  failures: FleetFailure[];
  damage: DamageNote[];
  skipped: string[];
}

/**
 * Refuses an --out that is a symbolic link, exists and is not a directory, or is a directory with anything in it:
 * nothing is ever written into or through an existing path (an empty directory is replaced whole, by a rename).
 */
async function checkOut(out: string): Promise<void> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(out);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) throw new ReportError(`--out ${out}: is a symbolic link (give a new or empty directory)`);
  if (!st.isDirectory()) throw new ReportError(`--out ${out}: exists and is not a directory`);
  if ((await readdir(out)).length > 0) throw new ReportError(`--out ${out}: not empty (give a new or empty directory)`);
}

/**
 * A new folder beside --out for the tables to be written into, renamed onto --out once they all are (outPlace): an
 * interrupted or failed run leaves no half-written --out, and the folder is removed however the run ends.
 */
async function stageOut(out: string): Promise<string> {
  const parent = dirname(resolve(out));
  await mkdir(parent, { recursive: true });
  return scratchDir(join(parent, `.${basename(resolve(out))}.pisess-`), true);
}

/** The staged folder becomes --out (replacing it only while it is an empty directory: rename's own rule). */
async function outPlace(stage: string, out: string): Promise<void> {
  await checkOut(out);
  try {
    await rename(stage, out);
  } catch (err) {
    throw new ReportError(`--out ${out}: could not be put in place (${err instanceof Error ? err.message : String(err)})`);
  }
  forgetScratch(stage);
}

export interface WrittenTables {
  dir: string;
  rows: Record<TableName, number>;
  /** Bytes of each table's longest CSV row (0 for NDJSON): what DuckDB's CSV reader must hold (sql.ts selectCsv). */
  longest: Record<TableName, number>;
  failures: FleetFailure[];
  damage: DamageNote[];
  skipped: string[];
  root?: string;
  missingRoot?: string;
  /** With `states` (the index): what each file read leaves to go on from, in file order. */
  states: ReadState[];
}

/** Writes every table as `<dir>/<table>.<as>`, one session at a time (each loaded, turned to rows, dropped). */
export async function writeTables(
  targets: readonly string[],
  dir: string,
  as: RowText,
  env: PiEnv,
  cwd: string,
  onProgress?: (done: number, total: number) => void,
  threads?: number,
  states = false,
): Promise<WrittenTables> {
  const found = await fleetFiles(targets, env, cwd);
  const failures = [...found.failures];
  const damage: DamageNote[] = [];
  const skipped: string[] = [];
  const kept: ReadState[] = [];
  const rows = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;
  const longest = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;
  const handles = await Promise.all(TABLE_NAMES.map((t) => open(join(dir, `${t}.${as}`), "wx")));
  const total = found.files.length;
  let done = 0;
  const take = async (r: TablesBatchResult, batch: number): Promise<void> => {
    for (const [i, t] of TABLE_NAMES.entries()) {
      rows[t] += r.rows[i] ?? 0;
      longest[t] = Math.max(longest[t], r.longest[i] ?? 0);
      const n = r.lengths[i] ?? 0;
      if (n > 0) await handles[i]?.write(new Uint8Array(r.buffers[i] as ArrayBuffer, 0, n));
    }
    for (const v of r.notes.failures) failures.push(v);
    for (const v of r.notes.damage) damage.push(v);
    for (const v of r.notes.skipped) skipped.push(v);
    for (const v of r.states ?? []) kept.push(v);
    done += batches[batch]?.length ?? 0;
    onProgress?.(done, total);
  };
  const batches = batchesOf(found.files);
  try {
    onProgress?.(0, total);
    const n = threadCount(threads, total);
    const url = n > 1 ? await workerModule("tables-worker.js") : undefined;
    const init: TablesWorkerInit = { as, states };
    if (url !== undefined) await runOnThreads<TablesBatchResult>(url, n, init, batches, take, (r) => r.buffers);
    else {
      const parents = new ParentCache();
      for (const [b, files] of batches.entries()) {
        const r = await tablesBatch(files, parents, as, states);
        await take(r, b);
        recycle(r.buffers);
      }
    }
  } finally {
    await Promise.all(handles.map((h) => h.close()));
  }
  const out: WrittenTables = { dir, rows, longest, failures, damage, skipped, states: kept };
  if (found.root !== undefined) out.root = found.root;
  if (found.missingRoot !== undefined) out.missingRoot = found.missingRoot;
  return out;
}

/** `pisess tables`: the sessions as flat tables (parquet through DuckDB, or NDJSON), one file per table. */
export async function tablesReport(opts: TablesOptions): Promise<Report<TablesData>> {
  const format = opts.format ?? "parquet";
  const layout = opts.layout ?? "files";
  if (!TABLE_FORMATS.includes(format)) throw new ReportError(`--format: one of ${TABLE_FORMATS.join(", ")}`);
  if (!TABLE_LAYOUTS.includes(layout)) throw new ReportError(`--layout: one of ${TABLE_LAYOUTS.join(", ")}`);
  if (layout === "hive" && format !== "parquet") throw new ReportError("--layout hive writes Parquet: give no --format ndjson with it");
  // DuckDB is checked before anything is written.
  const duck = format === "parquet" ? await (await import("./duck.js")).openDuck() : undefined;
  let stage: string | undefined;
  /** The CSV that DuckDB turns into Parquet. */
  let csvDir: string | undefined;
  try {
    await checkOut(opts.out);
    stage = await stageOut(opts.out);
    if (format === "parquet") csvDir = await scratchDir(join(tmpdir(), "pisess-tables-"));
    const work = csvDir ?? stage;
    const as = format === "ndjson" ? "ndjson" : "csv";
    const t = await writeTables(opts.targets ?? [], work, as, opts.env, opts.cwd, opts.onProgress, opts.threads);
    if (duck && layout === "hive") await (await import("./tables-hive.js")).writeHive(duck, work, stage, t.longest);
    else if (duck) {
      // One DuckDB thread per statement: a second thread in one copy nearly doubled its peak memory (505 vs 344 MB
      // on 10,000 sessions) for little gain. Two copies at a time instead, on two connections, the largest tables
      // first, so that neither core waits while the other writes the last table.
      await duck.conn.run("SET threads = 1");
      const { copyToParquet } = await import("./duck.js");
      const csv = (name: TableName): string => join(work, `${name}.csv`);
      const sizes = new Map(await Promise.all(TABLE_NAMES.map(async (n) => [n, (await stat(csv(n))).size] as const)));
      const queue = [...TABLE_NAMES].sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0));
      const lanes = [duck.conn, await duck.connect()];
      // Both lanes end before DuckDB is closed, even when one fails.
      const ends = await Promise.allSettled(
        lanes.map(async (conn) => {
          for (let name = queue.shift(); name !== undefined; name = queue.shift())
            await copyToParquet(conn, name, csv(name), join(stage as string, `${name}.parquet`), t.longest[name]);
        }),
      );
      for (const e of ends) if (e.status === "rejected") throw e.reason;
    }
    await outPlace(stage, opts.out);
    stage = undefined;
    const files = TABLE_NAMES.map((n) => join(opts.out, layout === "hive" ? n : `${n}.${format}`));
    const data: TablesData = {
      out: opts.out,
      format,
      layout,
      rows: t.rows,
      files,
      failures: t.failures,
      damage: t.damage,
      skipped: t.skipped,
    };
    if (t.root !== undefined) data.root = t.root;
    if (t.missingRoot !== undefined) data.missingRoot = t.missingRoot;
    return { data, diagnostics: [], exitCode: t.failures.length > 0 && opts.allowUnreadable !== true ? 2 : 0 };
  } finally {
    duck?.close();
    if (csvDir !== undefined) await dropScratch(csvDir);
    if (stage !== undefined) await dropScratch(stage);
  }
}

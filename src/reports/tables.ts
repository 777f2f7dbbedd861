import { mkdir, mkdtemp, open, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PiEnv } from "../io/discover.js";
import { ioReason } from "../io/errors.js";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { damageNotes, type DamageNote, type FleetFailure, fleetFiles } from "../ops/fleet-files.js";
import { ParentCache } from "../ops/fleet-parents.js";
import { sessionRows } from "../ops/fleet-rows.js";
import { TABLE_NAMES, type TableName } from "../ops/fleet-tables.js";
import { ReportError, type Report } from "./report.js";

export const TABLE_FORMATS = ["parquet", "ndjson"] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];

export interface TablesOptions {
  targets?: string[];
  /** A new or empty directory. */
  out: string;
  format?: TableFormat;
  env: PiEnv;
  cwd: string;
  onProgress?: (done: number, total: number) => void;
}

export interface TablesData {
  out: string;
  format: TableFormat;
  /** Rows written per table. */
  rows: Record<TableName, number>;
  files: string[];
  root?: string;
  missingRoot?: string;
  failures: FleetFailure[];
  damage: DamageNote[];
  skipped: string[];
}

/** Refuses an --out that exists and is not an empty directory (nothing is ever overwritten). */
async function prepareOut(out: string): Promise<void> {
  let isDir = false;
  try {
    isDir = (await stat(out)).isDirectory();
  } catch {
    await mkdir(out, { recursive: true });
    return;
  }
  if (!isDir) throw new ReportError(`--out ${out}: exists and is not a directory`);
  if ((await readdir(out)).length > 0) throw new ReportError(`--out ${out}: not empty (give a new or empty directory)`);
}

export interface NdjsonTables {
  dir: string;
  rows: Record<TableName, number>;
  failures: FleetFailure[];
  damage: DamageNote[];
  skipped: string[];
  root?: string;
  missingRoot?: string;
}

/** Writes every table as `<dir>/<table>.ndjson`, one session at a time (each loaded, turned to rows, dropped). */
export async function writeNdjsonTables(
  targets: readonly string[],
  dir: string,
  env: PiEnv,
  cwd: string,
  onProgress?: (done: number, total: number) => void,
): Promise<NdjsonTables> {
  const found = await fleetFiles(targets, env, cwd);
  const failures = [...found.failures];
  const damage: DamageNote[] = [];
  const skipped: string[] = [];
  const rows = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;
  const handles = await Promise.all(TABLE_NAMES.map((t) => open(join(dir, `${t}.ndjson`), "wx")));
  const parents = new ParentCache();
  try {
    let done = 0;
    for (const path of found.files) {
      onProgress?.(done++, found.files.length);
      let session: Session;
      let st: Awaited<ReturnType<typeof stat>>;
      try {
        st = await stat(path);
        session = await loadSession({ kind: "file", path });
      } catch (err) {
        failures.push({ path, reason: ioReason(err) });
        continue;
      }
      try {
        if (session.header === null || session.diagnostics.some((d) => d.code === "foreign-format")) {
          skipped.push(path);
          continue;
        }
        damage.push(...damageNotes(path, session.diagnostics));
        const fork = await parents.copied(session);
        const r = sessionRows(session, {
          file: path,
          bytes: st.size,
          mtimeMs: st.mtimeMs,
          ...(fork.parent !== undefined ? { parent: fork.parent, parentExists: fork.exists } : {}),
          ...(fork.mask !== undefined ? { copied: fork.mask } : {}),
        });
        for (const [i, t] of TABLE_NAMES.entries()) {
          const list = r[t];
          if (list.length === 0) continue;
          rows[t] += list.length;
          await handles[i]?.write(list.map((o) => `${JSON.stringify(o)}\n`).join(""));
        }
      } finally {
        session.store.close();
      }
    }
    onProgress?.(done, found.files.length);
  } finally {
    await Promise.all(handles.map((h) => h.close()));
  }
  const out: NdjsonTables = { dir, rows, failures, damage, skipped };
  if (found.root !== undefined) out.root = found.root;
  if (found.missingRoot !== undefined) out.missingRoot = found.missingRoot;
  return out;
}

/** `pisess tables`: the sessions as flat tables (parquet through DuckDB, or NDJSON), one file per table. */
export async function tablesReport(opts: TablesOptions): Promise<Report<TablesData>> {
  const format = opts.format ?? "parquet";
  if (!TABLE_FORMATS.includes(format)) throw new ReportError(`--format: one of ${TABLE_FORMATS.join(", ")}`);
  // DuckDB is checked before anything is written.
  const duck = format === "parquet" ? await (await import("./sql.js")).openDuck() : undefined;
  await prepareOut(opts.out);
  const work = format === "ndjson" ? opts.out : await mkdtemp(join(tmpdir(), "pisess-tables-"));
  try {
    const t = await writeNdjsonTables(opts.targets ?? [], work, opts.env, opts.cwd, opts.onProgress);
    if (duck) {
      const { copyToParquet } = await import("./sql.js");
      for (const name of TABLE_NAMES) await copyToParquet(duck, name, join(work, `${name}.ndjson`), join(opts.out, `${name}.parquet`));
    }
    const files = TABLE_NAMES.map((n) => join(opts.out, `${n}.${format}`));
    const data: TablesData = { out: opts.out, format, rows: t.rows, files, failures: t.failures, damage: t.damage, skipped: t.skipped };
    if (t.root !== undefined) data.root = t.root;
    if (t.missingRoot !== undefined) data.missingRoot = t.missingRoot;
    return { data, diagnostics: [], exitCode: t.failures.length > 0 ? 2 : 0 };
  } finally {
    duck?.close();
    if (work !== opts.out) await rm(work, { recursive: true, force: true });
  }
}

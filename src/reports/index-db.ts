import { createHash } from "node:crypto";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { PiEnv } from "../io/discover.js";
import { absolutePath, type FileMarks, fileMarks, isInside, unchangedSince } from "../io/index-file.js";
import { ioReason } from "../io/errors.js";
import { dropScratch, scratchDir } from "../io/scratch.js";
import type { DamageNote, FleetFailure, FleetFiles } from "../ops/fleet-files.js";
import { TABLE_NAMES, TABLES, type TableName } from "../ops/fleet-tables.js";
import { type Connection, type Duck, DUCK_TYPE, openDuck, quote, selectCsv } from "./duck.js";
import { insertSpendSums, SPEND_COLUMNS, SPEND_TABLE } from "./index-spend.js";
import { ReportError } from "./report.js";
import { applyGrown, type GrownRead, grownStates, readGrown } from "./index-grow.js";
import { RESUME_WINDOW_MS } from "./index-state.js";
import { writeTables } from "./tables.js";

/**
 * The index: one DuckDB file holding the rows of `pisess tables` (and `files`, what was read of each session file),
 * brought up to date by re-reading only the sessions that changed, in one transaction per update. It is attached as
 * `idx`; views named as the tables (restricted to the files asked about) sit in the in-memory main schema.
 */

/** The key column of each table: the session file its rows come from. */
const KEY: Record<TableName, string> = {
  sessions: "file",
  entries: "session",
  messages: "session",
  tool_calls: "session",
  usage: "session",
  leaves: "session",
};

/**
 * No key index on path: an update deletes a path's row before it inserts one, and the index made every update's
 * checkpoint (at close) rewrite it: 49-64 ms of the files table's checkpoint against 17-31 ms for a table without one.
 */
const FILES_COLUMNS = [
  "path VARCHAR NOT NULL",
  "size BIGINT NOT NULL",
  "mtime_ms DOUBLE NOT NULL",
  "fingerprint VARCHAR NOT NULL",
  "bytes_ingested BIGINT",
  "last_line_end BIGINT NOT NULL",
  "status VARCHAR NOT NULL",
  "problems VARCHAR NOT NULL",
  "parent VARCHAR",
  "parent_stat VARCHAR",
  "indexed_at TIMESTAMPTZ NOT NULL",
  /** Device, inode and ctime when read (io/index-file.ts statId): with size and mtime, an unchanged file is not opened. */
  "stat_id VARCHAR",
];

/**
 * What the loader needs to go on reading each file from its last line end (index-state.ts), apart from `files`: only
 * an update reads it, and only for files that grew. No key index: an update deletes a path's row before it inserts
 * one (and an index there made each update's checkpoint slower by a third).
 */
const RESUME_COLUMNS = ["path VARCHAR NOT NULL", "start_offset BIGINT NOT NULL", "state BLOB NOT NULL"];

/**
 * What the rows mean beyond their shapes, bumped when that changes: 2, files.stat_id is null only for a file whose
 * last line was held back (before, for every file that did not end in a newline).
 */
const RULES = 2;

/** Tables' shapes and rules: an index made by a pisess with other columns or rules is rebuilt whole. */
const SCHEMA_VERSION = createHash("sha256")
  .update(
    JSON.stringify([
      TABLE_NAMES.map((t) => TABLES[t].columns.map((c) => [c.name, c.type])),
      FILES_COLUMNS,
      RESUME_COLUMNS,
      SPEND_COLUMNS,
      RULES,
    ]),
  )
  .digest("hex")
  .slice(0, 16);

/** How long a run waits for another one's update to end before saying so (exit 2). */
const DEFAULT_WAIT_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isLockError(err: unknown): boolean {
  return /lock/i.test(err instanceof Error ? err.message : String(err));
}

/**
 * Refuses a database path inside a folder of sessions or onto a session file: DuckDB writes the file (and its
 * `.wal`) itself, so this is the check output-file.ts would make.
 */
export function checkDbPath(db: string, sessionRoots: readonly string[]): void {
  for (const root of sessionRoots) {
    if (isInside(db, root)) throw new ReportError(`--db ${db}: is inside ${root}, a folder of sessions (the index lives in the cache dir)`);
  }
  if (/\.jsonl$/i.test(db)) throw new ReportError(`--db ${db}: a .jsonl path is a session file's name`);
}

/**
 * DuckDB (in memory) with the index attached as `idx`: waits up to `waitMs` for another run holding its lock. It runs
 * on one thread: an update is mostly this thread's work (listing, statting, reading sessions), and on two cores
 * DuckDB's idle worker threads slowed it (20 grown and 10 added of 10,000 sessions: 25 ms less of 800, 12 pairs; a
 * first build 0.56 s less of 9.5). A big update's statements, and the answer after an update, get every core back
 * (RESET threads): a heavy answer on one thread took longer (usage --by leaf: 46 ms more).
 */
export async function openIndex(db: string, waitMs = DEFAULT_WAIT_MS, onWait?: () => void): Promise<Duck> {
  const duck = await openDuck(true);
  try {
    mkdirSync(dirname(resolve(db)), { recursive: true });
  } catch (err) {
    duck.close();
    throw new ReportError(`--db ${db}: ${ioReason(err)}`);
  }
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      await duck.conn.run(`ATTACH ${quote(resolve(db))} AS idx`);
      break;
    } catch (err) {
      if (isLockError(err) && Date.now() < until) {
        onWait?.();
        await sleep(100);
        continue;
      }
      duck.close();
      if (isLockError(err)) throw new ReportError(`another pisess index is updating ${db}: try again when it has finished`);
      throw new ReportError(`--db ${db}: not a pisess index (${(err instanceof Error ? err.message : String(err)).split("\n")[0]})`);
    }
  }
  return duck;
}

function createTables(): string[] {
  const out = TABLE_NAMES.map(
    (t) => `CREATE TABLE idx.${t} (${TABLES[t].columns.map((c) => `${c.name} ${DUCK_TYPE[c.type]}`).join(", ")})`,
  );
  out.push(`CREATE TABLE idx.files (${FILES_COLUMNS.join(", ")})`);
  out.push(`CREATE TABLE idx.${SPEND_TABLE} (${SPEND_COLUMNS.join(", ")})`);
  out.push(`CREATE TABLE idx.resume (${RESUME_COLUMNS.join(", ")})`);
  out.push("CREATE TABLE idx.meta (key VARCHAR PRIMARY KEY, value VARCHAR)");
  out.push(`INSERT INTO idx.meta VALUES ('schema', ${quote(SCHEMA_VERSION)})`);
  return out;
}

/** Makes the tables of a new index, or of one another pisess made with other columns (dropped first). */
async function ensureSchema(conn: Connection): Promise<void> {
  const names = (await conn.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE database_name = 'idx'")).getRowsJS();
  const have = new Set(names.map((r) => String(r[0])));
  if (have.has("meta")) {
    const v = (await conn.runAndReadAll("SELECT value FROM idx.meta WHERE key = 'schema'")).getRowsJS();
    if (v[0]?.[0] === SCHEMA_VERSION) return;
  }
  await conn.run("BEGIN TRANSACTION");
  try {
    for (const t of have) await conn.run(`DROP TABLE idx.${t}`);
    for (const s of createTables()) await conn.run(s);
    await conn.run("COMMIT");
  } catch (err) {
    await conn.run("ROLLBACK");
    throw err;
  }
}

/** One file asked about: its absolute path (the index's key) and the path as found (how outputs name it). */
export interface ScopeFile {
  path: string;
  name: string;
}

interface Known {
  size: number;
  mtimeMs: number;
  fingerprint: string;
  status: string;
  parent: string | null;
  parentStat: string | null;
  lastLineEnd: number;
  /** Where a read of what was appended would start (the state's line end), when there is a state. */
  resumeAt: number | null;
}

/** What every indexed file is checked by, cheaply: its statId when it was read to its end (else null), its fork parent. */
interface KnownSig {
  /** null: the file's last line was held back when it was read: it is looked at again. */
  statId: string | null;
  parent: string | null;
  parentStat: string | null;
}

/** NUL, the one byte no path holds: the fields and rows of knownSigs's one text. */
const NUL = "\u0000";
/** A null field in that text (no statId, parent or parent_stat holds it either). */
const NONE = "\u0001";

/**
 * Every indexed file's signature, in one text made by DuckDB and split here: 10,000 rows turned into JavaScript values
 * one by one were most of the time of an update that found nothing (56 -> 17 ms).
 */
async function knownSigs(conn: Connection): Promise<Map<string, KnownSig>> {
  const field = (sql: string) => `coalesce(${sql}, chr(1))`;
  const row = ["path", field("stat_id"), field("parent"), field("parent_stat")].join(" || chr(0) || ");
  const text = (await conn.runAndReadAll(`SELECT string_agg(${row}, chr(0)) FROM idx.files`)).getRowsJS()[0]?.[0];
  const out = new Map<string, KnownSig>();
  if (typeof text !== "string") return out;
  const parts = text.split(NUL);
  const orNull = (v: string | undefined) => (v === undefined || v === NONE ? null : v);
  for (let i = 0; i + 3 < parts.length; i += 4)
    out.set(parts[i] as string, { statId: orNull(parts[i + 1]), parent: orNull(parts[i + 2]), parentStat: orNull(parts[i + 3]) });
  return out;
}

/** Everything the index knows of the files `paths` (those that may have changed). */
async function knownFiles(conn: Connection, dir: string, paths: readonly string[]): Promise<Map<string, Known>> {
  const out = new Map<string, Known>();
  if (paths.length === 0) return out;
  const rows = (
    await conn.runAndReadAll(
      `SELECT f.path, size, mtime_ms, fingerprint, status, parent, parent_stat, last_line_end, r.start_offset FROM idx.files f LEFT JOIN idx.resume r ON r.path = f.path WHERE f.path IN (${pathsQuery(dir, "asked", paths)})`,
    )
  ).getRowsJS();
  for (const r of rows)
    out.set(String(r[0]), {
      size: Number(r[1]),
      mtimeMs: Number(r[2]),
      fingerprint: String(r[3]),
      status: String(r[4]),
      parent: r[5] === null ? null : String(r[5]),
      parentStat: r[6] === null ? null : String(r[6]),
      lastLineEnd: Number(r[7]),
      resumeAt: r[8] === null ? null : Number(r[8]),
    });
  return out;
}

/** A parent's size and mtime as text ("missing" when it is not a file): a fork is re-read when it changes. */
type StatSig = (path: string) => string;

/**
 * statSig for one update: from the marks of the files it looked at, else from one stat of the parent, kept for the
 * rest of the update (many forks share a parent: 987 forks of 413 parents in the bench's fleet).
 */
function statSigs(marks: ReadonlyMap<string, FileMarks>): StatSig {
  const statted = new Map<string, string>();
  return (path) => {
    const m = marks.get(path);
    if (m) return `${m.size}:${m.mtimeMs}`;
    let sig = statted.get(path);
    if (sig === undefined) {
      try {
        const st = statSync(path);
        sig = st.isFile() ? `${st.size}:${st.mtimeMs}` : "missing";
      } catch {
        sig = "missing";
      }
      statted.set(path, sig);
    }
    return sig;
  };
}

export interface IndexOptions {
  /** The database file. */
  db: string;
  targets: string[];
  env: PiEnv;
  cwd: string;
  onProgress?: (done: number, total: number) => void;
  threads?: number;
  /** How long to wait for another run's update (ms). */
  waitMs?: number;
  /** Awaited inside the update's transaction, before it commits (tests kill the run there). */
  inTransaction?: () => Promise<void>;
}

/** What an update did. */
export interface IndexUpdate {
  db: string;
  /** Session files asked about. */
  files: number;
  unchanged: number;
  added: number;
  /** Read whole again: shrunk, rewritten, a fork whose parent changed, or grown where going on is not sure. */
  changed: number;
  /** Grown, and read only from their last line end on (the rows of their new lines added, their tree's made again). */
  appended: number;
  removed: number;
  /** Bytes of session lines this update read (of appended files, only those after their last line end). */
  bytesRead: number;
  /** Rows written per table by this update. */
  rows: Record<TableName, number>;
}

export interface IndexState {
  update: IndexUpdate;
  scope: ScopeFile[];
  /** How many files the index holds besides those asked about (scopeIsWhole). */
  outside: number;
  root?: string;
  missingRoot?: string;
  failures: FleetFailure[];
}

/** The files still as they were read (one stat each, unchanged since: io/index-file.ts), and the others. */
function statPass(found: readonly ScopeFile[], sigs: ReadonlyMap<string, KnownSig>) {
  const still = new Map<string, FileMarks>();
  const others: ScopeFile[] = [];
  for (const f of found) {
    const statId = sigs.get(f.path)?.statId;
    const now = statId == null ? undefined : unchangedSince(f.path, statId);
    // The header and line end are the ones read before; only a fork's parent can still make it read again.
    // A literal, not a spread of `now`: spreading was half of this pass (10,000 files: 24-49 ms against 2.5 ms).
    if (now !== undefined && statId != null)
      still.set(f.path, { size: now.size, mtimeMs: now.mtimeMs, fingerprint: "", lastLineEnd: now.size, statId });
    else others.push(f);
  }
  return { still, others };
}

/** Which files to re-read and which to drop: the format's rules (a file only grows; its header names it). */
function plan(
  found: readonly ScopeFile[],
  sigs: ReadonlyMap<string, KnownSig>,
  still: ReadonlyMap<string, FileMarks>,
  known: Map<string, Known>,
  failures: FleetFailure[],
) {
  const marks = new Map<string, FileMarks>(still);
  const statSig = statSigs(marks);
  const failed = new Set<string>();
  const mark = (f: ScopeFile) => {
    try {
      marks.set(f.path, fileMarks(f.path, known.get(f.path)));
    } catch (err) {
      marks.delete(f.path);
      failed.add(f.path);
      failures.push({ path: f.name, reason: ioReason(err) });
    }
  };
  // A new file is marked by its reader (tables-batch.ts): nothing here depends on its marks.
  for (const f of found) if (!still.has(f.path) && sigs.has(f.path)) mark(f);
  const redo: string[] = [];
  const grow: string[] = [];
  let added = 0;
  for (const f of found) {
    const s = sigs.get(f.path);
    if (!s) {
      added++;
      redo.push(f.path);
      continue;
    }
    if (still.has(f.path)) {
      if (s.parent == null || s.parentStat === statSig(s.parent)) continue;
      // A fork whose parent changed is read whole: its marks as a read takes them.
      mark(f);
      if (marks.has(f.path)) redo.push(f.path);
      continue;
    }
    const m = marks.get(f.path);
    if (!m) continue;
    const k = known.get(f.path);
    // A file that ended in a half-written line is read again (the snapshot rule held it back, or it was damage).
    const same =
      k !== undefined &&
      k.lastLineEnd === k.size &&
      k.size === m.size &&
      k.mtimeMs === m.mtimeMs &&
      k.fingerprint === m.fingerprint &&
      (k.parent === null || k.parentStat === statSig(k.parent));
    if (same) continue;
    // Grown with the same header and parent, a line end still where the last read stopped: read from there on.
    const grown =
      k !== undefined &&
      k.resumeAt !== null &&
      m.size >= k.size &&
      m.size > k.resumeAt &&
      m.lineEndAt === true &&
      k.fingerprint === m.fingerprint &&
      (k.parent === null || k.parentStat === statSig(k.parent));
    (grown ? grow : redo).push(f.path);
  }
  const inScope = new Set(found.map((f) => f.path));
  // Gone: no longer on disk (wherever it was found), or asked about and now unreadable.
  const gone = [...sigs.keys()].filter((p) => failed.has(p) || (!inScope.has(p) && !existsSync(p)));
  // Files the index keeps that were not asked about (found earlier elsewhere, still on disk).
  const outside = sigs.size - gone.length - [...inScope].filter((p) => sigs.has(p) && !failed.has(p)).length;
  return { marks, statSig, redo, grow, gone, added, outside };
}

interface FileRow {
  path: string;
  size: number;
  mtime_ms: number;
  fingerprint: string;
  last_line_end: number;
  status: string;
  problems: string;
  parent: string | null;
  parent_stat: string | null;
  stat_id: string | null;
}

/** What an update read: each file's fork parent (as its sessions row names it), and the notes of the reads. */
interface Read {
  parents: ReadonlyMap<string, string | null>;
  /** The files whose unterminated last line the read held back (looked at again by the next update). */
  held: ReadonlySet<string>;
  damage: readonly DamageNote[];
  skipped: readonly string[];
  failures: readonly FleetFailure[];
}

/** The files rows of the sessions just read (their marks from before the read: a later change is seen next run). */
function fileRows(read: Read, paths: readonly string[], marks: Map<string, FileMarks>, statSig: StatSig): FileRow[] {
  const parents = read.parents;
  const problems = new Map<string, DamageNote[]>();
  for (const d of read.damage) problems.set(d.file, [...(problems.get(d.file) ?? []), d]);
  const skipped = new Set(read.skipped);
  const failed = new Set(read.failures.map((f) => f.path));
  const rows: FileRow[] = [];
  for (const path of paths) {
    const m = marks.get(path);
    if (!m || failed.has(path)) continue;
    const parent = parents.get(path) ?? null;
    rows.push({
      path,
      size: m.size,
      mtime_ms: m.mtimeMs,
      fingerprint: m.fingerprint,
      last_line_end: m.lastLineEnd,
      status: skipped.has(path) ? "skipped" : "read",
      problems: JSON.stringify(problems.get(path) ?? []),
      parent,
      parent_stat: parent === null ? null : statSig(parent),
      // None for a file whose last line was held back: the next update looks at it again (the line may be finished
      // by then). A file that ends in an unfinished line read as it is (older than the snapshot rule's seconds) is
      // told by its stat as any other (before, it was read again by every update).
      stat_id: read.held.has(path) ? null : m.statId,
    });
  }
  return rows;
}

const FILE_JSON_COLUMNS =
  "{path: 'VARCHAR', size: 'BIGINT', mtime_ms: 'DOUBLE', fingerprint: 'VARCHAR', last_line_end: 'BIGINT', status: 'VARCHAR', problems: 'VARCHAR', parent: 'VARCHAR', parent_stat: 'VARCHAR', stat_id: 'VARCHAR'}";

/** Writes `rows` as NDJSON into `dir` and gives the query reading them (with `columns`, read_json's). */
function ndjson(dir: string, name: string, rows: readonly object[], columns: string): string {
  const file = join(dir, `${name}.ndjson`);
  writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return `read_json(${quote(file)}, format = 'newline_delimited', columns = ${columns})`;
}

/** Where the spend sums of an update's sessions come from (index-spend.ts spendSumsSql's FROM clauses). */
function spendSources(
  csvDir: string,
  t: Awaited<ReturnType<typeof writeTables>>,
  g: GrownRead,
  grownPaths: string,
  empty: boolean,
): string[] {
  if (empty) return ["idx.usage u"];
  const from: string[] = [];
  if (t.rows.usage > 0) from.push(`(${selectCsv("usage", join(csvDir, "usage.csv"), t.longest.usage)}) u`);
  if (g.appended.length > 0) from.push(`idx.usage u WHERE u.session IN (${grownPaths})`);
  return from;
}

/** A query giving `ps`, from an NDJSON file written into `dir`. */
function pathsQuery(dir: string, name: string, ps: readonly string[]): string {
  return `SELECT path FROM ${ndjson(
    dir,
    name,
    ps.map((path) => ({ path })),
    "{path: 'VARCHAR'}",
  )}`;
}

/**
 * The statements that drop the rows of the files `paths` (a query) gives: `whole`, every row of a file to be read
 * whole or gone; else (an appended file) only the rows made from its whole tree, its spend sums and files rows (its
 * per-line rows are patched: index-grow.ts).
 */
function dropSql(paths: string, whole: boolean): string {
  const tables = whole ? TABLE_NAMES : (["leaves", "sessions"] as const);
  return [
    ...tables.map((t) => `DELETE FROM idx.${t} WHERE ${KEY[t]} IN (${paths})`),
    `DELETE FROM idx.${SPEND_TABLE} WHERE session IN (${paths})`,
    ...["files", "resume"].map((t) => `DELETE FROM idx.${t} WHERE path IN (${paths})`),
  ].join(";\n");
}

/**
 * The update's transaction, begun, with the rows of the files known to go (re-read whole or gone) being dropped: the
 * DELETEs (each scans its table; 60-70 ms of DuckDB's work for 20 grown and 10 added of 10,000) run on DuckDB's thread
 * while this one reads the sessions: that update run 30-40 ms less of 760-795 (interleaved pairs). One text of
 * statements, not one call each: the reading leaves no turn of the event loop to start the next one.
 */
async function begin(conn: Connection, csvDir: string, drop: readonly string[], empty: boolean): Promise<{ dropped: Promise<unknown> }> {
  await conn.run("BEGIN TRANSACTION");
  const sql = drop.length > 0 && !empty ? dropSql(pathsQuery(csvDir, "drop", drop), true) : "";
  const dropped = sql === "" ? Promise.resolve() : conn.run(sql);
  // Awaited after the reading, or not at all when the reading fails first (the ROLLBACK undoes it).
  dropped.catch(() => undefined);
  return { dropped };
}

/**
 * The rest of the update, in the transaction `begin` opened: the rows of the grown files that could not go on from
 * their states dropped; the new rows inserted; for the appended files, their new lines' rows and tree (index-grow.ts);
 * the files rows, and the states to go on from.
 */
async function apply(
  conn: Connection,
  csvDir: string,
  files: readonly FileRow[],
  t: Awaited<ReturnType<typeof writeTables>>,
  g: GrownRead,
  empty: boolean,
): Promise<void> {
  // Read in each statement, not staged in a temporary table: one transaction writes to one database only.
  const grownPaths = pathsQuery(csvDir, "grown", g.appended);
  const filesRows = ndjson(csvDir, "files", files, FILE_JSON_COLUMNS);
  const states = [...t.states, ...g.states].flatMap((r) =>
    r.state === undefined || r.at === undefined
      ? []
      : [{ path: r.path, start_offset: r.at, state: Buffer.from(r.state).toString("base64") }],
  );
  const stateRows = ndjson(csvDir, "states", states, "{path: 'VARCHAR', start_offset: 'BIGINT', state: 'VARCHAR'}");
  if (g.fallback.length > 0) await conn.run(dropSql(pathsQuery(csvDir, "fallback", g.fallback), true));
  if (g.appended.length > 0) await conn.run(dropSql(grownPaths, false));
  for (const name of TABLE_NAMES)
    if (t.rows[name] > 0) await conn.run(`INSERT INTO idx.${name} ${selectCsv(name, join(csvDir, `${name}.csv`), t.longest[name])}`);
  if (g.appended.length > 0) await applyGrown(conn, g);
  // The spend sums of every session whose usage rows were just replaced or patched: of a file read whole, from the
  // rows just read (summing them out of idx.usage scanned the whole table for a few sessions' rows); of an appended
  // file, from idx.usage, where its earlier rows were patched.
  await insertSpendSums(conn, spendSources(csvDir, t, g, grownPaths, empty));
  if (files.length > 0)
    await conn.run(
      `INSERT INTO idx.files SELECT j.path, j.size, j.mtime_ms, j.fingerprint, s.bytes, j.last_line_end, j.status, j.problems, j.parent, j.parent_stat, now(), j.stat_id FROM ${filesRows} j LEFT JOIN idx.sessions s ON s.file = j.path`,
    );
  // The states of files that have aged out of the window go (their next growth reads them whole).
  await conn.run(`DELETE FROM idx.resume WHERE path IN (SELECT path FROM idx.files WHERE mtime_ms < ${Date.now() - RESUME_WINDOW_MS})`);
  if (states.length > 0) await conn.run(`INSERT INTO idx.resume SELECT path, start_offset, from_base64(state) FROM ${stateRows}`);
}

/** Files read in one update from which it inserts in parallel, under a memory bound. */
const BIG_UPDATE = 500;

/**
 * Brings the index up to date for the files of `targets` (or the whole sessions dir) and says what it did; `listing`:
 * those files, listed already.
 */
export async function updateIndex(duck: Duck, opts: IndexOptions, listing: Promise<FleetFiles>): Promise<IndexState> {
  const conn = duck.conn;
  let asked: Promise<Map<string, KnownSig>> | undefined;
  let found: FleetFiles;
  try {
    await ensureSchema(conn);
    // Asked for before the listing is awaited: DuckDB makes the text off this thread (its query runs on a worker of
    // the thread pool) while the listing, begun before the index was opened (fleet-index.ts withIndex), ends.
    asked = knownSigs(conn);
    found = await listing;
  } catch (err) {
    await Promise.all([asked?.catch(() => undefined), listing.catch(() => undefined)]);
    throw err;
  }
  const sigs = await asked;
  const scope: ScopeFile[] = found.files.map((name) => ({ path: absolutePath(opts.cwd, name), name }));
  const db = resolve(opts.cwd, opts.db);
  if (scope.some((f) => f.path === db)) throw new ReportError(`--db ${opts.db}: is one of the sessions`);
  const failures = [...found.failures];
  const { still, others } = statPass(scope, sigs);
  const csvDir = await scratchDir(join(tmpdir(), "pisess-index-"));
  try {
    const known = await knownFiles(
      conn,
      csvDir,
      others.filter((f) => sigs.has(f.path)).map((f) => f.path),
    );
    const { marks, statSig, redo: whole, grow, gone, added, outside } = plan(scope, sigs, still, known, failures);
    await restat(conn, csvDir, others, sigs, marks, new Set([...whole, ...grow]));
    if (whole.length + grow.length + gone.length === 0) {
      const rows = Object.fromEntries(TABLE_NAMES.map((n) => [n, 0])) as Record<TableName, number>;
      const update = {
        db: opts.db,
        files: scope.length,
        unchanged: marks.size,
        added: 0,
        changed: 0,
        appended: 0,
        removed: 0,
        bytesRead: 0,
        rows,
      };
      return stateOf(update, found, scope, failures, outside);
    }
    const grown = await grownStates(conn, grow);
    // A first build: nothing to delete, and every usage row is to be summed.
    const empty = sigs.size === 0;
    const tx = await begin(conn, csvDir, [...whole, ...grown.whole, ...gone], empty);
    let t: Awaited<ReturnType<typeof writeTables>>;
    let g: GrownRead;
    let redo: string[];
    /** The files marked before the reading: those unchanged, and those read again or appended to. */
    let planned: number;
    try {
      // The grown files first: those that cannot go on from their state are read whole with the others.
      g = await readGrown(grown, csvDir);
      redo = [...whole, ...g.whole];
      // No files to read is not no targets (which would read the whole sessions dir).
      t = await writeTables(redo.length > 0 ? redo : [csvDir], csvDir, "csv", opts.env, opts.cwd, opts.onProgress, opts.threads, true);
      for (const f of t.failures) failures.push({ path: scope.find((s) => s.path === f.path)?.name ?? f.path, reason: f.reason });
      planned = marks.size;
      for (const r of t.states) if (r.marks !== undefined && !marks.has(r.path)) marks.set(r.path, r.marks);
      const read: Read = {
        // From the reads themselves: reading them back from the sessions rows was two queries.
        parents: new Map([...t.states, ...g.states].map((r) => [r.path, r.parent])),
        held: new Set([...t.states, ...g.states].flatMap((r) => (r.held ? [r.path] : []))),
        damage: [...t.damage, ...g.damage],
        skipped: t.skipped,
        failures: t.failures,
      };
      const files = fileRows(read, [...redo, ...g.appended], marks, statSig);
      await tx.dropped;
      // For a big update only (queries after it keep DuckDB's defaults: rows in order, memory as needed): rows are
      // looked up by session, never by their order of insertion, so DuckDB may insert them in parallel; and a bound
      // on its memory (10,000 sessions: 25.7 -> 19.3 s CPU, 488 -> 551 MB peak; without the bound 688 MB). A few
      // files' rows gain nothing from either, and the four statements cost a few ms of such an update.
      const big = redo.length + g.appended.length >= BIG_UPDATE;
      if (big) await conn.run("SET preserve_insertion_order = false; SET memory_limit = '512MB'; RESET threads");
      try {
        await apply(conn, csvDir, files, t, g, empty);
      } finally {
        if (big) await conn.run("RESET preserve_insertion_order; RESET memory_limit; SET threads = 1");
      }
      await opts.inTransaction?.();
      await conn.run("COMMIT");
    } catch (err) {
      await tx.dropped.catch(() => undefined);
      await conn.run("ROLLBACK").catch(() => undefined);
      throw err;
    }
    const rows = Object.fromEntries(TABLE_NAMES.map((n) => [n, t.rows[n] + g.fresh.rows[n]])) as Record<TableName, number>;
    const update: IndexUpdate = {
      db: opts.db,
      files: scope.length,
      unchanged: planned - (redo.length - added) - g.appended.length,
      added,
      changed: redo.length - added,
      appended: g.appended.length,
      removed: gone.length,
      bytesRead: [...t.states, ...g.states].reduce((n, r) => n + r.bytes, 0),
      rows,
    };
    return stateOf(update, found, scope, failures, outside);
  } finally {
    await dropScratch(csvDir);
  }
}

/**
 * Files found unchanged by their header, size and mtime but not by their stat (a chmod, a copy that kept the mtime):
 * their new stat is kept, so that the next run tells them by one stat again instead of opening them every time.
 */
async function restat(
  conn: Connection,
  dir: string,
  others: readonly ScopeFile[],
  sigs: ReadonlyMap<string, KnownSig>,
  marks: ReadonlyMap<string, FileMarks>,
  read: ReadonlySet<string>,
): Promise<void> {
  const rows: { path: string; stat_id: string }[] = [];
  for (const f of others) {
    const m = marks.get(f.path);
    const s = sigs.get(f.path);
    if (m && s && !read.has(f.path) && m.lastLineEnd === m.size && s.statId !== m.statId) rows.push({ path: f.path, stat_id: m.statId });
  }
  if (rows.length === 0) return;
  const from = ndjson(dir, "restat", rows, "{path: 'VARCHAR', stat_id: 'VARCHAR'}");
  await conn.run("BEGIN TRANSACTION");
  try {
    await conn.run(`UPDATE idx.files SET stat_id = t.stat_id FROM (SELECT * FROM ${from}) t WHERE idx.files.path = t.path`);
    await conn.run("COMMIT");
  } catch (err) {
    await conn.run("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/** The state of an update: what it did, of which files, and where it looked. */
function stateOf(update: IndexUpdate, found: FleetFiles, scope: ScopeFile[], failures: FleetFailure[], outside: number): IndexState {
  const state: IndexState = { update, scope, failures, outside };
  if (found.root !== undefined) state.root = found.root;
  if (found.missingRoot !== undefined) state.missingRoot = found.missingRoot;
  return state;
}

/**
 * Views named as the tables in the main schema, over the index's rows of the files asked about, each named as found
 * (so that an answer is the one `--no-index` gives). Over the whole index as it is when nothing needs renaming.
 */
export async function scopeViews(duck: Duck, state: Pick<IndexState, "scope" | "failures" | "outside">): Promise<void> {
  const conn = duck.conn;
  if (scopeIsWhole(state) && state.scope.every((f) => f.path === f.name)) {
    for (const t of TABLE_NAMES) await conn.run(`CREATE VIEW ${t} AS SELECT * FROM idx.${t}`);
    await conn.run("CREATE VIEW files AS SELECT * FROM idx.files");
    return;
  }
  await scopeTable(duck, state.scope);
  for (const t of TABLE_NAMES) {
    const cols = TABLES[t].columns.map((c) => (c.name === KEY[t] ? `scope.name AS ${c.name}` : `x.${c.name}`)).join(", ");
    await conn.run(`CREATE VIEW ${t} AS SELECT ${cols} FROM idx.${t} x JOIN scope ON scope.path = x.${KEY[t]}`);
  }
  await conn.run("CREATE VIEW files AS SELECT x.* FROM idx.files x JOIN scope ON scope.path = x.path");
}

/**
 * Whether the files asked about are every file the index holds: after an update without failures every one of them
 * is in it, and the update counted the others (a count of the files table, after the update, waited on its fold).
 */
export function scopeIsWhole(state: Pick<IndexState, "failures" | "outside">): boolean {
  return state.failures.length === 0 && state.outside === 0;
}

/** The files asked about as the temporary table `scope` (path, and name as found). */
export async function scopeTable(duck: Duck, scope: readonly ScopeFile[]): Promise<void> {
  const dir = await scratchDir(join(tmpdir(), "pisess-scope-"));
  try {
    const file = join(dir, "scope.ndjson");
    writeFileSync(file, scope.map((f) => `${JSON.stringify(f)}\n`).join(""));
    await duck.conn.run(
      `CREATE OR REPLACE TEMP TABLE scope AS SELECT * FROM read_json(${quote(file)}, format = 'newline_delimited', columns = {path: 'VARCHAR', name: 'VARCHAR'})`,
    );
  } finally {
    await dropScratch(dir);
  }
}

/** The damage notes the index holds of the files asked about, in their order, named as found. */
export async function indexDamage(duck: Duck, scope: readonly ScopeFile[]): Promise<DamageNote[]> {
  const rows = (await duck.conn.runAndReadAll("SELECT path, problems FROM idx.files WHERE problems <> '[]'")).getRowsJS();
  const by = new Map(rows.map((r) => [String(r[0]), JSON.parse(String(r[1])) as DamageNote[]]));
  return scope.flatMap((f) => (by.get(f.path) ?? []).map((d) => ({ ...d, file: f.name })));
}

import type { Session } from "../model/session.js";
import { notReadFinding } from "../model/readable.js";
import { stat } from "node:fs/promises";
import { collectFiles, defaultSessionRoot, readHeader, type PiEnv } from "../io/discover.js";
import { ioReason } from "../io/errors.js";
import { loadSession } from "../model/load.js";
import { forkParentRef } from "../io/discover.js";
import { forkParent } from "../ops/fork.js";
import { type KindTotals, sessionTotals, type Totals } from "../ops/totals.js";
import { leafRecs } from "../ops/leaves.js";
import { problemCount, sessionProblems } from "../ops/problems.js";
import { treeProblems } from "../ops/tree.js";
import { BATCH, batchesOf, listingThreads, runOnThreads, workerModule } from "./pool.js";
import { ReportError, type Report } from "./report.js";

/** One row of `pisess ls`, exactly as `--json` / `--ndjson` print it (optional keys left out when absent). */
export interface LsRow {
  path: string;
  id: string;
  cwd: string | null;
  name?: string;
  firstMessage?: string;
  /** Header timestamp as found (ISO), or null. */
  created: string | null;
  /** File mtime, ISO in UTC. */
  modified: string;
  entries: number;
  leaves: number;
  bytes: number;
  version: number;
  parentSession?: string;
  /** Loader findings of severity warning or error (run `pisess validate` for details). */
  problems: number;
  /** Tokens and cost of every entry that records spend, as `info` counts them (fork copies left out). */
  totals: Totals;
  /** totals by kind of spend. */
  byKind: KindTotals[];
}

export const LS_SORTS = ["modified", "created", "size", "name"] as const;
export type LsSort = (typeof LS_SORTS)[number];

export interface LsOptions {
  /** Unreadable folders and files are still reported, but do not make the exit status 2 (--allow-unreadable). */
  allowUnreadable?: boolean;
  /** Folders (searched recursively) or files; none: the sessions of `cwd` (or of every project). */
  dirs?: string[];
  allProjects?: boolean;
  sort?: LsSort;
  limit?: number;
  /** Where pi keeps sessions is read from these (PI_CODING_AGENT_DIR, …); and the current directory. */
  env: PiEnv;
  cwd: string;
  /** Called before each session is summarised (for a progress display). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Worker threads to summarise sessions on when every listed one is read (default: the cores, at most 4, for 1,000
   * sessions or more; 1 keeps it in this thread). Workers need the compiled ls-worker.js beside this module.
   */
  threads?: number;
}

/** A path that could not be read, and why. */
export interface IoFailure {
  path: string;
  reason: string;
}

export interface LsData {
  sessions: LsRow[];
  /** The default folder listed (when no dirs were given), which relative paths are shown against. */
  root?: string;
  /** The default folder, when it does not exist (nothing was listed). */
  missingRoot?: string;
  /** Whether dirs were given. */
  explicit: boolean;
  /** Files without a session header, left out. */
  skipped: number;
  failures: IoFailure[];
}

/** A file listed, with its stat (sent to a worker as it is). */
export interface LsCandidate {
  path: string;
  mtimeMs: number;
  bytes: number;
  created?: number;
}

/** A batch of sessions summarised: the rows of those read, in order; how many had no header; what failed. */
export interface LsBatch {
  rows: LsRow[];
  skipped: number;
  failures: IoFailure[];
}

/**
 * Summarises `candidates` one by one (in this thread, or a worker's: ls-worker.ts), stopping once `limit` rows are
 * made; `onEach` is told how many were started, before each.
 */
export async function lsBatch(candidates: readonly LsCandidate[], limit = Infinity, onEach?: (started: number) => void): Promise<LsBatch> {
  const out: LsBatch = { rows: [], skipped: 0, failures: [] };
  const fail = (path: string, err: unknown): void => {
    out.failures.push({ path, reason: ioReason(err) });
  };
  for (const [i, c] of candidates.entries()) {
    if (out.rows.length >= limit) break;
    onEach?.(i + 1);
    const row = await summarize(c, fail);
    if (row === null) out.skipped++;
    else if (row !== undefined) out.rows.push(row);
  }
  return out;
}

/** `pisess ls`: sessions with name or first prompt, size, entries, leaves, fork parent and problems. */
export async function lsReport(opts: LsOptions): Promise<Report<LsData>> {
  const failures: IoFailure[] = [];
  const fail = (path: string, err: unknown): void => {
    failures.push({ path, reason: ioReason(err) });
  };
  if (opts.limit !== undefined && (!Number.isInteger(opts.limit) || opts.limit < 0))
    throw new ReportError("--limit takes a whole number ≥ 0");
  const sort = opts.sort ?? "modified";
  const explicit = (opts.dirs ?? []).length > 0;
  if (explicit && opts.allProjects) throw new ReportError("--all-projects takes no folders");
  let targets: string[];
  let root: string | undefined;
  if (explicit) targets = opts.dirs ?? [];
  else {
    root = await defaultSessionRoot(opts.allProjects === true, opts.env, opts.cwd);
    try {
      await stat(root);
    } catch {
      return { data: { sessions: [], missingRoot: root, explicit, skipped: 0, failures }, diagnostics: [], exitCode: 0 };
    }
    targets = [root];
  }
  const files = await collectFiles(targets, fail);
  const candidates: LsCandidate[] = [];
  for (const f of files) {
    try {
      const st = await stat(f);
      candidates.push({ path: f, mtimeMs: st.mtimeMs, bytes: st.size });
    } catch (err) {
      fail(f, err);
    }
  }
  const byPath = (a: LsCandidate, b: LsCandidate) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  // Sort keys known before loading let --limit stop early; only "name" needs every session loaded.
  if (sort === "created") {
    for (const c of candidates) {
      const h = await readHeader(c.path);
      const t = h?.timestamp !== undefined ? Date.parse(h.timestamp) : NaN;
      c.created = Number.isFinite(t) ? t : -Infinity;
    }
    candidates.sort((a, b) => (b.created as number) - (a.created as number) || byPath(a, b));
  } else if (sort === "size") candidates.sort((a, b) => b.bytes - a.bytes || byPath(a, b));
  else candidates.sort((a, b) => b.mtimeMs - a.mtimeMs || byPath(a, b));
  const limit = opts.limit !== undefined && opts.limit >= 0 ? opts.limit : Infinity;
  const stopEarly = sort !== "name";
  const rows: LsRow[] = [];
  let skipped = 0;
  const take = (r: LsBatch): void => {
    for (const row of r.rows) rows.push(row);
    skipped += r.skipped;
    for (const f of r.failures) failures.push(f);
  };
  const readsAll = !stopEarly || limit >= candidates.length;
  const n = readsAll ? listingThreads(opts.threads, candidates.length) : 1;
  const url = n > 1 ? await workerModule("ls-worker.js") : undefined;
  if (url !== undefined) {
    // Every listed session is read: in batches on the workers, their results taken in batch order (the same rows,
    // failures and order as one thread gives).
    const batches = batchesOf(candidates);
    let done = 0;
    opts.onProgress?.(0, candidates.length);
    await runOnThreads<LsBatch, LsCandidate>(url, n, undefined, batches, (r, b) => {
      take(r);
      done += batches[b]?.length ?? BATCH;
      opts.onProgress?.(done, candidates.length);
    });
  } else take(await lsBatch(candidates, stopEarly ? limit : Infinity, (started) => opts.onProgress?.(started, candidates.length)));
  if (!stopEarly) {
    const key = (r: LsRow) => (r.name ?? r.firstMessage ?? "").toLowerCase();
    rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.path < b.path ? -1 : 1));
  }
  const data: LsData = { sessions: rows.slice(0, limit), explicit, skipped, failures };
  if (root !== undefined) data.root = root;
  return { data, diagnostics: [], exitCode: failures.length > 0 && opts.allowUnreadable !== true ? 2 : 0 };
}

/** Loads one session, summarises it and drops it. undefined: unreadable (reported); null: no header. */
async function summarize(c: LsCandidate, fail: (path: string, err: unknown) => void): Promise<LsRow | null | undefined> {
  let session: Session<"full">;
  try {
    session = await loadSession({ kind: "file", path: c.path });
  } catch (err) {
    fail(c.path, err);
    return undefined;
  }
  try {
    const h = session.header;
    // pi lists only files with a valid header; of those, the ones pisess does not read (model/readable.ts) neither.
    if (!h || typeof h.id !== "string" || notReadFinding(session) !== undefined) return null;
    let firstMessage: string | undefined;
    for (const rec of session.entries) {
      if (rec.type === "message" && rec.role === "user" && rec.text !== undefined && rec.text.trim() !== "") {
        firstMessage = rec.text;
        break;
      }
    }
    const parent = forkParentRef(h)?.ref;
    // As info counts it: entries a fork copied from a readable parent file are left out.
    const spend = sessionTotals(session, (await forkParent(session))?.copied);
    const row: LsRow = {
      path: c.path,
      id: h.id,
      cwd: typeof h.cwd === "string" ? h.cwd : null,
      created: typeof h.timestamp === "string" ? h.timestamp : null,
      modified: new Date(c.mtimeMs).toISOString(),
      entries: session.entries.length,
      leaves: leafRecs(session).length,
      bytes: c.bytes,
      version: session.version,
      problems: problemCount(sessionProblems(session, { problems: treeProblems(session) })),
      totals: spend.totals,
      byKind: spend.byKind,
    };
    if (session.sessionName !== undefined) row.name = session.sessionName;
    if (firstMessage !== undefined) row.firstMessage = firstMessage;
    if (parent !== undefined) row.parentSession = parent;
    // Key order as documented.
    return {
      path: row.path,
      id: row.id,
      cwd: row.cwd,
      ...(row.name !== undefined ? { name: row.name } : {}),
      ...(row.firstMessage !== undefined ? { firstMessage: row.firstMessage } : {}),
      created: row.created,
      modified: row.modified,
      entries: row.entries,
      leaves: row.leaves,
      bytes: row.bytes,
      version: row.version,
      ...(row.parentSession !== undefined ? { parentSession: row.parentSession } : {}),
      problems: row.problems,
      totals: row.totals,
      byKind: row.byKind,
    };
  } finally {
    session.store.close();
  }
}

import { sessionsDir } from "../io/discover.js";
import { type FleetFailure, fleetFiles } from "../ops/fleet-files.js";
import { checkDbPath, type IndexOptions, type IndexUpdate, openIndex, updateIndex } from "./index-db.js";
import type { Report } from "./report.js";

export interface IndexData extends IndexUpdate {
  root?: string;
  missingRoot?: string;
  failures: FleetFailure[];
}

/** The folders the database must never be in: the sessions dir, and every folder given. */
export async function sessionRoots(opts: Pick<IndexOptions, "targets" | "env">): Promise<string[]> {
  return [await sessionsDir(opts.env), ...opts.targets];
}

/** What a fleet report's options say of the index it answers from (usage and sql; `db` is set: the caller chose the index). */
export function indexOptionsOf(opts: Partial<IndexOptions> & Pick<IndexOptions, "env" | "cwd">): IndexOptions {
  return {
    db: opts.db as string,
    targets: opts.targets ?? [],
    env: opts.env,
    cwd: opts.cwd,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
    ...(opts.waitMs !== undefined ? { waitMs: opts.waitMs } : {}),
    ...(opts.inTransaction ? { inTransaction: opts.inTransaction } : {}),
  };
}

/**
 * Opens the index (made if missing; waiting for another run's update) and brings it up to date for `targets`, then
 * hands it to `use` while it is open (views over the files asked about are made by the caller).
 */
export async function withIndex<T>(
  opts: IndexOptions & { allowUnreadable?: boolean },
  use: (duck: Awaited<ReturnType<typeof openIndex>>, state: Awaited<ReturnType<typeof updateIndex>>) => Promise<T>,
): Promise<T> {
  checkDbPath(opts.db, await sessionRoots(opts));
  // The folders are listed while DuckDB opens the index, each on threads of its own (sql with nothing changed on
  // 10,000 sessions: 10 ms less, 48 pairs); listed again after a wait for another run's update, which may have been
  // long (a session made meanwhile is in the answer).
  let listing = fleetFiles(opts.targets, opts.env, opts.cwd);
  listing.catch(() => undefined);
  let waited = false;
  let duck: Awaited<ReturnType<typeof openIndex>>;
  try {
    duck = await openIndex(opts.db, opts.waitMs, () => {
      waited = true;
    });
  } catch (err) {
    await listing.catch(() => undefined);
    throw err;
  }
  if (waited) {
    await listing.catch(() => undefined);
    listing = fleetFiles(opts.targets, opts.env, opts.cwd);
  }
  let folding: Promise<void> | undefined;
  try {
    const state = await updateIndex(duck, opts, listing);
    // The answer (and the fold beside it) on every core: the update ran on one (openIndex).
    await duck.conn.run("RESET threads");
    const u = state.update;
    if (u.added + u.changed + u.appended + u.removed > 0) folding = foldLog(duck);
    return await use(duck, state);
  } finally {
    await folding;
    duck.close();
  }
}

/**
 * Folds the update's log into the index file (a checkpoint) on a connection of its own, while the answer is made on
 * the first: DuckDB would otherwise do it as the index closes, after the answer (40-50 ms of an update of 30
 * sessions of the bench fleet). A fold that fails loses nothing: the log stays, and the close folds it.
 */
async function foldLog(duck: Awaited<ReturnType<typeof openIndex>>): Promise<void> {
  try {
    await (await duck.connect()).run("CHECKPOINT idx");
  } catch {
    // Left to the close.
  }
}

/** `pisess index`: builds or updates the index database, and says what it read. */
export async function indexReport(opts: IndexOptions & { allowUnreadable?: boolean }): Promise<Report<IndexData>> {
  return withIndex(opts, async (_duck, state) => {
    const data: IndexData = { ...state.update, failures: state.failures };
    if (state.root !== undefined) data.root = state.root;
    if (state.missingRoot !== undefined) data.missingRoot = state.missingRoot;
    return { data, diagnostics: [], exitCode: state.failures.length > 0 && opts.allowUnreadable !== true ? 2 : 0 };
  });
}

import type { Session } from "../model/session.js";
import { collectFiles, defaultSessionRoot, type PiEnv } from "../io/discover.js";
import { ioReason } from "../io/errors.js";
import { loadSession } from "../model/load.js";
import { notReadFinding } from "../model/readable.js";
import type { Diagnostic } from "../model/types.js";
import { type GrepHit, type GrepQuery, grepSession } from "../ops/grep.js";
import type { IoFailure } from "./ls.js";
import { batchesOf, listingThreads, runOnThreads, workerModule } from "./pool.js";
import { ReportError, type Report } from "./report.js";

export interface GrepOptions {
  /** Unreadable folders and files are still reported, but do not make the exit status 2 (--allow-unreadable). */
  allowUnreadable?: boolean;
  /** A JavaScript regular expression (tried with the u flag first). */
  pattern: string;
  /** Session files or folders (recursive); none: the sessions of `cwd`. */
  targets?: string[];
  /** With no targets: every project folder in the sessions dir instead of `cwd`'s. */
  allProjects?: boolean;
  ignoreCase?: boolean;
  /** Only messages of these roles; only entries of these types (empty: all). */
  roles?: string[];
  types?: string[];
  /** Characters of context each side of the match (default 60). */
  context?: number;
  env: PiEnv;
  cwd: string;
  /**
   * Worker threads to search on (default: the cores, at most 4, for 1,000 sessions or more; 1 keeps it in this
   * thread). Workers need the compiled grep-worker.js beside this module.
   */
  threads?: number;
}

export interface GrepData {
  /** Every searched file in order, with its hits. */
  files: { file: string; hits: GrepHit[] }[];
  hits: number;
  failures: IoFailure[];
  /** Files pisess does not read (model/readable.ts), not searched: each with the loader finding that says why. */
  skipped: Diagnostic[];
}

function compile(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? "iu" : "u");
  } catch {
    try {
      return new RegExp(pattern, ignoreCase ? "i" : "");
    } catch (err) {
      throw new ReportError(`invalid pattern: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** `pisess grep`: matches in message text, thinking, tool calls and outputs. Exit 0 matched, 1 none, 2 errors. */
export async function grepReport(opts: GrepOptions): Promise<Report<GrepData>> {
  const re = compile(String(opts.pattern), opts.ignoreCase === true);
  const context = opts.context ?? 60;
  if (!Number.isInteger(context) || context < 0) throw new ReportError("--context takes a whole number ≥ 0");
  const failures: IoFailure[] = [];
  const fail = (path: string, err: unknown): void => {
    failures.push({ path, reason: ioReason(err) });
  };
  const targets =
    (opts.targets ?? []).length > 0
      ? (opts.targets as string[])
      : [await defaultSessionRoot(opts.allProjects === true, opts.env, opts.cwd)];
  const files = await collectFiles(targets, fail);
  const query: GrepQuery = { re, roles: new Set(opts.roles ?? []), types: new Set(opts.types ?? []), context };
  const out: GrepData["files"] = [];
  const skipped: Diagnostic[] = [];
  let hits = 0;
  const take = (r: GrepBatch): void => {
    for (const f of r.files) out.push(f);
    hits += r.hits;
    for (const f of r.failures) failures.push(f);
    for (const d of r.skipped) skipped.push(d);
  };
  const n = listingThreads(opts.threads, files.length);
  const url = n > 1 ? await workerModule("grep-worker.js") : undefined;
  // On workers, the batches' results are taken in batch order: the same files, hits and notes as one thread gives.
  if (url !== undefined) await runOnThreads<GrepBatch>(url, n, query, batchesOf(files), take);
  else take(await grepBatch(files, query));
  return {
    data: { files: out, hits, failures, skipped },
    diagnostics: [],
    exitCode: failures.length > 0 && opts.allowUnreadable !== true ? 2 : hits > 0 ? 0 : 1,
  };
}

/** What a batch of files gave: each file searched with its hits, in order; the files that failed or were skipped. */
export type GrepBatch = Pick<GrepData, "files" | "hits" | "failures" | "skipped">;

/** Searches `files` one by one (in this thread, or a worker's: grep-worker.ts). */
export async function grepBatch(files: readonly string[], query: GrepQuery): Promise<GrepBatch> {
  const out: GrepBatch = { files: [], hits: 0, failures: [], skipped: [] };
  const fail = (path: string, err: unknown): void => {
    out.failures.push({ path, reason: ioReason(err) });
  };
  for (const file of files) {
    let session: Session;
    try {
      session = await loadSession({ kind: "file", path: file }, { detail: "skeleton" });
    } catch (err) {
      fail(file, err);
      continue;
    }
    try {
      const notRead = notReadFinding(session);
      if (notRead !== undefined) {
        out.skipped.push(notRead);
        continue;
      }
      const found = [...grepSession(session, query)];
      out.hits += found.length;
      out.files.push({ file, hits: found });
    } catch (err) {
      fail(file, err);
    } finally {
      session.store.close();
    }
  }
  return out;
}

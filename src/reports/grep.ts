import type { Session } from "../model/session.js";
import { collectFiles, defaultSessionRoot, type PiEnv } from "../io/discover.js";
import { ioReason } from "../io/errors.js";
import { loadSession } from "../model/load.js";
import { notReadFinding } from "../model/readable.js";
import type { Diagnostic } from "../model/types.js";
import { grepSession, type GrepHit } from "../ops/grep.js";
import type { IoFailure } from "./ls.js";
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
  const query = { re, roles: new Set(opts.roles ?? []), types: new Set(opts.types ?? []), context };
  const out: GrepData["files"] = [];
  const skipped: Diagnostic[] = [];
  let hits = 0;
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
        skipped.push(notRead);
        continue;
      }
      const found = [...grepSession(session, query)];
      hits += found.length;
      out.push({ file, hits: found });
    } catch (err) {
      fail(file, err);
    } finally {
      session.store.close();
    }
  }
  return {
    data: { files: out, hits, failures, skipped },
    diagnostics: [],
    exitCode: failures.length > 0 && opts.allowUnreadable !== true ? 2 : hits > 0 ? 0 : 1,
  };
}

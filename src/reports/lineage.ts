import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { readHeader, sessionsDir, type PiEnv } from "../io/discover.js";
import { ioReason, NotRegularFile } from "../io/errors.js";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { forkLoops } from "../ops/fork.js";
import { forkCopy } from "../ops/fork-copy.js";
import { ancestorsOf, forksOf, type LineageAncestor, type LineageFork } from "../ops/lineage.js";
import { ReportError, type Report } from "./report.js";

/**
 * What the child of a link (the file below an ancestor, or a fork) copied from its parent, by the one fork-copy
 * rule: entries in all and the labels /fork re-created among them, and the fork point (the parent's entry the fork
 * was made at, and its copy's line in the child). null: a file could not be read, or the child's chain of parents
 * loops back to it (nothing counts as copied then).
 */
export interface LineageCopy {
  entries: number;
  labels: number;
  forkPoint: { id: string | null; line: number; childLine: number } | null;
}

/** `pisess lineage --json`. */
export interface LineageReport {
  file: string;
  id: string | null;
  /** Each ancestor with what the file below it on the chain copied from it. */
  ancestors: (LineageAncestor & { copied: LineageCopy | null })[];
  /** Each fork with what it copied from its parent. */
  forks: (LineageFork & { copied: LineageCopy | null })[];
  /** References that point nowhere (the chain stops there). */
  missing: string[];
  /** The chain came back to a file already on it. */
  cycle: boolean;
  /** Where forks were searched. */
  searched: string[];
  /** Folders named with --forks-in that could not be searched, and why. */
  unsearched: { path: string; reason: string }[];
}

export interface LineageOptions {
  file: string;
  /** Folders to search for forks; default: the whole sessions dir (found through `env`). */
  forksIn?: string[];
  env: PiEnv;
}

/**
 * What a child on the chain copied from its parent, by the one fork-copy rule (src/ops/fork-copy.ts), as info and
 * usage count it: null when either file cannot be read or the child's chain of parents loops back to it.
 */
function copyFinder(): (child: string, parent: string) => Promise<LineageCopy | null> {
  const sessions = new Map<string, Promise<Session | null>>();
  const load = (path: string) => {
    let s = sessions.get(path);
    if (!s) {
      s = loadSession({ kind: "file", path }, { detail: "skeleton" }).then(
        (x) => {
          x.store.close();
          return x;
        },
        () => null,
      );
      sessions.set(path, s);
    }
    return s;
  };
  return async (child, parent) => {
    if (await forkLoops(child)) return null;
    const [c, p] = [await load(child), await load(parent)];
    if (!c || !p) return null;
    const copy = forkCopy(c, p);
    return {
      entries: copy.entries,
      labels: copy.labels,
      forkPoint: copy.point ? { id: copy.point.parent.id ?? null, line: copy.point.parent.line, childLine: copy.point.fork.line } : null,
    };
  };
}

/** `pisess lineage`: a session's fork ancestry and its forks. Exit 1 when the chain is broken or loops. */
export async function lineageReport(opts: LineageOptions): Promise<Report<LineageReport>> {
  const file = resolve(opts.file);
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new ReportError(`${opts.file}: ${new NotRegularFile(opts.file, st).message}`);
  } catch (err) {
    if (err instanceof ReportError) throw err;
    throw new ReportError(`${opts.file}: ${ioReason(err)}`);
  }
  const self = await readHeader(file);
  const { ancestors, missing, cycle } = await ancestorsOf(file, self);
  const searched = opts.forksIn && opts.forksIn.length > 0 ? opts.forksIn.map((d) => resolve(d)) : [await sessionsDir(opts.env)];
  const unsearched: { path: string; reason: string }[] = [];
  // A folder the user named that cannot be searched is worth a warning (a typo finds no forks); pi's own sessions
  // folder missing only means there are none yet.
  const onError =
    opts.forksIn && opts.forksIn.length > 0 ? (path: string, err: unknown) => unsearched.push({ path, reason: ioReason(err) }) : undefined;
  const forks = await forksOf(file, searched, onError);
  const copied = copyFinder();
  let child = file;
  const withCopies = [];
  for (const a of ancestors) {
    withCopies.push({ ...a, copied: a.exists ? await copied(child, a.path) : null });
    child = a.path;
  }
  const forksWithCopies = [];
  for (const f of forks) forksWithCopies.push({ ...f, copied: await copied(f.path, f.parent) });
  const data: LineageReport = {
    file,
    id: self?.id ?? null,
    ancestors: withCopies,
    forks: forksWithCopies,
    missing,
    cycle,
    searched,
    unsearched,
  };
  return { data, diagnostics: [], exitCode: missing.length > 0 || cycle ? 1 : 0 };
}

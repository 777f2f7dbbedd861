import type { Session } from "../model/session.js";
import type { Detail, Rec } from "../model/detail.js";
import { pathTo } from "../ops/path.js";
import { sessionProblems } from "../ops/problems.js";
import { cycleProblem, treeProblems } from "../ops/tree.js";
import type { Report } from "./report.js";
import { entryRef, isEmptyAtDefault } from "./refs.js";

export interface PathOptions {
  /** Leaf: id, id prefix, @LINE, label:NAME or leaf (default "leaf"). */
  leaf?: string;
}

export interface PathData<D extends Detail = Detail> {
  file: string;
  /** null for a session without entries (header only): the path is empty, as pi's. */
  leaf: Rec<D> | null;
  /** Root first; null when the walk runs into a parent cycle (the diagnostics name it; exit 1). */
  path: Rec<D>[] | null;
}

/** `pisess path`: the entries from the root to a leaf. */
export function pathReport<D extends Detail>(session: Session<D>, opts: PathOptions = {}): Report<PathData<D>> {
  if (isEmptyAtDefault(session, opts.leaf))
    return {
      data: { file: session.file, leaf: null, path: [] },
      diagnostics: sessionProblems(session, { problems: treeProblems(session) }),
      exitCode: 0,
    };
  const leaf = entryRef(session, opts.leaf ?? "leaf");
  const result = pathTo(session, leaf);
  if (!result.ok)
    return { data: { file: session.file, leaf, path: null }, diagnostics: [cycleProblem(session.file, result.cycle)], exitCode: 1 };
  return {
    data: { file: session.file, leaf, path: result.path },
    diagnostics: sessionProblems(session, { problems: treeProblems(session) }),
    exitCode: 0,
  };
}

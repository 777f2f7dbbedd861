import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import { measureBloat } from "../model/bloat-bytes.js";
import { pathPlaces, type BloatData } from "../ops/bloat.js";
import { forkParent } from "../ops/fork.js";
import { pathTo } from "../ops/path.js";
import { sessionProblems } from "../ops/problems.js";
import { cycleProblem, treeProblems } from "../ops/tree.js";
import { ReportError, type Report } from "./report.js";

export type { BloatData } from "../ops/bloat.js";
import { entryRef } from "./refs.js";

export interface BloatOptions {
  /** Leaf: id, id prefix, @LINE, label:NAME or leaf (default "leaf"). */
  leaf?: string;
  /** How many of the largest entries and blocks to list (default 10). */
  top?: number;
  /** Look for the fork parent to tell copied entries apart (default true). */
  forkParent?: boolean;
}

/**
 * `pisess bloat`: every byte of the file by entry type, content kind and place (each adds up to the file size),
 * the largest entries and blocks, and what a fork of the active path would leave behind. Streams the file once
 * more after loading; needs a file on disk (not stdin).
 */
export async function bloatReport(session: Session, opts: BloatOptions = {}): Promise<Report<BloatData>> {
  if (session.path === undefined) throw new ReportError("bloat reads the file twice and needs a file, not standard input");
  const leaf = session.entries.length > 0 ? entryRef(session, opts.leaf ?? "leaf") : null;
  const result = leaf ? pathTo(session, leaf) : { ok: true as const, path: [] as EntryRec[] };
  // The tree's problems without its nodes (bloat's peak memory must stay within tree's).
  const diagnostics = sessionProblems(session, { problems: treeProblems(session) });
  if (!result.ok) diagnostics.push(cycleProblem(session.file, result.cycle));
  const parent = opts.forkParent === false ? null : await forkParent(session);
  const { places, onPath } = pathPlaces(session, result.ok ? result.path : [], parent?.copied);
  const m = await measureBloat(session, session.path, places, onPath, opts.top ?? 10);
  let leftBehindBytes = 0;
  let leftBehindTokens = 0;
  for (const p of m.byPlace) {
    if (p.place === "other-branches") {
      leftBehindBytes += p.bytes;
      leftBehindTokens += p.tokens;
    }
  }
  return {
    data: {
      file: session.file,
      leaf: { id: leaf?.id ?? null, line: leaf?.line ?? 0 },
      pathCycle: !result.ok,
      ...m,
      fork: { leftBehindBytes, leftBehindTokens, keptBytes: m.bytes - leftBehindBytes },
      forkParent: parent?.copied ? parent.path : null,
    },
    diagnostics,
    exitCode: result.ok ? 0 : 1,
  };
}

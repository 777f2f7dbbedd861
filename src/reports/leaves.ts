import type { Session } from "../model/session.js";
import { forkParent } from "../ops/fork.js";
import { treeShape } from "../ops/leaves.js";
import { sessionProblems } from "../ops/problems.js";
import { buildTree } from "../ops/tree.js";
import type { LeafRow } from "../render/leaves.js";
import type { Report } from "./report.js";

export interface LeavesOptions {
  /** Count entries a fork copied from its parent file. */
  includeCopied?: boolean;
}

export interface LeavesData {
  file: string;
  leaves: LeafRow[];
}

/** `pisess leaves`: every leaf with its depth, last activity, last prompt, labels, own tokens and cost. */
export async function leavesReport(session: Session, opts: LeavesOptions = {}): Promise<Report<LeavesData>> {
  const tree = buildTree(session);
  const parent = await forkParent(session);
  const mask = opts.includeCopied ? undefined : parent?.copied;
  const shape = treeShape(session, tree, mask ? { exclude: mask } : {});
  const refOf = (r: { id: string | undefined; line: number }) => ({ id: r.id ?? null, line: r.line });
  const rows: LeafRow[] = shape.leaves.map((l) => ({
    ...refOf(l.rec),
    depth: l.depth,
    timestamp: l.lastTimestamp,
    isDefault: l.isDefault,
    lastUserPrompt: l.lastUser ? { ...refOf(l.lastUser), text: l.lastUser.text ?? "" } : null,
    labels: l.labels.map((x) => ({ ...refOf(x.rec), label: x.label })),
    forkPoint: l.forkPoint ? refOf(l.forkPoint) : null,
    cycle: l.cycle,
    totals: l.totals,
    ownTotals: l.ownTotals,
    byKind: l.byKind,
    ownByKind: l.ownByKind,
  }));
  return { data: { file: session.file, leaves: rows }, diagnostics: sessionProblems(session, tree), exitCode: 0 };
}

import type { SpendSession } from "../ops/totals.js";
import { forkParent } from "../ops/fork.js";
import { treeShape } from "../ops/leaves.js";
import { problemCount, problemTally, sessionProblems } from "../ops/problems.js";
import { type KindTotals, sessionFacts, sessionTotals, type Totals } from "../ops/totals.js";
import { treeLinks } from "../ops/tree.js";
import type { Report } from "./report.js";

interface Ref {
  id: string | null;
  line: number;
}

/** `pisess info --json`, exactly; the text form is rendered from the same object. */
export interface InfoReport {
  file: string;
  header: {
    version: number;
    id: string | null;
    cwd: string | null;
    created: string | null;
    /** parentSession, else the legacy branchedFrom; null for a session that is not a fork. */
    parentSession: string | null;
    legacyBranchedFrom: boolean;
    /** Whether the parent file exists; null without a parent. */
    parentExists: boolean | null;
    /** The chain of parents leads back to this file: nothing is counted as copied (the spend stays this file's). */
    forkCycle: boolean;
  } | null;
  name: string | null;
  entries: number;
  byType: Record<string, number>;
  byRole: Record<string, number>;
  roots: Ref[];
  defaultLeaf: Ref | null;
  branchPoints: (Ref & { children: number })[];
  /** Entries above the deepest entry; null for a session without entries. */
  maxDepth: number | null;
  compactions: (Ref & { tokensBefore: number | null; timestamp: unknown })[];
  labels: { targetId: string; targetLine: number | null; label: string }[];
  modelsUsed: { provider: string; model: string }[];
  totals: Totals;
  /** totals by kind of spend (src/ops/totals.ts). */
  byKind: KindTotals[];
  models: ({ provider: string; model: string; assistantMessages: number } & Totals & { byKind: KindTotals[] })[];
  /** Entries copied from the parent file by /fork; null when the file is not a fork or the parent is unreadable. */
  copied: {
    parent: string;
    entries: number;
    assistantMessages: number;
    firstLine: number | null;
    lastLine: number | null;
    totals: Totals;
    byKind: KindTotals[];
    included: boolean;
  } | null;
  leaves: (Ref & {
    depth: number;
    isDefault: boolean;
    forkPoint: Ref | null;
    cycle: boolean;
    totals: Totals;
    ownTotals: Totals;
    byKind: KindTotals[];
    ownByKind: KindTotals[];
  })[];
  duration: { start: string; end: string; ms: number } | null;
  problems: number;
  /** The same problems by severity. */
  problemsBySeverity: { error: number; warning: number };
}

export interface InfoOptions {
  /** Count entries a fork copied from its parent file in the totals. */
  includeCopied?: boolean;
}

/** `pisess info`: header, shape, labels, models, tokens and cost of one session. */
export async function infoReport(session: SpendSession, opts: InfoOptions = {}): Promise<Report<InfoReport>> {
  const include = opts.includeCopied === true;
  // Parents and problems only: treeShape walks the entries in file order where it can (no tree nodes).
  const tree = treeLinks(session);
  const diagnostics = sessionProblems(session, tree);
  const parent = await forkParent(session);
  const mask = parent?.copied;
  const totals = sessionTotals(session, mask, include);
  const shape = treeShape(session, tree, include || !mask ? {} : { exclude: mask });
  const facts = sessionFacts(session);
  const h = session.header;
  const refOf = (r: { id: string | undefined; line: number }) => ({ id: r.id ?? null, line: r.line });
  const report: InfoReport = {
    file: session.file,
    header: h
      ? {
          version: session.version,
          id: typeof h.id === "string" ? h.id : null,
          cwd: typeof h.cwd === "string" ? h.cwd : null,
          created: typeof h.timestamp === "string" ? h.timestamp : null,
          parentSession: parent ? parent.ref : null,
          legacyBranchedFrom: parent ? parent.legacy : false,
          parentExists: parent ? parent.exists : null,
          forkCycle: parent ? parent.cycle : false,
        }
      : null,
    name: session.sessionName ?? null,
    entries: facts.entries,
    byType: facts.byType,
    byRole: facts.byRole,
    roots: shape.roots.map(refOf),
    defaultLeaf: session.defaultLeaf ? refOf(session.defaultLeaf) : null,
    branchPoints: shape.branchPoints.map((b) => ({ id: b.rec.id ?? null, line: b.rec.line, children: b.children })),
    // No entries, no depth (ops counts -1 for an empty tree).
    maxDepth: facts.entries === 0 ? null : shape.maxDepth,
    compactions: facts.compactions,
    labels: [...session.labels].map(([targetId, label]) => ({ targetId, targetLine: session.byId.get(targetId)?.line ?? null, label })),
    modelsUsed: facts.modelsUsed.map((m) => ({ provider: m.provider, model: m.model })),
    totals: totals.totals,
    byKind: totals.byKind,
    models: totals.models.map((m) => ({
      provider: m.provider,
      model: m.model,
      assistantMessages: m.assistantMessages,
      input: m.input,
      output: m.output,
      cacheRead: m.cacheRead,
      cacheWrite: m.cacheWrite,
      cost: m.cost,
      cacheWrite1h: m.cacheWrite1h,
      reasoning: m.reasoning,
      byKind: m.byKind,
    })),
    copied:
      parent && totals.copied
        ? {
            parent: parent.path,
            entries: totals.copied.entries,
            assistantMessages: totals.copied.assistantMessages,
            firstLine: totals.copied.firstLine,
            lastLine: totals.copied.lastLine,
            totals: totals.copied.totals,
            byKind: totals.copied.byKind,
            included: include,
          }
        : null,
    // Written out, not spread (here and in branchPoints): see leaves.ts.
    leaves: shape.leaves.map((l) => ({
      id: l.rec.id ?? null,
      line: l.rec.line,
      depth: l.depth,
      isDefault: l.isDefault,
      forkPoint: l.forkPoint ? refOf(l.forkPoint) : null,
      cycle: l.cycle,
      totals: l.totals,
      ownTotals: l.ownTotals,
      byKind: l.byKind,
      ownByKind: l.ownByKind,
    })),
    duration:
      facts.start !== null && facts.end !== null
        ? { start: new Date(facts.start).toISOString(), end: new Date(facts.end).toISOString(), ms: facts.end - facts.start }
        : null,
    problems: problemCount(diagnostics),
    problemsBySeverity: problemTally(diagnostics),
  };
  return { data: report, diagnostics, exitCode: 0 };
}

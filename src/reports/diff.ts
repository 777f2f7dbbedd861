import { isFile, realPathOf } from "../io/discover.js";
import { readEntry, type Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec, Rec } from "../model/detail.js";
import {
  chooseAlign,
  diffContexts,
  diffPaths,
  leafPathDiffs,
  lineageOf,
  sidePath,
  sidePathVia,
  treeParent,
  type ContextDiff,
  type FileSide,
  type Lineage,
  type PathDiff,
  type SharedCopies,
  type SideInput,
} from "../ops/diff.js";
import { forkLoops } from "../ops/fork.js";
import { forkCopy } from "../ops/fork-copy.js";
import { leafRecs } from "../ops/leaves.js";
import { sessionProblems } from "../ops/problems.js";
import { cycleProblem, treeLinks, treeProblems } from "../ops/tree.js";
import { sanitizeLine } from "../model/sanitize.js";
import { ReportError, type Report } from "./report.js";
import { entryRef } from "./refs.js";
import type { OpenSession } from "./open.js";

export interface DiffOptions {
  /** The session file (or "-"). */
  file: string;
  /** An entry reference (left side), or a second session file. */
  a?: string;
  /** A second entry reference (right side; default: the active leaf). */
  b?: string;
  /** Every leaf against the active path. */
  leaves?: boolean;
  /** Compare the contexts the model saw instead of the paths. */
  context?: boolean;
  /**
   * --leaves: keep at most this many divergent entries per side (the counts and stats still cover every entry);
   * undefined: all of them. The renderers take the same number (DiffLeavesFrame) and say how many more there are.
   */
  maxEntries?: number;
  /** How session files are opened (the CLI passes its own, which reads stdin for "-"). */
  open: OpenSession;
  /**
   * --leaves: each comparison as soon as it is made (the session still open), instead of collecting them in
   * `data.items`; a caller writes it at once and stops the run by throwing (a reader that went away).
   */
  onItem?: (item: DiffItem, head: { file: string; active: EntryRec }) => Promise<void> | void;
}

/** One comparison: the diff, and what the renderers show at the top (one file's name, or two files and their lineage). */
export type DiffItem = { file?: string; files?: { left: string; right: string }; lineage?: Lineage } & (
  | { kind: "paths"; diff: PathDiff }
  | { kind: "contexts"; diff: ContextDiff }
  /** --leaves: a leaf whose path runs into a parent cycle, left out (the diagnostics name the cycle). */
  | { kind: "cycle"; leaf: EntryRec; cycle: number[] }
);

export interface DiffData {
  mode: "pair" | "leaves";
  /** --leaves: the file and its active leaf. */
  file?: string;
  active?: EntryRec;
  items: DiffItem[];
  /** Whether any compared pair differs. */
  differ: boolean;
  /** Per session compared, its problems (loader and tree), for the one-line note. */
  problems: { file: string; diagnostics: Diagnostic[] }[];
  /** Parent cycles that stopped a comparison (also in the report's diagnostics). */
  cycles: Diagnostic[];
}

function input(session: Session<"full">, leaf: Rec<"full"> | null): SideInput {
  return { session, leaf, read: (rec) => readEntry(session, rec) };
}

interface Pair {
  left: SideInput;
  right: SideInput;
  files?: { left: string; right: string };
  lineage?: Lineage;
  single?: string;
  /** A fork and its parent: the copies on each side (see forkShared). */
  shared?: SharedCopies;
}

async function compare(pair: Pair, context: boolean, cycles: Diagnostic[]): Promise<DiffItem | null> {
  const lr = sidePath(pair.left.session, pair.left.leaf);
  const rr = sidePath(pair.right.session, pair.right.leaf);
  for (const [r, s] of [
    [lr, pair.left.session],
    [rr, pair.right.session],
  ] as const) {
    if (!r.ok) cycles.push(cycleProblem(s.file, r.cycle));
  }
  if (!lr.ok || !rr.ok) return null;
  const lp = lr.path;
  const rp = rr.path;
  const align = chooseAlign(pair.left.session, pair.right.session, lp, rp);
  const head: { file?: string; files?: { left: string; right: string }; lineage?: Lineage } = {};
  if (pair.single !== undefined) head.file = pair.single;
  if (pair.files) head.files = pair.files;
  if (pair.lineage) head.lineage = pair.lineage;
  if (context) {
    const { buildContext } = await import("../ops/context.js");
    const lc = buildContext(pair.left.session, lp, pair.left.read);
    const rc = buildContext(pair.right.session, rp, pair.right.read);
    return { ...head, kind: "contexts", diff: diffContexts({ ...pair.left, context: lc }, { ...pair.right, context: rc }, align) };
  }
  return { ...head, kind: "paths", diff: diffPaths(pair.left, lp, pair.right, rp, align, pair.shared) };
}

/**
 * When one file is a fork of the other: its copies and the parent's entries they copy, by the one fork-copy rule
 * (none when the chain of fork parents loops back to the fork, as everywhere else).
 */
async function forkShared(left: FileSide, right: FileSide, lineage: Lineage): Promise<SharedCopies | undefined> {
  const forkLeft = lineage.relation === "left-forked-from-right";
  if (!forkLeft && lineage.relation !== "right-forked-from-left") return undefined;
  const [fork, parent] = forkLeft ? [left, right] : [right, left];
  if (fork.absPath !== undefined && (await forkLoops(fork.absPath))) return undefined;
  const copy = forkCopy(fork.session, parent.session);
  return forkLeft ? { left: copy.copied, right: copy.sources } : { left: copy.sources, right: copy.copied };
}

function differs(item: DiffItem | null): boolean {
  return item !== null && item.kind !== "cycle" && !item.diff.same;
}

function problemsOf(session: Session<"full">): { file: string; diagnostics: Diagnostic[] } {
  return { file: session.file, diagnostics: sessionProblems(session, { problems: treeProblems(session) }) };
}

function finish(data: DiffData): Report<DiffData> {
  const diagnostics = [...data.problems.flatMap((p) => p.diagnostics), ...data.cycles];
  return { data, diagnostics, exitCode: data.differ || data.cycles.length > 0 ? 1 : 0 };
}

/**
 * `pisess diff`: where two branches, or a fork and its parent, diverge. Exit 0 same, 1 different or a path runs
 * into a parent cycle (a finding about the data), 2 errors.
 */
export async function diffReport(opts: DiffOptions): Promise<Report<DiffData>> {
  const context = opts.context === true;
  const cycles: Diagnostic[] = [];
  if (opts.leaves) {
    if (opts.a !== undefined) throw new ReportError("--leaves takes one file and no entry references");
    const session = await opts.open(opts.file);
    try {
      return finish(await leavesMode(session, context, cycles, opts.onItem, opts.maxEntries));
    } finally {
      session.store.close();
    }
  }
  if (opts.a === undefined) {
    throw new ReportError(
      "name two entries (FILE A B), one entry to compare with the active leaf (FILE A), a second file (FILE1 FILE2), or use --leaves",
    );
  }
  const twoFiles = (opts.a === "-" && opts.file !== "-") || (opts.a !== "-" && (await isFile(opts.a)));
  if (twoFiles) {
    if (opts.b !== undefined) throw new ReportError(`${sanitizeLine(opts.a)} is a file: comparing two files takes no entry references`);
    const left = await opts.open(opts.file);
    let right: Session<"full"> | undefined;
    try {
      right = await opts.open(opts.a);
      const lf: FileSide = { file: left.file, absPath: await realPathOf(opts.file), session: left };
      const rf: FileSide = { file: right.file, absPath: await realPathOf(opts.a), session: right };
      const lineage = lineageOf(lf, rf);
      const shared = await forkShared(lf, rf, lineage);
      const pair: Pair = {
        left: input(left, left.defaultLeaf),
        right: input(right, right.defaultLeaf),
        files: { left: left.file, right: right.file },
        lineage,
        ...(shared ? { shared } : {}),
      };
      const item = await compare(pair, context, cycles);
      return finish({
        mode: "pair",
        items: item ? [item] : [],
        differ: differs(item),
        problems: item ? [problemsOf(left), problemsOf(right)] : [],
        cycles,
      });
    } finally {
      left.store.close();
      right?.store.close();
    }
  }
  const session = await opts.open(opts.file);
  try {
    // FILE A B: A left, B right. FILE A: the active leaf left, A right.
    const a = entryRef(session, opts.a);
    const leftRec = opts.b !== undefined ? a : session.defaultLeaf;
    const rightRec = opts.b !== undefined ? entryRef(session, opts.b) : a;
    const item = await compare({ left: input(session, leftRec), right: input(session, rightRec), single: session.file }, context, cycles);
    return finish({ mode: "pair", items: item ? [item] : [], differ: differs(item), problems: item ? [problemsOf(session)] : [], cycles });
  } finally {
    session.store.close();
  }
}

/** Every leaf against the active path; a leaf whose path runs into a cycle is left out, and named. */
async function leavesMode(
  session: Session<"full">,
  context: boolean,
  cycles: Diagnostic[],
  onItem: DiffOptions["onItem"],
  maxEntries: number | undefined,
): Promise<DiffData> {
  const active = session.defaultLeaf;
  if (!active) throw new ReportError(`${sanitizeLine(session.file)}: the session has no entries`);
  // One resolution of the parents for the problems, the leaves and every walk (no tree nodes: nothing here walks down).
  const tree = treeLinks(session);
  const parentOf = treeParent(session, tree);
  const base = sidePathVia(session, parentOf, active);
  if (!base.ok) {
    cycles.push(cycleProblem(session.file, base.cycle));
    return { mode: "leaves", file: session.file, active, items: [], differ: false, problems: [], cycles };
  }
  const problems = [{ file: session.file, diagnostics: sessionProblems(session, tree) }];
  const items: DiffItem[] = [];
  const head = { file: session.file, active };
  const take = onItem ? (item: DiffItem) => onItem(item, head) : (item: DiffItem) => void items.push(item);
  let differ = false;
  const leaves = leafRecs(session, tree).filter((l) => l !== active);
  if (!context) {
    for (const d of leafPathDiffs(input(session, active), base.path, leaves, parentOf, maxEntries)) {
      if ("cycle" in d) {
        cycles.push(cycleProblem(session.file, d.cycle));
        await take({ kind: "cycle", leaf: d.leaf, cycle: d.cycle.map((c) => c.line) });
        continue;
      }
      differ = differ || !d.diff.same;
      await take({ kind: "paths", diff: d.diff });
    }
    return { mode: "leaves", file: session.file, active, items, differ, problems, cycles };
  }
  for (const leaf of leaves) {
    const r = sidePath(session, leaf);
    if (!r.ok) {
      cycles.push(cycleProblem(session.file, r.cycle));
      await take({ kind: "cycle", leaf, cycle: r.cycle.map((c) => c.line) });
      continue;
    }
    const item = await compare({ left: input(session, active), right: input(session, leaf) }, context, cycles);
    if (item) {
      differ = differs(item) || differ;
      await take(item);
    }
  }
  return { mode: "leaves", file: session.file, active, items, differ, problems, cycles };
}

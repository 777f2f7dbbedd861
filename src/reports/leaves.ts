import type { EntryFields } from "../model/types.js";
import type { SpendSession } from "../ops/totals.js";
import { contentText, keep } from "../model/extract.js";
import { isObject } from "../model/json.js";
import { readEntry, type Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import { forkParent } from "../ops/fork.js";
import { treeShape } from "../ops/leaves.js";
import { sessionProblems } from "../ops/problems.js";
import type { KindTotals, Totals } from "../ops/totals.js";
import { treeLinks } from "../ops/tree.js";
import type { Report } from "./report.js";

/** One leaf as `pisess leaves --ndjson` prints it. */
export interface LeafRow {
  id: string | null;
  line: number;
  depth: number;
  timestamp: unknown;
  isDefault: boolean;
  /** The last user message on the path (text cut to 240 characters), or null. */
  lastUserPrompt: { id: string | null; line: number; text: string } | null;
  labels: { id: string | null; line: number; label: string }[];
  forkPoint: { id: string | null; line: number } | null;
  cycle: boolean;
  totals: Totals;
  ownTotals: Totals;
  /** totals by kind of spend (src/ops/totals.ts). */
  byKind: KindTotals[];
  /** ownTotals by kind of spend. */
  ownByKind: KindTotals[];
}

export interface LeavesOptions {
  /** Count entries a fork copied from its parent file. */
  includeCopied?: boolean;
}

export interface LeavesData {
  file: string;
  leaves: LeafRow[];
}

/**
 * The text of a user message as a full load keeps it (EntryRec.text): re-read for a lighter load (the CLI's spend
 * load reads no previews), one entry per leaf.
 */
function promptText(session: Session, rec: EntryRec): string {
  // Any load's record, read as the fields a load may fill: a lighter load has no text.
  const loaded: EntryFields = rec;
  if (loaded.text !== undefined) return loaded.text;
  const m = readEntry(session, rec).message;
  const t = isObject(m) ? contentText(m.content) : undefined;
  return t === undefined ? "" : keep(t);
}

/** `pisess leaves`: every leaf with its depth, last activity, last prompt, labels, own tokens and cost. */
export async function leavesReport(session: SpendSession, opts: LeavesOptions = {}): Promise<Report<LeavesData>> {
  // Parents and problems only: treeShape walks the entries in file order where it can (no tree nodes).
  const tree = treeLinks(session);
  const parent = await forkParent(session);
  const mask = opts.includeCopied ? undefined : parent?.copied;
  const shape = treeShape(session, tree, mask ? { exclude: mask } : {});
  const refOf = (r: { id: string | undefined; line: number }) => ({ id: r.id ?? null, line: r.line });
  // Read once per prompt: the leaves below one prompt (a hundred thousand replies to it, say) share it.
  const prompts = new Map<EntryRec, string>();
  const prompt = (rec: EntryRec): string => {
    let t = prompts.get(rec);
    if (t === undefined) {
      t = promptText(session, rec);
      prompts.set(rec, t);
    }
    return t;
  };
  // Fields written out, not spread: a literal that starts with an object spread and goes on with more fields costs
  // V8 several microseconds per object, against a fraction of one for the literal (a hundred thousand leaves: seconds).
  const rows: LeafRow[] = shape.leaves.map((l) => ({
    id: l.rec.id ?? null,
    line: l.rec.line,
    depth: l.depth,
    timestamp: l.lastTimestamp,
    isDefault: l.isDefault,
    lastUserPrompt: l.lastUser ? { id: l.lastUser.id ?? null, line: l.lastUser.line, text: prompt(l.lastUser) } : null,
    labels: l.labels.map((x) => ({ id: x.rec.id ?? null, line: x.rec.line, label: x.label })),
    forkPoint: l.forkPoint ? refOf(l.forkPoint) : null,
    cycle: l.cycle,
    totals: l.totals,
    ownTotals: l.ownTotals,
    byKind: l.byKind,
    ownByKind: l.ownByKind,
  }));
  return { data: { file: session.file, leaves: rows }, diagnostics: sessionProblems(session, tree), exitCode: 0 };
}

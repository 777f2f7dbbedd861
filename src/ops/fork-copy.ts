import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";

/**
 * The one rule for which entries of a fork are copies of its parent, as pi 1.6 writes a fork:
 *
 * - `/fork` (SessionManager.createBranchedSession): the header, then the parent's root→leaf path without its label
 *   entries (same ids, timestamps and bodies; each parentId re-chained to the entry before it), then one label entry
 *   per label the parent holds on an entry of that path (a new id, the parent's label and the timestamp of the label
 *   entry that set it, chained after the path), then whatever the fork adds.
 * - `pi --fork` (SessionManager.forkFrom): the header, then every entry of the parent as it was, then the fork's own.
 *
 * So the copies are the fork's leading entries (in file order) that the parent holds with the same id, type and
 * timestamp, and right after them the run of label entries /fork re-created. Nothing later in the file is a copy,
 * whatever it shares with the parent.
 */
export interface ForkCopy {
  /** By fork entry index: 1 = a copy. */
  copied: Uint8Array;
  /** By parent entry index: 1 = an entry the fork holds a copy of (for a re-created label: the label that set it). */
  sources: Uint8Array;
  /** Copies in all, and of them the labels /fork re-created. */
  entries: number;
  labels: number;
  /** The last copied entry that is not a label (the entry the fork was made at), in the fork and in the parent. */
  point: { fork: EntryRec; parent: EntryRec } | null;
}

function copyKey(rec: EntryRec): string {
  const t = rec.timestamp;
  return `${rec.id}\u0000${rec.type}\u0000${typeof t === "string" ? t : JSON.stringify(t)}`;
}

function sameTimestamp(a: unknown, b: unknown): boolean {
  return typeof a === "string" ? a === b : JSON.stringify(a) === JSON.stringify(b);
}

/** The label each target holds and the entry that set it, as pi's _buildIndex resolves them (file order). */
function labelState(session: Session): Map<string, EntryRec> {
  const state = new Map<string, EntryRec>();
  for (const rec of session.entries) {
    if (rec.type !== "label" || rec.targetId === undefined) continue;
    if (rec.labelText) state.set(rec.targetId, rec);
    else state.delete(rec.targetId);
  }
  return state;
}

/**
 * The label entries /fork writes after the copied path, by shape alone (no parent needed): from `start`, label
 * entries each naming as parent the entry before it, with a non-empty label on an entry among the first `start`
 * entries, each target once. Returns the index after the run (`start` when there is none).
 */
function recreatedLabelRun(session: Session, start: number, accept?: (label: EntryRec) => boolean): number {
  const entries = session.entries;
  if (start <= 0) return start;
  const before = new Set<string>();
  for (let i = 0; i < start; i++) {
    const id = (entries[i] as EntryRec).id;
    if (id !== undefined) before.add(id);
  }
  const targets = new Set<string>();
  let i = start;
  for (; i < entries.length; i++) {
    const rec = entries[i] as EntryRec;
    const prev = entries[i - 1] as EntryRec;
    if (rec.type !== "label" || rec.targetId === undefined || !rec.labelText) break;
    if (prev.id === undefined || rec.parentId !== prev.id || !before.has(rec.targetId) || targets.has(rec.targetId)) break;
    if (accept && !accept(rec)) break;
    targets.add(rec.targetId);
  }
  return i;
}

/** Which entries of `fork` are copies of `parent` (see ForkCopy). */
export function forkCopy(fork: Session, parent: Session): ForkCopy {
  const copied = new Uint8Array(fork.entries.length);
  const sources = new Uint8Array(parent.entries.length);
  // The same session (the header names the file itself under another name, or a copy of it): pi gives every fork a
  // new id, so neither side copied the other.
  if (fork === parent || (typeof fork.header?.id === "string" && fork.header.id === parent.header?.id)) {
    return { copied, sources, entries: 0, labels: 0, point: null };
  }
  const byKey = new Map<string, EntryRec>();
  for (const rec of parent.entries) if (rec.id !== undefined) byKey.set(copyKey(rec), rec);
  let point: ForkCopy["point"] = null;
  let i = 0;
  for (; i < fork.entries.length; i++) {
    const rec = fork.entries[i] as EntryRec;
    const src = rec.id === undefined ? undefined : byKey.get(copyKey(rec));
    if (src === undefined) break;
    copied[i] = 1;
    sources[src.index] = 1;
    if (rec.type !== "label") point = { fork: rec, parent: src };
  }
  const run = i;
  const state = labelState(parent);
  const end = recreatedLabelRun(fork, run, (label) => {
    const set = state.get(label.targetId as string);
    return set !== undefined && set.labelText === label.labelText && sameTimestamp(set.timestamp, label.timestamp);
  });
  for (let j = run; j < end; j++) {
    copied[j] = 1;
    sources[(state.get((fork.entries[j] as EntryRec).targetId as string) as EntryRec).index] = 1;
  }
  return { copied, sources, entries: end, labels: end - run, point };
}

/**
 * Where the label entries /fork re-created sit in a file that names a fork parent, found from the file alone
 * (validate reads no parent): after the leading run of non-label entries that pi's /fork writes as one chain (the
 * first a root, each next naming the one before), the labels recreatedLabelRun finds. Their timestamps are the
 * parent's, older than the path they follow. [start, end) by entry index, or null.
 */
export function recreatedLabelsInFile(session: Session): { start: number; end: number } | null {
  const entries = session.entries;
  let i = 0;
  for (; i < entries.length; i++) {
    const rec = entries[i] as EntryRec;
    if (rec.type === "label") break;
    const prev = i === 0 ? null : (entries[i - 1] as EntryRec).id;
    if (rec.id === undefined || (i === 0 ? rec.parentId !== null : prev === undefined || rec.parentId !== prev)) return null;
  }
  const end = recreatedLabelRun(session, i);
  return end > i ? { start: i, end } : null;
}

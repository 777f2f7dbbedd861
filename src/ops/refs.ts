import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";

/**
 * Why `@LINE` or `label:NAME` matched nothing, for a message that says which: the file names no such label; the
 * label was cleared, or replaced by another, on a later line; it names an entry the file lacks; the line is past
 * the end of the file; the line holds no entry (blank, the header, not JSON, not an object).
 */
export type RefMiss =
  | { kind: "label-none" }
  | { kind: "label-cleared"; setLine: number; line: number }
  | { kind: "label-replaced"; setLine: number; line: number; label: string }
  | { kind: "label-target-missing"; setLine: number; targetId: string }
  | { kind: "line-past-end"; lines: number }
  | { kind: "line-not-entry"; what: Session["skipped"][number]["reason"] | "unknown" };

export type RefResult =
  | { ok: true; rec: EntryRec }
  | {
      ok: false;
      reason: "not-found" | "ambiguous" | "bad-line" | "no-entries";
      ref: string;
      candidates?: EntryRec[];
      miss?: RefMiss;
    };

/**
 * Resolves an entry reference, the one syntax every command shares:
 * - `leaf`: the default leaf (the last entry in file order);
 * - `@LINE`: the entry on that physical line;
 * - `label:NAME`: the entry the label NAME currently points to;
 * - a full id (the last duplicate wins, as in pi), else a unique id prefix.
 * Unknown references fail: pi silently falls back to the last entry, pisess does not.
 */
export function resolveRef(session: Session, ref: string): RefResult {
  if (ref === "leaf") {
    return session.defaultLeaf ? { ok: true, rec: session.defaultLeaf } : { ok: false, reason: "no-entries", ref };
  }
  if (ref.startsWith("@")) {
    // Decimal digits only: Number() would read "@0x10" as line 16 and "@1e1" as line 10.
    const line = /^@\d+$/.test(ref) ? Number(ref.slice(1)) : Number.NaN;
    if (!Number.isSafeInteger(line) || line < 1) return { ok: false, reason: "bad-line", ref };
    const rec = findByLine(session, line);
    return rec ? { ok: true, rec } : { ok: false, reason: "not-found", ref, miss: lineMiss(session, line) };
  }
  if (ref.startsWith("label:")) {
    const name = ref.slice("label:".length);
    const matches: EntryRec[] = [];
    for (const [targetId, label] of session.labels) {
      if (label !== name) continue;
      const rec = session.byId.get(targetId);
      if (rec) matches.push(rec);
    }
    if (matches.length === 1) return { ok: true, rec: matches[0] as EntryRec };
    if (matches.length > 1) return { ok: false, reason: "ambiguous", ref, candidates: matches };
    return { ok: false, reason: "not-found", ref, miss: labelMiss(session, name) };
  }
  const exact = session.byId.get(ref);
  if (exact) return { ok: true, rec: exact };
  if (ref === "") return { ok: false, reason: "not-found", ref };
  const candidates: EntryRec[] = [];
  for (const [id, rec] of session.byId) if (id.startsWith(ref)) candidates.push(rec);
  if (candidates.length === 1) return { ok: true, rec: candidates[0] as EntryRec };
  if (candidates.length > 1) {
    candidates.sort((a, b) => a.line - b.line);
    return { ok: false, reason: "ambiguous", ref, candidates };
  }
  return { ok: false, reason: "not-found", ref };
}

/** Binary search: entries are in line order. */
export function findByLine(session: Session, line: number): EntryRec | undefined {
  const e = session.entries;
  let lo = 0;
  let hi = e.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const rec = e[mid] as EntryRec;
    if (rec.line === line) return rec;
    if (rec.line < line) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** Why no entry is on `line`. */
function lineMiss(session: Session, line: number): RefMiss {
  if (line > session.facts.lines) return { kind: "line-past-end", lines: session.facts.lines };
  if (line === session.headerLine) return { kind: "line-not-entry", what: "header" };
  const skipped = session.skipped.find((s) => s.line === line);
  return { kind: "line-not-entry", what: skipped?.reason ?? "unknown" };
}

/**
 * Why no entry has the label `name` now (looked at only when none has): the last label entry that gave it, and
 * what became of its target after it, in file order as pi resolves labels.
 */
function labelMiss(session: Session, name: string): RefMiss {
  const entries = session.entries;
  let set = -1;
  for (let i = entries.length - 1; i >= 0 && set < 0; i--) {
    const e = entries[i] as EntryRec;
    if (e.type === "label" && e.targetId !== undefined && e.labelText === name) set = i;
  }
  if (set < 0) return { kind: "label-none" };
  const setRec = entries[set] as EntryRec;
  const target = setRec.targetId as string;
  for (let i = set + 1; i < entries.length; i++) {
    const e = entries[i] as EntryRec;
    if (e.type !== "label" || e.targetId !== target) continue;
    if (!e.labelText) return { kind: "label-cleared", setLine: setRec.line, line: e.line };
    return { kind: "label-replaced", setLine: setRec.line, line: e.line, label: e.labelText };
  }
  return { kind: "label-target-missing", setLine: setRec.line, targetId: target };
}

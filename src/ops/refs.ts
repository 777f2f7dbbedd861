import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";

export type RefResult =
  | { ok: true; rec: EntryRec }
  | { ok: false; reason: "not-found" | "ambiguous" | "bad-line" | "no-entries"; ref: string; candidates?: EntryRec[] };

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
    const line = Number(ref.slice(1));
    if (!Number.isInteger(line) || line < 1) return { ok: false, reason: "bad-line", ref };
    const rec = findByLine(session, line);
    return rec ? { ok: true, rec } : { ok: false, reason: "not-found", ref };
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
    return { ok: false, reason: "not-found", ref };
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

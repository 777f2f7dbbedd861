import { CURRENT_VERSION, readEntry, type Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";

/** The fresh header of an exported branch: a new session that names the original as its parent. */
export interface ExportHeaderFacts {
  id: string;
  timestamp: string;
  /** The original's path, or undefined when it has none (stdin). */
  parentSession: string | undefined;
}

/** The header line's object: version 3, the original's cwd, a new id and time. */
export function exportHeader(session: Session, facts: ExportHeaderFacts): Record<string, unknown> {
  const h: Record<string, unknown> = { type: "session", version: CURRENT_VERSION, id: facts.id, timestamp: facts.timestamp };
  h.cwd = typeof session.header?.cwd === "string" ? session.header.cwd : "";
  if (facts.parentSession !== undefined) h.parentSession = facts.parentSession;
  return h;
}

/**
 * The entries of a path as pi holds them after migration, chained anew: each entry's parentId is the id of the
 * entry kept before it (null for the first), so that the written file is exactly this path even where the original
 * was v1 (ids assigned on load) or an entry in `leaveOut` is dropped.
 */
export function exportEntries(session: Session, path: readonly EntryRec[], leaveOut: ReadonlySet<EntryRec>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let parent: string | null = null;
  for (const rec of path) {
    if (leaveOut.has(rec)) continue;
    const o = readEntry(session, rec);
    o.parentId = parent;
    out.push(o);
    parent = typeof o.id === "string" ? o.id : null;
  }
  return out;
}

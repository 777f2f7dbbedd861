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

/** How the export changed an entry's field so that a finding goes while the context stays. */
export type EntryPatchKind = "keep-nothing" | "timestamp-lifted";

/**
 * The field change that makes a compaction's dangling `firstKeptEntryId` valid without changing the context: pi 1.6
 * keeps nothing before a compaction whose firstKeptEntryId names no entry before it on the path, and its own id is
 * how pi itself writes "keep nothing" (createBranchedSession keeps it so), which validate accepts. Null when the
 * entry has no id to point at.
 */
export function keepNothingPatch(rec: EntryRec): Record<string, unknown> | null {
  return rec.type === "compaction" && typeof rec.id === "string" ? { firstKeptEntryId: rec.id } : null;
}

/** Entry types whose own `timestamp` reaches the context (as the message's time); the others' never does. */
const TIME_IN_CONTEXT: ReadonlySet<string> = new Set(["custom_message", "branch_summary", "compaction"]);

/**
 * The field change that ends a timestamp-regression without changing the context: the entry takes the time of the
 * entry before it. Only for entries whose timestamp pi never puts into a message (a message entry's message carries
 * its own time); null for the others.
 */
export function timestampPatch(rec: EntryRec, previous: unknown): Record<string, unknown> | null {
  return TIME_IN_CONTEXT.has(rec.type) || typeof previous !== "string" ? null : { timestamp: previous };
}

/**
 * The entries of a path as pi holds them after migration, chained anew: each entry's parentId is the id of the
 * entry kept before it (null for the first), so that the written file is exactly this path even where the original
 * was v1 (ids assigned on load) or an entry in `leaveOut` is dropped.
 */
export function exportEntries(
  session: Session,
  path: readonly EntryRec[],
  leaveOut: ReadonlySet<EntryRec>,
  patches: ReadonlyMap<EntryRec, Record<string, unknown>> = new Map(),
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let parent: string | null = null;
  for (const rec of path) {
    if (leaveOut.has(rec)) continue;
    const o = { ...readEntry(session, rec), ...patches.get(rec) };
    o.parentId = parent;
    out.push(o);
    parent = typeof o.id === "string" ? o.id : null;
  }
  return out;
}

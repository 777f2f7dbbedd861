import type { EntryRec } from "../model/detail.js";

/** What became of a context entry's messages: the model sees them, or a `replacement: null` edit took them out. */
export type ContextPlace = "context" | "edited-out";

/**
 * Calls `mark` for each entry of a built context with its place, "edited-out" before "context" so that a later
 * call wins where one entry is both (two entries sharing an id: one removed, the other a source). The one rule for
 * `bloat` (its `edited-out` place) and `compactions` (edited-out entries are not counted as dropped by the
 * compaction): an entry left out because a compaction summarised it gets no call.
 */
export function markContextPlaces(
  ctx: { sources: readonly EntryRec[]; removed: readonly { source: EntryRec }[] },
  mark: (rec: EntryRec, place: ContextPlace) => void,
): void {
  for (const r of ctx.removed) mark(r.source, "edited-out");
  for (const rec of ctx.sources) mark(rec, "context");
}

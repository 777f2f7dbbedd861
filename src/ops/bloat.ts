import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import type { BloatMeasure, Place } from "../model/bloat-bytes.js";
import { buildContext, givesMessages } from "./context.js";
import { markContextPlaces } from "./context-place.js";
import { lightEntry } from "./kept.js";
/** What `pisess bloat` reports: the measure, and the leaf and fork facts it was taken with. */
export interface BloatData extends BloatMeasure {
  file: string;
  leaf: { id: string | null; line: number };
  /** Where the path ran into a parent cycle, the places are those of an empty path. */
  pathCycle: boolean;
  /** What a /fork of the active path would leave behind: the entries not on it. */
  fork: { leftBehindBytes: number; leftBehindTokens: number; keptBytes: number };
  /** The fork parent's file, when one was read to find the copied entries. */
  forkParent: string | null;
}

/**
 * Each entry's place, from the context at the leaf as buildContext computed it: a source of one of its messages
 * ("context"), taken out by a `replacement: null` edit ("edited-out"), an entry that would add messages but sits
 * before the compaction in effect ("summarised"), any other entry on the path ("path-other"), the rest
 * ("other-branches"); entries copied from a fork parent are "fork-copy" wherever they are.
 */
export function entryPlaces(
  session: Session,
  path: readonly EntryRec[],
  ctx: { sources: readonly EntryRec[]; removed: readonly { source: EntryRec }[]; compaction: EntryRec | null },
  copied: Uint8Array | undefined,
): Place[] {
  const places: Place[] = new Array(session.entries.length).fill("other-branches");
  const cpos = ctx.compaction ? path.indexOf(ctx.compaction) : -1;
  path.forEach((rec, i) => {
    places[rec.index] = i < cpos && givesMessages(rec) ? "summarised" : "path-other";
  });
  markContextPlaces(ctx, (rec, place) => {
    places[rec.index] = place;
  });
  if (copied) for (const rec of session.entries) if (copied[rec.index] === 1) places[rec.index] = "fork-copy";
  return places;
}

/**
 * Each entry's place (entryPlaces) with the path to the leaf, and which entries are on that path. The context is
 * built only where the path holds a compaction or an edit: without either, pi's context is each path entry's own
 * messages in path order, so its sources are the entries that give messages (givesMessages, the context's own
 * rule), and a context of the whole path (a few hundred bytes per entry, garbage before the pass) would only raise
 * bloat's peak memory.
 */
export function pathPlaces(session: Session, path: EntryRec[], copied: Uint8Array | undefined): { places: Place[]; onPath: Uint8Array } {
  const onPath = new Uint8Array(session.entries.length);
  let plain = true;
  for (const rec of path) {
    onPath[rec.index] = 1;
    if (rec.type === "compaction" || rec.type === "context_edit") plain = false;
  }
  if (plain)
    return { places: entryPlaces(session, path, { sources: path.filter(givesMessages), removed: [], compaction: null }, copied), onPath };
  return { places: placesFromContext(session, path, copied), onPath };
}

/** Each entry's place from the context at the leaf, built with bodies as light as places allow. */
export function placesFromContext(session: Session, path: EntryRec[], copied: Uint8Array | undefined): Place[] {
  // A message's body as membership needs it: its role, one shared object per role. A non-null content keeps
  // buildContext from copying each message to normalise it; places never read messages.
  const byRole = new Map<string | undefined, Record<string, unknown>>();
  const missing = { message: undefined };
  const read = (rec: EntryRec): Record<string, unknown> => {
    if (rec.type !== "message") return lightEntry(session, rec);
    if (rec.hasMessage !== true) return missing;
    let body = byRole.get(rec.role);
    if (body === undefined) {
      body = { message: { role: rec.role, content: "" } };
      byRole.set(rec.role, body);
    }
    return body;
  };
  return entryPlaces(session, path, buildContext(session, path, read), copied);
}

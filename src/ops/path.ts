import type { Session } from "../model/session.js";
import type { Detail, EntryRec, Rec } from "../model/detail.js";
import { stampedMarks } from "./marks.js";
import { resolveParent } from "./tree.js";

const walkMarks = stampedMarks();

/** Per session: how many of its first `counted` entries have an id (the entries only ever grow: follow). */
const idCounts = new WeakMap<Session, { counted: number; withId: number }>();

/** Whether every id names one entry only; counted once per session, and only the entries added since. */
function uniqueIds(session: Session): boolean {
  const { entries } = session;
  let c = idCounts.get(session);
  if (c === undefined) {
    c = { counted: 0, withId: 0 };
    idCounts.set(session, c);
  }
  for (; c.counted < entries.length; c.counted++) if ((entries[c.counted] as EntryRec).id !== undefined) c.withId++;
  return c.withId === session.byId.size;
}

/** A path of a session loaded with detail D: its records are that load's. */
export type PathResult<D extends Detail = Detail> =
  | { ok: true; path: Rec<D>[] }
  /** pi's getBranch would loop forever: the walk from the leaf came back to `cycle[0]`. */
  | { ok: false; cycle: Rec<D>[]; walked: Rec<D>[] };

/**
 * The entries from the root to `leaf`, following parent ids as pi does (last duplicate wins). Iterative, and a
 * parent cycle (a self-parent included) is returned as such instead of looping.
 */
export function pathTo<D extends Detail>(session: Session<D>, leaf: EntryRec): PathResult<D> {
  // Marks by entry index: a Set of a million-entry path costs tens of MB and most of the walk's time. The marks
  // are stamped with a walk number and kept per session, so that a hundred thousand short walks (diff --leaves on
  // a wide tree) do not each clear an array as long as the session.
  const { seen, stamp } = walkMarks(session);
  const { entries } = session;
  // In a chain the parent is the entry just before; with unique ids that entry is what byId holds for its id, and
  // comparing two ids is much cheaper than a lookup among a million (as buildTree does).
  const unique = uniqueIds(session);
  const walked: EntryRec[] = [];
  let cur: EntryRec | null = leaf;
  while (cur) {
    if (seen[cur.index] === stamp) {
      const start = walked.indexOf(cur);
      return { ok: false, cycle: walked.slice(start), walked } as PathResult as PathResult<D>;
    }
    seen[cur.index] = stamp;
    walked.push(cur);
    const prev: EntryRec | undefined = unique && cur.index > 0 ? entries[cur.index - 1] : undefined;
    cur = prev !== undefined && typeof cur.parentId === "string" && prev.id === cur.parentId ? prev : resolveParent(session, cur);
  }
  // Every record on the walk is one of the session's.
  return { ok: true, path: walked.reverse() } as PathResult as PathResult<D>;
}

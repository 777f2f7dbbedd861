import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { resolveParent } from "./tree.js";

export type PathResult =
  | { ok: true; path: EntryRec[] }
  /** pi's getBranch would loop forever: the walk from the leaf came back to `cycle[0]`. */
  | { ok: false; cycle: EntryRec[]; walked: EntryRec[] };

/**
 * The entries from the root to `leaf`, following parent ids as pi does (last duplicate wins). Iterative, and a
 * parent cycle (a self-parent included) is returned as such instead of looping.
 */
export function pathTo(session: Session, leaf: EntryRec): PathResult {
  // Marks by entry index: a Set of a million-entry path costs tens of MB and most of the walk's time. The marks
  // are stamped with a walk number and kept per session, so that a hundred thousand short walks (diff --leaves on
  // a wide tree) do not each clear an array as long as the session.
  const { seen, stamp } = walkMarks(session);
  const walked: EntryRec[] = [];
  let cur: EntryRec | null = leaf;
  while (cur) {
    if (seen[cur.index] === stamp) {
      const start = walked.indexOf(cur);
      return { ok: false, cycle: walked.slice(start), walked };
    }
    seen[cur.index] = stamp;
    walked.push(cur);
    cur = resolveParent(session, cur);
  }
  return { ok: true, path: walked.reverse() };
}

const marksBySession = new WeakMap<Session, { seen: Uint32Array; stamp: number }>();

/** The session's mark array and a stamp no earlier walk used (a fresh array once the stamps run out). */
function walkMarks(session: Session): { seen: Uint32Array; stamp: number } {
  let m = marksBySession.get(session);
  if (m === undefined || m.seen.length < session.entries.length || m.stamp === 0xffffffff) {
    m = { seen: new Uint32Array(session.entries.length), stamp: 0 };
    marksBySession.set(session, m);
  }
  m.stamp += 1;
  return m;
}

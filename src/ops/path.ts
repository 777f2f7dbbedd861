import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { stampedMarks } from "./marks.js";
import { resolveParent } from "./tree.js";

const walkMarks = stampedMarks();

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

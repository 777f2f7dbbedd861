import type { Session } from "../model/session.js";

/** A mark array over a session's entries (by index) and the stamp that means "marked" in this walk. */
export interface Marks {
  readonly seen: Uint32Array;
  readonly stamp: number;
}

/**
 * Marks by entry index for walks that run many times over one session (a path per leaf, a context per leaf): the
 * array is kept per session and each walk gets a stamp no earlier walk used, so a walk costs what it visits, not
 * the length of the session. Each user makes its own (a walk may run inside another's).
 */
export function stampedMarks(): (session: Session) => Marks {
  const bySession = new WeakMap<Session, { seen: Uint32Array; stamp: number }>();
  return (session) => {
    let m = bySession.get(session);
    // A fresh array when the session grew (follow) or the stamps ran out.
    if (m === undefined || m.seen.length < session.entries.length || m.stamp === 0xffffffff) {
      m = { seen: new Uint32Array(session.entries.length), stamp: 0 };
      bySession.set(session, m);
    }
    m.stamp += 1;
    return { seen: m.seen, stamp: m.stamp };
  };
}

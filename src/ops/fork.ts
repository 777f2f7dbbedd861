import { resolve } from "node:path";
import { forkParentRef, isFile, readHeader, resolveForkRef } from "../io/discover.js";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { forkCopy, type ForkCopy } from "./fork-copy.js";
import { ancestorsOf } from "./lineage.js";

export interface ForkParent {
  /** The parent the header names (see forkParentRef), as written. */
  ref: string;
  legacy: boolean;
  /** Resolved against the fork's folder when relative. */
  path: string;
  exists: boolean;
  /**
   * Whether the chain of parents leads back to this file (its own header, or a loop of any length through it).
   * Which side copied from which cannot be told then, so nothing counts as copied: the session's spend stays its own.
   */
  cycle: boolean;
  /** Entries copied from the parent (by index), when the parent could be read and the chain has no loop to here. */
  copied: Uint8Array | undefined;
  /** The whole answer of the fork-copy rule (src/ops/fork-copy.ts), when `copied` is given. */
  copy: ForkCopy | undefined;
}

/** The parent a fork names in its header, whether it exists, and which entries were copied from it. */
export async function forkParent(session: Session): Promise<ForkParent | null> {
  const p = forkParentRef(session.header);
  if (!p) return null;
  const path = resolveForkRef(p.ref, session.path) ?? p.ref;
  const exists = await isFile(path);
  const cycle = session.path !== undefined && (await forkLoops(session.path));
  let copy: ForkCopy | undefined;
  if (exists && !cycle) {
    try {
      const parent = await loadSession({ kind: "file", path }, { detail: "skeleton" });
      try {
        copy = forkCopy(session, parent);
      } finally {
        parent.store.close();
      }
    } catch {
      copy = undefined;
    }
  }
  return { ref: p.ref, legacy: p.legacy, path, exists, cycle, copied: copy?.copied, copy };
}

/** Whether the chain of fork parents from this file leads back to it (then nothing of it counts as copied). */
export async function forkLoops(path: string): Promise<boolean> {
  const abs = resolve(path);
  return (await ancestorsOf(abs, await readHeader(abs))).loopsToSelf;
}

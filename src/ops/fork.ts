import { resolve } from "node:path";
import { forkParentRef, isFile, readHeader, resolveForkRef } from "../io/discover.js";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { ancestorsOf } from "./lineage.js";
import { copiedMask } from "./totals.js";

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
}

/** The parent a fork names in its header, whether it exists, and which entries were copied from it. */
export async function forkParent(session: Session): Promise<ForkParent | null> {
  const p = forkParentRef(session.header);
  if (!p) return null;
  const path = resolveForkRef(p.ref, session.path) ?? p.ref;
  const exists = await isFile(path);
  const cycle = session.path !== undefined && (await loopsToSelf(session.path));
  let copied: Uint8Array | undefined;
  if (exists && !cycle) {
    try {
      const parent = await loadSession({ kind: "file", path });
      try {
        copied = copiedMask(session, parent);
      } finally {
        parent.store.close();
      }
    } catch {
      copied = undefined;
    }
  }
  return { ref: p.ref, legacy: p.legacy, path, exists, cycle, copied };
}

async function loopsToSelf(path: string): Promise<boolean> {
  const abs = resolve(path);
  return (await ancestorsOf(abs, await readHeader(abs))).loopsToSelf;
}

import { forkParentRef, isFile, resolveForkRef } from "../io/discover.js";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { copiedMask } from "./totals.js";

export interface ForkParent {
  /** The parent the header names (see forkParentRef), as written. */
  ref: string;
  legacy: boolean;
  /** Resolved against the fork's folder when relative. */
  path: string;
  exists: boolean;
  /** Entries copied from the parent (by index), when the parent could be read. */
  copied: Uint8Array | undefined;
}

/** The parent a fork names in its header, whether it exists, and which entries were copied from it. */
export async function forkParent(session: Session): Promise<ForkParent | null> {
  const p = forkParentRef(session.header);
  if (!p) return null;
  const path = resolveForkRef(p.ref, session.path) ?? p.ref;
  const exists = await isFile(path);
  let copied: Uint8Array | undefined;
  if (exists) {
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
  return { ref: p.ref, legacy: p.legacy, path, exists, copied };
}

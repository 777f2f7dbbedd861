import { forkParentRef, isFile, resolveForkRef } from "../io/discover.js";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { forkLoops } from "./fork.js";
import { forkCopy } from "./fork-copy.js";

/**
 * Fork parents for a run over many sessions: each parent file is read once (skeleton detail: ids, timestamps and
 * labels are all forkCopy needs) and kept while it is among the recently used, so a parent with many forks is not
 * read again for each. The parent is the one the fork-parent rule names (forkParentRef), found on disk whether or not
 * it is among the inputs. The copies are the ones forkParent (src/ops/fork.ts) finds: none when the chain of parents
 * loops back to the session.
 */
export class ParentCache {
  private readonly cache = new Map<string, Session | null>();

  constructor(private readonly capacity = 64) {}

  /**
   * The copied-entry mask of a fork (undefined: not a fork, a parent that cannot be read, or a chain of parents that
   * loops back to it: `cycle`) and its parent path.
   */
  async copied(session: Session): Promise<{ mask: Uint8Array | undefined; parent: string | undefined; exists: boolean; cycle: boolean }> {
    const ref = forkParentRef(session.header);
    if (!ref) return { mask: undefined, parent: undefined, exists: false, cycle: false };
    const path = resolveForkRef(ref.ref, session.path) ?? ref.ref;
    const cycle = session.path !== undefined && (await forkLoops(session.path));
    const parent = cycle ? null : await this.load(path);
    return {
      mask: parent ? forkCopy(session, parent).copied : undefined,
      parent: path,
      exists: parent !== null || (await isFile(path)),
      cycle,
    };
  }

  /**
   * copied() for a session that had `before` entries when its copies were found to be its first `copies` (a fork's
   * copies are a leading run: forkCopy): when that run ended before the entries added since, those are no copies and
   * the parent is not read again.
   */
  async copiedGrown(session: Session, before: number, copies: number | undefined): ReturnType<ParentCache["copied"]> {
    const ref = forkParentRef(session.header);
    if (!ref || copies === undefined || copies >= before) return this.copied(session);
    const path = resolveForkRef(ref.ref, session.path) ?? ref.ref;
    const cycle = session.path !== undefined && (await forkLoops(session.path));
    if (cycle) return { mask: undefined, parent: path, exists: await isFile(path), cycle };
    const mask = new Uint8Array(session.entries.length);
    mask.fill(1, 0, copies);
    return { mask, parent: path, exists: await isFile(path), cycle };
  }

  private async load(path: string): Promise<Session | null> {
    if (this.cache.has(path)) {
      const hit = this.cache.get(path) as Session | null;
      // Re-insert: Map order is the recency order.
      this.cache.delete(path);
      this.cache.set(path, hit);
      return hit;
    }
    let parent: Session | null = null;
    if (await isFile(path)) {
      try {
        parent = await loadSession({ kind: "file", path }, { detail: "skeleton" });
        // Only the index is kept; the file is not read again.
        parent.store.close();
      } catch {
        parent = null;
      }
    }
    this.cache.set(path, parent);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value as string);
    return parent;
  }
}

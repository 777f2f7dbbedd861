import type { Obj } from "../model/json.js";
import type { EntryRec } from "../model/detail.js";
import { EDITABLE_ROLES } from "../model/roles.js";
import type { Session } from "../model/session.js";
import { givesMessages } from "./context.js";
import type { SessionTree, TreeNode } from "./tree.js";

/** The requests (assistant turns) whose context held an entry's own content. */
export interface SentTo {
  requests: number;
  /** The assistant entries of the first and last such request, by line; null when none. */
  first: EntryRec | null;
  last: EntryRec | null;
}

/** The compaction in effect on the walk's path: where pi cuts (by id, as pi finds them) and keeps from. */
interface Cut {
  rec: EntryRec;
  /** Depth of the first entry on the path with the compaction's id (pi's findIndex). */
  at: number;
  /** Depth of the kept range's first entry (firstKeptEntryId, before the cut), or null: nothing kept. */
  keptFrom: number | null;
}

/** A context edit on the walk's path. */
interface Edit {
  rec: EntryRec;
  depth: number;
  targetId: unknown;
  removes: boolean;
  replaces: boolean;
}

/**
 * For each entry asked about, the requests pi made with it in their context: a request is an assistant entry, its
 * context the one pi builds for the assistant's parent (the rules of buildContext, as `pisess context` builds it).
 *
 * One depth-first walk of the tree, not one context per turn: the walk keeps what decides a context as it goes
 * down a path and undoes it coming back (the ids on the path, the last compaction and where it cuts, the edits per
 * target), so at each assistant turn every asked entry on the path is answered in constant time from that state:
 * in the context (before the cut only from the kept range, no system message, no older compaction), giving
 * messages, and not removed or replaced by the latest edit among the context's entries (an edit's own replacement:
 * when it is that latest edit and its target is in the context). The walk reads only compactions and edits.
 * test/equivalence/secrets-sent-pi16.test.ts holds it to a buildContext per assistant turn on the corpus.
 */
export function requestsHolding(
  session: Session,
  tree: SessionTree,
  asked: readonly EntryRec[],
  read: (rec: EntryRec) => Obj,
): Map<EntryRec, SentTo> {
  const out = new Map<EntryRec, SentTo>();
  for (const e of asked) if (!out.has(e)) out.set(e, { requests: 0, first: null, last: null });
  if (out.size === 0) return out;
  const walk = new PathState(session.entries.length);
  const onPath: EntryRec[] = [];
  // [node, exiting]: entering pushes onto the path, exiting pops.
  const stack: [TreeNode, boolean][] = [];
  for (let r = tree.roots.length - 1; r >= 0; r--) stack.push([tree.roots[r] as TreeNode, false]);
  while (stack.length > 0) {
    const [node, exiting] = stack.pop() as [TreeNode, boolean];
    const rec = node.rec;
    if (exiting) {
      walk.leave(rec);
      if (onPath.at(-1) === rec) onPath.pop();
      continue;
    }
    // Entries on or below a parent cycle: pi cannot build their path, so they are in no request.
    if (tree.inCycle[rec.index] === 1) continue;
    if (rec.type === "message" && rec.role === "assistant" && walk.depth > 0) {
      for (const e of onPath) if (walk.holds(e)) count(out.get(e) as SentTo, rec);
    }
    walk.enter(rec, read);
    if (out.has(rec)) onPath.push(rec);
    stack.push([node, true]);
    for (let c = node.children.length - 1; c >= 0; c--) stack.push([node.children[c] as TreeNode, false]);
  }
  return out;
}

function count(s: SentTo, a: EntryRec): void {
  s.requests++;
  if (s.first === null || a.line < s.first.line) s.first = a;
  if (s.last === null || a.line > s.last.line) s.last = a;
}

/** Whether an edit's replacement takes the place of the entry's content (pi's editable roles). */
function replaceable(e: EntryRec): boolean {
  const role = e.type === "message" ? e.role : e.type === "custom_message" ? "custom" : undefined;
  return role !== undefined && EDITABLE_ROLES.has(role);
}

/** What decides the context of the entry at the bottom of the walk's path. */
class PathState {
  depth = 0;
  /** Depth of each entry on the path, by index (-1 off it). */
  private readonly depthOf: Int32Array;
  /** Per id, the depths of the path's entries with it, the first (nearest the root) first. */
  private readonly ids = new Map<string, number[]>();
  private readonly path: EntryRec[] = [];
  private readonly cuts: Cut[] = [];
  private readonly edits = new Map<unknown, Edit[]>();
  private readonly editOf = new Map<EntryRec, Edit>();

  constructor(entries: number) {
    this.depthOf = new Int32Array(entries).fill(-1);
  }

  enter(rec: EntryRec, read: (rec: EntryRec) => Obj): void {
    const d = this.depth++;
    this.path.push(rec);
    this.depthOf[rec.index] = d;
    if (rec.id !== undefined) {
      const at = this.ids.get(rec.id);
      if (at === undefined) this.ids.set(rec.id, [d]);
      else at.push(d);
    }
    if (rec.type === "compaction") {
      const first = this.ids.get(rec.id ?? "")?.[0] ?? d;
      const kept = read(rec).firstKeptEntryId;
      const k = typeof kept === "string" ? this.ids.get(kept)?.[0] : undefined;
      this.cuts.push({ rec, at: first, keptFrom: k !== undefined && k < first ? k : null });
    } else if (rec.type === "context_edit") {
      const o = read(rec);
      const edit: Edit = {
        rec,
        depth: d,
        targetId: o.targetId,
        removes: o.replacement === null,
        replaces: o.replacement !== null && o.replacement !== undefined,
      };
      const list = this.edits.get(o.targetId);
      if (list === undefined) this.edits.set(o.targetId, [edit]);
      else list.push(edit);
      this.editOf.set(rec, edit);
    }
  }

  leave(rec: EntryRec): void {
    this.depth--;
    this.path.pop();
    this.depthOf[rec.index] = -1;
    if (rec.id !== undefined) {
      const at = this.ids.get(rec.id) as number[];
      at.pop();
      if (at.length === 0) this.ids.delete(rec.id);
    }
    if (rec.type === "compaction") this.cuts.pop();
    else if (rec.type === "context_edit") {
      const edit = this.editOf.get(rec) as Edit;
      const list = this.edits.get(edit.targetId) as Edit[];
      list.pop();
      if (list.length === 0) this.edits.delete(edit.targetId);
      this.editOf.delete(rec);
    }
  }

  /** Whether `rec` (on the path, at depth d) is among the context's entries (buildContext's contextEntries). */
  private inContext(rec: EntryRec, d: number): boolean {
    const cut = this.cuts.at(-1);
    if (cut === undefined || rec === cut.rec) return true;
    if (d === cut.at) return false;
    // An older compaction among the context's entries contributes nothing.
    if (rec.type === "compaction") return false;
    if (d > cut.at) return true;
    return cut.keptFrom !== null && d >= cut.keptFrom && !(rec.type === "message" && rec.role === "system");
  }

  /** The latest edit of `targetId` among the context's entries. */
  private latestEdit(targetId: string): Edit | undefined {
    const list = this.edits.get(targetId);
    if (list === undefined) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const e = list[i] as Edit;
      if (this.inContext(e.rec, e.depth)) return e;
    }
    return undefined;
  }

  /** Whether the context of the path holds `e`'s own content (`e` on the path). */
  holds(e: EntryRec): boolean {
    const d = this.depthOf[e.index] as number;
    if (d < 0 || !this.inContext(e, d)) return false;
    if (e.type === "context_edit") return this.applied(this.editOf.get(e) as Edit);
    if (!givesMessages(e)) return false;
    const edit = e.id === undefined ? undefined : this.latestEdit(e.id);
    if (edit === undefined || !edit.replaces) return edit?.removes !== true;
    return !replaceable(e);
  }

  /** An edit's replacement is in the context: it is the latest edit of its target there, and replaces one of the target's messages. */
  private applied(edit: Edit): boolean {
    if (!edit.replaces || typeof edit.targetId !== "string" || this.latestEdit(edit.targetId) !== edit) return false;
    for (const d of this.ids.get(edit.targetId) ?? []) {
      const t = this.path[d] as EntryRec;
      if (this.inContext(t, d) && givesMessages(t) && replaceable(t)) return true;
    }
    return false;
  }
}

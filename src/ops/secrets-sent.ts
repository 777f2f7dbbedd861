import type { Obj } from "../model/json.js";
import type { EntryRec } from "../model/detail.js";
import { EDITABLE_ROLES } from "../model/roles.js";
import type { Session } from "../model/session.js";
import { buildContext, givesMessages } from "./context.js";
import { pathTo } from "./path.js";
import type { SessionTree } from "./tree.js";

/** The requests (assistant turns) whose context held an entry's own content. */
export interface SentTo {
  requests: number;
  /** The assistant entries of the first and last such request, by line; null when none. */
  first: EntryRec | null;
  last: EntryRec | null;
}

/** What a context (of a compaction or context edit entry, `key`) does to the entries above it and below it. */
interface KeyView {
  /** Entries on the key's path whose messages are in its context as they were written (no edit replaced them). */
  unedited: Set<EntryRec>;
  /** context_edit entries whose replacement is in the context (applied to a message). */
  applied: Set<EntryRec>;
  /** For entries below the key: the edit in effect per target id (the latest among the context's entries). */
  editOf: Map<string, { removes: boolean; replaces: boolean }>;
  /** The edits in force that would replace an entry not in the key's context: edit → that entry (pi's byId). */
  editBy: Map<EntryRec, EntryRec>;
}

/**
 * For each entry asked about, the requests pi made with it in their context: a request is an assistant entry, its
 * context the one pi builds for the assistant's parent (buildContext, as `pisess context` builds it).
 *
 * Not a context per assistant turn: along a path the context only grows, until a compaction or a context edit
 * changes what the entries above it give. So each entry of the tree has a key, its nearest ancestor-or-self that is
 * a compaction or a context edit, and every assistant turn below the same key sees the entries above the key
 * alike. One context is built per key that has an asked entry above it or an edit in force (compactions and edits
 * are few); an asked entry E is in the request of assistant A (below E) when
 * - A's parent has no key: E gives messages (nothing is cut or edited on the path);
 * - E is on the key's path: its messages are in the key's context, unedited (or E is an edit applied there);
 * - E is below the key: it gives messages, and no edit in force removes or replaces its content.
 * The work is the assistant turns below each asked entry, plus one context per key: linear in a session's turns
 * for the few entries that hold secrets, whatever the number of turns.
 */
export function requestsHolding(
  session: Session,
  tree: SessionTree,
  asked: readonly EntryRec[],
  read: (rec: EntryRec) => Obj,
): Map<EntryRec, SentTo> {
  const order = preorder(session, tree);
  const views = new Map<EntryRec, KeyView | null>();
  const viewOf = (key: EntryRec): KeyView | null => {
    let v = views.get(key);
    if (v === undefined) {
      v = keyView(session, key, read);
      views.set(key, v);
    }
    return v;
  };
  const out = new Map<EntryRec, SentTo>();
  for (const e of asked) {
    if (out.has(e)) continue;
    const sent: SentTo = { requests: 0, first: null, last: null };
    out.set(e, sent);
    const tin = order.tin[e.index];
    if (tin === undefined || tin < 0) continue;
    const end = tin + (order.size[e.index] as number);
    const memo = new Map<EntryRec | null, Held>();
    for (let i = lowerBound(order.assistantTin, tin + 1); i < order.assistants.length && (order.assistantTin[i] as number) < end; i++) {
      const a = order.assistants[i] as EntryRec;
      const parent = tree.parent[a.index];
      if (parent === null || parent === undefined) continue;
      const key = order.key[parent.index] ?? null;
      let held = memo.get(key);
      if (held === undefined) {
        held = heldBelow(e, key, key === null ? null : viewOf(key), order);
        memo.set(key, held);
      }
      if (held === false || (held !== true && !isAncestorOrSelf(order, held, parent))) continue;
      sent.requests++;
      if (sent.first === null || a.line < sent.first.line) sent.first = a;
      if (sent.last === null || a.line > sent.last.line) sent.last = a;
    }
  }
  return out;
}

/**
 * Whether entry E's own content is in the requests of the assistant turns whose parent has key `key`: yes, no, or
 * (an edit whose target comes below the key: pi applies an edit once its target is in the context) an entry: yes
 * for the turns whose parent is that entry or below it.
 */
type Held = boolean | EntryRec;

function heldBelow(e: EntryRec, key: EntryRec | null, view: KeyView | null, order: Preorder): Held {
  if (key === null) return e.type !== "context_edit" && givesMessages(e);
  if (view === null) return false;
  if (isAncestorOrSelf(order, e, key)) {
    if (e.type !== "context_edit") return view.unedited.has(e);
    if (view.applied.has(e)) return true;
    // An edit in force whose target is not in the key's context yet: applied below, where the target comes.
    const target = view.editBy.get(e);
    if (target === undefined || isAncestorOrSelf(order, target, key)) return false;
    return target;
  }
  if (e.type === "context_edit" || !givesMessages(e)) return false;
  const edit = e.id === undefined ? undefined : view.editOf.get(e.id);
  if (edit === undefined) return true;
  if (edit.removes) return false;
  if (!edit.replaces) return true;
  return !replaceable(e);
}

/** Whether an edit's replacement takes the place of the entry's content (pi's editable roles). */
function replaceable(e: EntryRec): boolean {
  const role = e.type === "message" ? e.role : e.type === "custom_message" ? "custom" : undefined;
  return role !== undefined && EDITABLE_ROLES.has(role);
}

/** `a` is `b` or above it in the tree (by the walk's positions); false for entries the walk did not reach. */
function isAncestorOrSelf(order: Preorder, a: EntryRec, b: EntryRec): boolean {
  const at = order.tin[a.index] as number;
  const bt = order.tin[b.index] as number;
  return at >= 0 && bt >= 0 && at <= bt && bt < at + (order.size[a.index] as number);
}

/**
 * The entry types whose bodies decide which entries a context holds (settings, the cut, the edits, the messages
 * built from an entry's fields). Every other entry is read as a stand-in: which entries give messages, and whether
 * an edit replaces them, depends on a message's role alone (the record has it), not on its content; so a context
 * per key costs no parse of the messages of its path.
 */
const READ_WHOLE: ReadonlySet<string> = new Set([
  "thinking_level_change",
  "model_change",
  "compaction",
  "context_edit",
  "custom_message",
  "branch_summary",
]);

function standIn(rec: EntryRec): Obj {
  if (rec.type !== "message") return {};
  return { message: rec.hasMessage === true ? (rec.role === undefined ? {} : { role: rec.role }) : undefined };
}

/** The context of a key entry, reduced to what `heldBelow` asks of it; null when pi cannot build its path. */
function keyView(session: Session, key: EntryRec, read: (rec: EntryRec) => Obj): KeyView | null {
  const p = pathTo(session, key);
  if (!p.ok) return null;
  const ctx = buildContext(session, p.path, (rec) => (READ_WHOLE.has(rec.type) ? read(rec) : standIn(rec)));
  const unedited = new Set<EntryRec>();
  const applied = new Set<EntryRec>();
  for (let i = 0; i < ctx.sources.length; i++) {
    const by = ctx.editedBy[i];
    if (by === undefined) unedited.add(ctx.sources[i] as EntryRec);
    else applied.add(by);
  }
  const editOf = new Map<string, { removes: boolean; replaces: boolean }>();
  const editBy = new Map<EntryRec, EntryRec>();
  for (const info of ctx.edits) {
    if (info.status === "summarized" || info.status === "superseded") continue;
    const body = read(info.edit);
    if (typeof body.targetId !== "string") continue;
    const replaces = body.replacement !== null && body.replacement !== undefined;
    editOf.set(body.targetId, { removes: body.replacement === null, replaces });
    const target = session.byId.get(body.targetId);
    if (replaces && target !== undefined && info.status === "target-outside-context" && replaceable(target) && givesMessages(target))
      editBy.set(info.edit, target);
  }
  return { unedited, applied, editOf, editBy };
}

interface Preorder {
  /** Position of each entry (by index) in a depth-first walk of the tree, -1 for entries pi cannot reach. */
  tin: number[];
  /** Size of each entry's subtree, itself included. */
  size: number[];
  /** Nearest ancestor-or-self that is a compaction or a context edit, by entry index. */
  key: (EntryRec | null)[];
  /** Assistant message entries in walk order, and their positions. */
  assistants: EntryRec[];
  assistantTin: number[];
}

/** One iterative depth-first walk: positions, subtree sizes, keys, and the assistant turns in walk order. */
function preorder(session: Session, tree: SessionTree): Preorder {
  const n = session.entries.length;
  const tin: number[] = [];
  const size: number[] = [];
  const key: (EntryRec | null)[] = [];
  for (let i = 0; i < n; i++) {
    tin.push(-1);
    size.push(0);
    key.push(null);
  }
  const assistants: EntryRec[] = [];
  const assistantTin: number[] = [];
  let t = 0;
  // [node, exiting]: entering gives the position, exiting the subtree size.
  const stack: [SessionTree["roots"][number], boolean][] = [];
  for (let r = tree.roots.length - 1; r >= 0; r--) stack.push([tree.roots[r] as SessionTree["roots"][number], false]);
  while (stack.length > 0) {
    const [node, exiting] = stack.pop() as [SessionTree["roots"][number], boolean];
    const rec = node.rec;
    if (exiting) {
      size[rec.index] = t - (tin[rec.index] as number);
      continue;
    }
    // Entries on or below a parent cycle: pi cannot build their path, so they are in no request.
    if (tree.inCycle[rec.index] === 1) continue;
    tin[rec.index] = t++;
    const parent = tree.parent[rec.index];
    key[rec.index] =
      rec.type === "compaction" || rec.type === "context_edit"
        ? rec
        : parent === null || parent === undefined
          ? null
          : (key[parent.index] ?? null);
    if (rec.type === "message" && rec.role === "assistant") {
      assistants.push(rec);
      assistantTin.push(tin[rec.index] as number);
    }
    stack.push([node, true]);
    for (let c = node.children.length - 1; c >= 0; c--) stack.push([node.children[c] as SessionTree["roots"][number], false]);
  }
  return { tin, size, key, assistants, assistantTin };
}

function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

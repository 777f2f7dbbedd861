import { CURRENT_VERSION, readEntry, type Session } from "../model/session.js";
import type { SessionContext } from "./context.js";
import type { EntryRec } from "../model/detail.js";

/** The fresh header of an exported branch: a new session that names the original as its parent. */
export interface ExportHeaderFacts {
  id: string;
  timestamp: string;
  /** The original's path, or undefined when it has none (stdin). */
  parentSession: string | undefined;
}

/** The header line's object: version 3, the original's cwd, a new id and time. */
export function exportHeader(session: Session, facts: ExportHeaderFacts): Record<string, unknown> {
  const h: Record<string, unknown> = { type: "session", version: CURRENT_VERSION, id: facts.id, timestamp: facts.timestamp };
  h.cwd = typeof session.header?.cwd === "string" ? session.header.cwd : "";
  if (facts.parentSession !== undefined) h.parentSession = facts.parentSession;
  return h;
}

/** How the export changed an entry's field so that a finding goes while the context stays. */
export type EntryPatchKind = "keep-nothing" | "timestamp-lifted";

/**
 * The field change that makes a compaction's dangling `firstKeptEntryId` valid without changing the context: pi 1.6
 * keeps nothing before a compaction whose firstKeptEntryId names no entry before it on the path, and its own id is
 * how pi itself writes "keep nothing" (createBranchedSession keeps it so), which validate accepts. Null when the
 * entry has no id to point at.
 */
export function keepNothingPatch(rec: EntryRec): Record<string, unknown> | null {
  return rec.type === "compaction" && typeof rec.id === "string" ? { firstKeptEntryId: rec.id } : null;
}

/** Entry types whose own `timestamp` reaches the context (as the message's time); the others' never does. */
const TIME_IN_CONTEXT: ReadonlySet<string> = new Set(["custom_message", "branch_summary", "compaction"]);

/**
 * The field change that ends a timestamp-regression without changing the context: the entry takes the time of the
 * entry before it. Only for entries whose timestamp pi never puts into a message (a message entry's message carries
 * its own time); null for the others.
 */
export function timestampPatch(rec: EntryRec, previous: unknown): Record<string, unknown> | null {
  return TIME_IN_CONTEXT.has(rec.type) || typeof previous !== "string" ? null : { timestamp: previous };
}

/**
 * The entries of a path as pi holds them after migration, chained anew: each entry's parentId is the id of the
 * entry kept before it (null for the first), so that the written file is exactly this path even where the original
 * was v1 (ids assigned on load) or an entry in `leaveOut` is dropped.
 */
export function exportEntries(
  session: Session,
  path: readonly EntryRec[],
  leaveOut: ReadonlySet<EntryRec>,
  patches: ReadonlyMap<EntryRec, Record<string, unknown>> = new Map(),
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let parent: string | null = null;
  for (const rec of path) {
    if (leaveOut.has(rec)) continue;
    const o = { ...readEntry(session, rec), ...patches.get(rec) };
    o.parentId = parent;
    out.push(o);
    parent = typeof o.id === "string" ? o.id : null;
  }
  return out;
}

/** Entry types whose effect on a context reaches beyond their own messages (settings, the cut, edits). */
const REACHING_TYPES: ReadonlySet<string> = new Set(["thinking_level_change", "model_change", "compaction", "context_edit"]);

/**
 * Whether leaving one more entry out of a path changes its context, answered from the context as it stands where
 * that context alone decides it, so that an export with a finding on every entry does not rebuild the whole context
 * once per finding (quadratic: 8,000 entries took over two minutes).
 *
 * An entry is "plain" when nothing but its own messages can change with it: not a settings change, compaction or
 * context edit, not an id that a compaction or context edit on the path names (the cut and the edits find entries by
 * id), and not the last model setter (an assistant message sets the model even where the compaction summarized it
 * away). Leaving a plain entry out changes the context exactly when it gave messages to it: the messages of every
 * other entry stay as they were, and a list with fewer items is never the same list. For any other entry the answer
 * is null: the caller builds the context and compares.
 */
export class LeaveOutEffect {
  private readonly named = new Set<string>();
  private readonly gives: Uint8Array;
  private readonly position: Int32Array;
  private lastSetter = -1;

  constructor(
    session: Session,
    private readonly path: readonly EntryRec[],
    read: (rec: EntryRec) => Record<string, unknown>,
  ) {
    this.gives = new Uint8Array(session.entries.length);
    this.position = new Int32Array(session.entries.length).fill(-1);
    path.forEach((rec, i) => {
      this.position[rec.index] = i;
      if (rec.type === "compaction") {
        const o = read(rec);
        for (const v of [o.id, o.firstKeptEntryId]) if (typeof v === "string") this.named.add(v);
      } else if (rec.type === "context_edit") {
        const target = read(rec).targetId;
        if (typeof target === "string") this.named.add(target);
      }
    });
  }

  /** Takes in the context of the path less `leaveOut` (after every change the caller accepted by comparing). */
  update(ctx: SessionContext, leaveOut: ReadonlySet<EntryRec>): void {
    this.gives.fill(0);
    for (const rec of ctx.sources) this.gives[rec.index] = 1;
    this.lastSetter = -1;
    for (let i = this.path.length - 1; i >= 0 && this.lastSetter < 0; i--) {
      const rec = this.path[i] as EntryRec;
      if (!leaveOut.has(rec) && isModelSetter(rec)) this.lastSetter = i;
    }
  }

  /** True: leaving `rec` out changes the context; false: it does not; null: only a rebuilt context can tell. */
  changes(rec: EntryRec): boolean | null {
    if (REACHING_TYPES.has(rec.type) || typeof rec.id !== "string" || this.named.has(rec.id)) return null;
    if (isModelSetter(rec) && this.position[rec.index] === this.lastSetter) return null;
    return this.gives[rec.index] === 1;
  }
}

/** Entries that set the context's model (buildContext): model changes and assistant messages. */
function isModelSetter(rec: EntryRec): boolean {
  return rec.type === "model_change" || (rec.type === "message" && rec.role === "assistant");
}

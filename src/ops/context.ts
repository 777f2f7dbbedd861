import { estimateTokens } from "./budget.js";
import { isObject, type Obj } from "../model/json.js";
import type { Session } from "../model/session.js";
import { BLOCK_ONLY_ROLES, EDITABLE_ROLES, KNOWN_ROLES } from "../model/roles.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import { stampedMarks } from "./marks.js";
import { firstKeptProblem, messageMissing, toolCallUnanswered, toolResultOrphan, unknownRole } from "./problems.js";
import { entryTime } from "../model/time.js";

const contextMarks = stampedMarks();

/** What became of a `context_edit` on the path, in the words of pi 1.6.0's own projection. */
type EditStatus =
  /** The latest edit of its target among the context entries, and the target is one of them. */
  | "applied"
  /** A later edit of the same target among the context entries wins. */
  | "superseded"
  /** The edit itself is before the kept range of the compaction in effect. */
  | "summarized"
  /** No entry has the target id. */
  | "target-missing"
  /** The target exists but is not among the context entries (another branch, or summarized away). */
  | "target-outside-context";

interface EditOnPath {
  edit: EntryRec;
  /** The edit's entry as read (what its line holds): checks of the edit read it here, not from the file again. */
  entry: Record<string, unknown>;
  /** The entry the edit names (pi's rule: last duplicate wins), or null. */
  target: EntryRec | null;
  status: EditStatus;
  /** `replacement: null`: the target's messages are gone from the context. */
  removes: boolean;
  /** Applied without a `replacement` to a user, assistant, toolResult or custom message: pi 1.6 throws building
   * this context; pisess applies no edit (src/check/edits.ts reports `context-edit-no-replacement`). */
  piThrows?: true;
}

export interface SessionContext {
  /** As pi computes it: the last thinking_level_change value, whatever its type ("off" when there is none). */
  thinkingLevel: string;
  /** As pi computes it; fields hold whatever the entry held (possibly undefined, left out in JSON). */
  model: { provider: string; modelId: string } | null;
  /** pi's AgentMessages, the very objects of the entries (message entries) or built as pi builds them. */
  messages: unknown[];
  /** sources[i] is the entry that produced messages[i] (the compaction entry for its summary and systemMessage). */
  sources: EntryRec[];
  /** editedBy[i]: the `context_edit` that replaced the content of messages[i], where one did. */
  editedBy: (EntryRec | undefined)[];
  /** originals[i]: messages[i] as the entry recorded it, before its edit (only where editedBy[i] is set). */
  originals: (unknown | undefined)[];
  /** Every `context_edit` on the path, in path order, with what became of it. */
  edits: EditOnPath[];
  /** Messages that `replacement: null` edits took out of the context: the entry, the edit, and `at`, the index in
   * `messages` where they would stand. */
  removed: { source: EntryRec; edit: EntryRec; messages: unknown[]; at: number }[];
  /** The compaction that applies (the last one on the path), or null. */
  compaction: EntryRec | null;
  /** The entry the kept range starts at, when the compaction's firstKeptEntryId is found before it on the path. */
  keptFrom: EntryRec | null;
  /** Problems met while building: message entries without a message (pi throws), a kept range that is not there. */
  problems: Diagnostic[];
}

/** The messages one entry gives, before any edit (pi 1.6.0's sessionEntryToContextMessages). */
export function entryMessages(rec: EntryRec, o: Obj): unknown[] {
  switch (rec.type) {
    case "message": {
      const m = o.message as Obj;
      // pi normalises a null or missing content (old or hand-edited files) instead of failing later.
      if (m.content === null || m.content === undefined) {
        if (m.role === "system") return [{ ...m, content: "" }];
        if (m.role === "user" || m.role === "assistant" || m.role === "toolResult") return [{ ...m, content: [] }];
      }
      return [m];
    }
    case "custom_message":
      return [
        {
          role: "custom",
          customType: o.customType,
          content: o.content ?? [],
          display: o.display,
          details: o.details,
          timestamp: entryTime(o.timestamp),
        },
      ];
    case "branch_summary":
      return o.summary ? [{ role: "branchSummary", summary: o.summary, fromId: o.fromId, timestamp: entryTime(o.timestamp) }] : [];
    case "compaction": {
      const summary = { role: "compactionSummary", summary: o.summary, tokensBefore: o.tokensBefore, timestamp: entryTime(o.timestamp) };
      return o.systemMessage ? [o.systemMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

/** Entries that add messages to a context when they are in it (pi's sessionEntryToContextMessages). */
export function givesMessages(rec: EntryRec): boolean {
  switch (rec.type) {
    case "message":
      return rec.hasMessage === true;
    case "custom_message":
    case "compaction":
      return true;
    case "branch_summary":
      return rec.summaryEmpty !== true;
    default:
      return false;
  }
}

/** A message with an edit's replacement content, as pi applies it; roles without editable content stay as they are. */
export function withReplacement(m: unknown, content: unknown): unknown {
  const o = m as Obj;
  if (typeof o.role !== "string" || !EDITABLE_ROLES.has(o.role)) return m;
  return { ...o, content: BLOCK_ONLY_ROLES.has(o.role) && typeof content === "string" ? [{ type: "text", text: content }] : content };
}

/**
 * pi's buildSessionContext (1.6.0's buildSessionProjection) for an already resolved path (root first). Same values
 * as pi for every path pi can build. Where pi throws, pisess builds on and reports a problem instead: a message
 * entry whose `message` is null or missing contributes nothing (`message-missing`); an edit without `replacement`
 * changes nothing (marked `piThrows` in `edits`).
 */
export function buildContext(session: Session, path: EntryRec[], read: (rec: EntryRec) => Record<string, unknown>): SessionContext {
  const slots = bodySlots(session);
  try {
    return buildWith(session, path, read, slots);
  } finally {
    // Only the path's entries were read; the slots hold nothing between builds.
    for (const rec of path) slots[rec.index] = undefined;
  }
}

/**
 * Per session, the entries read while building a context, by entry index: a Map keyed by a million entries cost
 * most of the build's own time. Emptied after each build (the entries of its path), so reused by the next.
 */
const bodySlotsBySession = new WeakMap<Session, (Obj | undefined)[]>();

function bodySlots(session: Session): (Obj | undefined)[] {
  let slots = bodySlotsBySession.get(session);
  if (slots === undefined) {
    slots = [];
    bodySlotsBySession.set(session, slots);
  }
  // Grown by push: `new Array(n)` of a large n makes a slow dictionary-backed array.
  while (slots.length < session.entries.length) slots.push(undefined);
  return slots;
}

/**
 * The thinking level, model and compaction in effect at the end of a path: the last entry of each kind (an assistant
 * message sets the model as a model_change does). Found from the end, so only those few entries are read whole,
 * not every message of a long path (the index knows each entry's type and message role).
 */
function pathState(
  path: readonly EntryRec[],
  body: (rec: EntryRec) => Obj,
): { thinkingLevel: unknown; model: { provider: unknown; modelId: unknown } | null; compaction: EntryRec | null } {
  let thinkingLevel: unknown = "off";
  let model: { provider: unknown; modelId: unknown } | null = null;
  let compaction: EntryRec | null = null;
  let needThinking = true;
  let needModel = true;
  for (let i = path.length - 1; i >= 0 && (needThinking || needModel || compaction === null); i--) {
    const rec = path[i] as EntryRec;
    if (rec.type === "thinking_level_change" && needThinking) {
      thinkingLevel = body(rec).thinkingLevel;
      needThinking = false;
    } else if (rec.type === "model_change" && needModel) {
      const o = body(rec);
      model = { provider: o.provider, modelId: o.modelId };
      needModel = false;
    } else if (rec.type === "message" && needModel && rec.hasMessage === true && rec.role === "assistant") {
      const m = body(rec).message as Obj;
      model = { provider: m.provider, modelId: m.model };
      needModel = false;
    } else if (rec.type === "compaction" && compaction === null) compaction = rec;
  }
  return { thinkingLevel, model, compaction };
}

/**
 * The context entries: the path, or the compaction in effect, its kept range (system messages left out: the
 * compaction's own systemMessage replaces them) and everything after it.
 */
function contextEntriesOf(
  session: Session,
  path: EntryRec[],
  compaction: EntryRec | null,
  broken: ReadonlySet<EntryRec>,
  body: (rec: EntryRec) => Obj,
  problems: Diagnostic[],
): { contextEntries: EntryRec[]; keptFrom: EntryRec | null } {
  if (!compaction) return { contextEntries: path, keptFrom: null };
  let keptFrom: EntryRec | null = null;
  const c = body(compaction);
  const cid = compaction.id;
  // pi finds the compaction by id alone (a duplicate id earlier on the path moves the cut, as in pi).
  const cIdx = path.findIndex((e) => e.id === cid);
  const firstKept = c.firstKeptEntryId;
  const contextEntries = [compaction];
  for (let i = 0; i < cIdx; i++) {
    const rec = path[i] as EntryRec;
    if (!keptFrom && rec.id === firstKept) keptFrom = rec;
    if (keptFrom && !(rec.type === "message" && !broken.has(rec) && rec.role === "system")) contextEntries.push(rec);
  }
  for (let i = cIdx + 1; i < path.length; i++) contextEntries.push(path[i] as EntryRec);
  if (!keptFrom && typeof firstKept === "string" && firstKept !== cid) {
    problems.push(firstKeptProblem(session.file, compaction, firstKept, session.byId.get(firstKept)));
  }
  return { contextEntries, keptFrom };
}

function buildWith(
  session: Session,
  path: EntryRec[],
  read: (rec: EntryRec) => Record<string, unknown>,
  bodies: (Obj | undefined)[],
): SessionContext {
  const problems: Diagnostic[] = [];
  const file = session.file;
  const body = (rec: EntryRec): Obj => {
    let o = bodies[rec.index];
    if (o === undefined) {
      o = read(rec);
      bodies[rec.index] = o;
    }
    return o;
  };
  // A message entry without a message (null or missing: the index's hasMessage) gives pi nothing but an error.
  const broken = new Set<EntryRec>();
  for (const rec of path) {
    if (rec.type !== "message" || rec.hasMessage === true) continue;
    const m = body(rec).message;
    if (m === null || m === undefined) {
      broken.add(rec);
      problems.push(messageMissing(file, rec, m));
    }
  }
  const { thinkingLevel, model, compaction } = pathState(path, body);
  const { contextEntries, keptFrom } = contextEntriesOf(session, path, compaction, broken, body, problems);

  // The latest edit per target among the context entries (pi keys them by the raw targetId).
  // Marks by entry index rather than a Set: contextEntries can be the whole of a million-entry path; stamped, as
  // diff --leaves --context builds a context per leaf.
  const { seen: inContext, stamp: inCtx } = contextMarks(session);
  for (const rec of contextEntries) inContext[rec.index] = inCtx;
  const latestEdit = new Map<unknown, EntryRec>();
  for (const rec of contextEntries) if (rec.type === "context_edit") latestEdit.set(body(rec).targetId, rec);

  const messages: unknown[] = [];
  const sources: EntryRec[] = [];
  const editedBy: (EntryRec | undefined)[] = [];
  const originals: (unknown | undefined)[] = [];
  const removed: SessionContext["removed"] = [];
  const throwingEdits = new Set<EntryRec>();
  contextEntries.forEach((rec, index) => {
    // An older compaction kept inside the newest one's range contributes nothing (pi 1.6; 0.81–0.86 emitted it).
    if (broken.has(rec) || (rec.type === "compaction" && index > 0)) return;
    const own = entryMessages(rec, body(rec));
    const edit = latestEdit.get(rec.id);
    if (!edit || own.length === 0) {
      for (const m of own) {
        messages.push(m);
        sources.push(rec);
        editedBy.push(undefined);
        originals.push(undefined);
      }
      return;
    }
    const e = body(edit);
    if (e.replacement === null) {
      removed.push({ source: rec, edit, messages: own, at: messages.length });
      return;
    }
    if (e.replacement === undefined && own.some((m) => EDITABLE_ROLES.has(String((m as Obj).role)))) throwingEdits.add(edit);
    for (const m of own) {
      const next = e.replacement === undefined ? m : withReplacement(m, (e.replacement as Obj).content);
      messages.push(next);
      sources.push(rec);
      editedBy.push(next === m ? undefined : edit);
      originals.push(next === m ? undefined : m);
    }
  });

  const edits: EditOnPath[] = [];
  for (const rec of path) {
    if (rec.type !== "context_edit") continue;
    const e = body(rec);
    const target = typeof e.targetId === "string" ? (session.byId.get(e.targetId) ?? null) : null;
    let status: EditStatus;
    if (inContext[rec.index] !== inCtx) status = "summarized";
    else if (latestEdit.get(e.targetId) !== rec) status = "superseded";
    else if (!target) status = "target-missing";
    else if (inContext[target.index] !== inCtx || (target.type === "compaction" && target !== contextEntries[0]))
      status = "target-outside-context";
    else status = "applied";
    const info: EditOnPath = { edit: rec, entry: e, target, status, removes: e.replacement === null };
    if (throwingEdits.has(rec)) info.piThrows = true;
    edits.push(info);
  }

  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const role = isObject(m) ? m.role : undefined;
    if (typeof role !== "string" || !KNOWN_ROLES.has(role)) {
      problems.push(unknownRole(file, sources[i] as EntryRec, role));
    }
  }

  // pi keeps whatever the entries held; the declared shape is pi's, the values are pi's too.
  return {
    thinkingLevel: thinkingLevel as string,
    model: model as { provider: string; modelId: string } | null,
    messages,
    sources,
    editedBy,
    originals,
    edits,
    removed,
    compaction,
    keptFrom,
    problems,
  };
}

/** Which tool results answer which tool calls, within the context's messages. */
export interface ToolPairing {
  /** Key `${messageIndex}:${blockIndex}` of a toolCall block → index of the answering toolResult message. */
  resultOf: Map<string, number>;
  /** Indexes of toolResult messages that answer a call (shown under it). */
  answered: Set<number>;
  /** Indexes of toolResult messages without an earlier matching call. */
  orphans: Set<number>;
  /** Keys of toolCall blocks that nothing answers. */
  unanswered: Set<string>;
}

/** Pairs each tool result with the latest not yet answered call of the same id earlier in the context. */
export function pairToolCalls(messages: readonly unknown[]): ToolPairing {
  const open = new Map<string, string[]>();
  const resultOf = new Map<string, number>();
  const answered = new Set<number>();
  const orphans = new Set<number>();
  const allCalls: string[] = [];
  messages.forEach((m, i) => {
    if (!isObject(m)) return;
    if (m.role === "assistant" && Array.isArray(m.content)) {
      m.content.forEach((b, j) => {
        if (!isObject(b) || b.type !== "toolCall") return;
        const key = `${i}:${j}`;
        allCalls.push(key);
        const id = String(b.id);
        const list = open.get(id) ?? [];
        list.push(key);
        open.set(id, list);
      });
    } else if (m.role === "toolResult") {
      const list = open.get(String(m.toolCallId));
      const key = list?.pop();
      if (key === undefined) orphans.add(i);
      else {
        resultOf.set(key, i);
        answered.add(i);
      }
    }
  });
  const unanswered = new Set(allCalls.filter((k) => !resultOf.has(k)));
  return { resultOf, answered, orphans, unanswered };
}

/** Diagnostics for tool results without a call and calls without a result, by source line. */
export function toolProblems(session: Session, ctx: SessionContext, pairing: ToolPairing): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const i of pairing.orphans) {
    const m = ctx.messages[i] as Obj;
    const rec = ctx.sources[i] as EntryRec;
    out.push(toolResultOrphan(session.file, rec, String(m.toolCallId), typeof m.toolName === "string" ? m.toolName : null));
  }
  for (const key of pairing.unanswered) {
    const [mi, bi] = key.split(":").map(Number) as [number, number];
    const block = ((ctx.messages[mi] as Obj).content as unknown[])[bi] as Obj;
    const rec = ctx.sources[mi] as EntryRec;
    out.push(toolCallUnanswered(session.file, rec, String(block.id), String(block.name)));
  }
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

export interface ContextSize {
  tokens: number;
  /** How: the last usable assistant usage plus an estimate of what follows it, or an estimate throughout. */
  method: "usage+estimate" | "estimate";
  /** Index of the assistant message whose usage was taken. */
  usageIndex: number | null;
}

/** An assistant message whose usage pi's estimate starts from (not aborted, not an error, usage recorded). */
export function hasUsableUsage(m: unknown): m is Record<string, unknown> & { usage: Record<string, unknown> } {
  return isObject(m) && m.role === "assistant" && m.stopReason !== "aborted" && m.stopReason !== "error" && isObject(m.usage);
}

/**
 * Approximate size of the context, as pi's footer does: the last assistant usage that is not from an aborted or
 * failed turn, plus characters/4 for the messages after it. A usage from before the compaction summary counted a
 * longer history, so only usages after the compaction count. `whole(i)`: message i whole, where `ctx.messages` holds
 * stand-ins (see ContextFacts in ops/context-facts.ts).
 */
export function contextSize(
  ctx: SessionContext,
  path: readonly EntryRec[],
  whole: (i: number) => unknown = (i) => ctx.messages[i],
): ContextSize {
  const { messages } = ctx;
  let floor = 0;
  if (ctx.compaction) {
    const cpos = path.indexOf(ctx.compaction);
    const pos = new Map(path.map((r, i) => [r, i]));
    floor = messages.length;
    for (let i = 1; i < messages.length; i++) {
      if ((pos.get(ctx.sources[i] as EntryRec) ?? -1) > cpos) {
        floor = i;
        break;
      }
    }
  }
  for (let i = messages.length - 1; i >= floor; i--) {
    // Only an assistant's usage counts: others are not read whole to find that out.
    const r = messages[i];
    if (isObject(r) && r.role !== "assistant") continue;
    const m = whole(i);
    if (!hasUsableUsage(m)) continue;
    const u = m.usage;
    const n = (k: string) => (typeof u[k] === "number" ? (u[k] as number) : 0);
    let tokens = n("totalTokens") || n("input") + n("output") + n("cacheRead") + n("cacheWrite");
    for (let j = i + 1; j < messages.length; j++) tokens += estimateTokens(whole(j));
    return { tokens, method: "usage+estimate", usageIndex: i };
  }
  let tokens = 0;
  for (let i = 0; i < messages.length; i++) tokens += estimateTokens(whole(i));
  return { tokens, method: "estimate", usageIndex: null };
}

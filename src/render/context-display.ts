/**
 * The display model of a context (what the text and Markdown renderers and the HTML export lay out): each message
 * as parts ready to print. It only shapes what the context report gives (reports/context.ts: pi's context, the
 * facts of ops/context-facts.ts, each message whole from its line): outputs cut, thinking dropped, arguments on
 * one line. pi's context semantics are ops/context.ts's.
 */
import { isObject, type Obj } from "../model/json.js";
import type { EntryRec } from "../model/detail.js";
import { toJson } from "../model/json-text.js";
import type { ContextSize, SessionContext } from "../ops/context.js";
import type { CompactionFacts, ContextFacts, EditFacts } from "../ops/context-facts.js";

/** A piece of a displayed message, ready to print: renderers only lay these out. */
export type Part =
  | { kind: "text"; text: string /** lines left out by --max-output */; cut: number }
  | { kind: "thinking"; text: string; redacted: boolean }
  | { kind: "image"; mimeType: string; bytes: number }
  | {
      kind: "call";
      id: string;
      name: string;
      args: string;
      /** null: nothing answers it; undefined: not looked up (a message as recorded before an edit, or removed). */
      result: DisplayMessage | null | undefined;
    }
  | { kind: "other"; type: string };

export interface DisplayMessage {
  /** Position in the context's messages, 0-based. */
  index: number;
  line: number;
  id: string | null;
  /** The message role, "?" when there is none. */
  role: string;
  time: number;
  /** assistant: provider/model. */
  model?: string;
  customType?: string;
  toolName?: string;
  isError?: boolean;
  /** toolResult without a call earlier in the context. */
  orphan?: boolean;
  /** The `context_edit` that replaced this message's content. */
  editedBy?: { line: number; id: string | null };
  /** With `showEdits`: the message as the file recorded it, before the edit. */
  original?: Part[];
  /** With `showEdits`: a message that a `replacement: null` edit took out (the model never saw it). */
  removedBy?: { line: number; id: string | null };
  /** Short facts shown beside the role: stop reason, exit code, "not sent to the model", … */
  notes: string[];
  parts: Part[];
}

export interface ContextDisplay {
  file: string;
  leaf: { id: string | null; line: number };
  model: string | null;
  thinkingLevel: string;
  messageCount: number;
  llmCount: number;
  compaction: CompactionFacts | null;
  size: ContextSize;
  /** The context_edits on the path: how many shaped this context, and how many messages they removed. */
  edits: EditFacts;
  /** Messages in context order; answered tool results sit inside their call parts instead. */
  items: DisplayMessage[];
}

/** What the display shows (`pisess context` as text or Markdown; the HTML export shows everything). */
export interface ContextDisplayOptions {
  /** Show thinking blocks. */
  thinking: boolean;
  /** Longest tool or command output, in lines; 0 = all. */
  maxOutput: number;
  /** Longest compact tool-call arguments, in characters (160). */
  maxArgs?: number;
  /** Also show what edited messages said in the file, and the messages that edits removed. */
  showEdits?: boolean;
}

/**
 * What a display is made from: the context report's `context` (ValuesContext or ShownContext), or the same made by
 * the HTML export from ops.
 */
export interface DisplaySource {
  /** pi's context; its messages may be stand-ins (HeldMessage), read whole through `whole`. */
  context: Omit<SessionContext, "messages"> & { messages: readonly unknown[] };
  facts: ContextFacts;
  /** Message i of `context.messages` whole; without it, `context.messages` are pi's values. */
  whole?: (i: number) => unknown;
}

function cutLines(text: string, max: number): { text: string; cut: number } {
  if (max <= 0) return { text, cut: 0 };
  const lines = text.split("\n");
  if (lines.length <= max) return { text, cut: 0 };
  return { text: lines.slice(0, max).join("\n"), cut: lines.length - max };
}

function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const s = data.replace(/\s+/g, "");
  const pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((s.length * 3) / 4) - pad);
}

/** Tool-call arguments on one line: `key=value` pairs, values as JSON, cut to `max` characters. */
export function compactArgs(args: unknown, max: number): string {
  let s: string;
  if (isObject(args))
    s = Object.entries(args)
      .map(([k, v]) => `${k}=${toJson(v) ?? "undefined"}`)
      .join(" ");
  else s = toJson(args) ?? "";
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function contentParts(content: unknown, maxLines: number): Part[] {
  if (typeof content === "string") return [{ kind: "text", ...cutLines(content, maxLines) }];
  if (!Array.isArray(content)) return content === undefined ? [] : [{ kind: "other", type: typeof content }];
  const parts: Part[] = [];
  for (const b of content) {
    if (!isObject(b)) parts.push({ kind: "other", type: b === null ? "null" : typeof b });
    else if (b.type === "text") parts.push({ kind: "text", ...cutLines(String(b.text ?? ""), maxLines) });
    else if (b.type === "image") parts.push({ kind: "image", mimeType: String(b.mimeType ?? "image/?"), bytes: base64Bytes(b.data) });
    else parts.push({ kind: "other", type: String(b.type) });
  }
  return parts;
}

/** A context display whose messages come one at a time, as they are written (a million of them, say). */
export type ContextDisplayStream = Omit<ContextDisplay, "items"> & { items: Iterable<DisplayMessage> };

/**
 * The display model of a context for the text and Markdown renderers: header facts, and each message broken into
 * parts, tool results placed under their calls, outputs cut, thinking dropped when asked.
 */
export function describeContext(file: string, leaf: EntryRec, source: DisplaySource, opts: ContextDisplayOptions): ContextDisplay {
  const d = describeContextStream(file, leaf, source, opts);
  return { ...d, items: [...d.items] };
}

/** describeContext with `items` made one by one as they are taken (once), not held together. */
export function describeContextStream(
  file: string,
  leaf: EntryRec,
  source: DisplaySource,
  opts: ContextDisplayOptions,
): ContextDisplayStream {
  const { context: ctx, facts } = source;
  const pairing = facts.pairing;
  const maxArgs = opts.maxArgs ?? 160;
  const editRef = (e: EntryRec) => ({ line: e.line, id: e.id ?? null });
  const whole = source.whole ?? ((i: number) => ctx.messages[i]);
  const one = (i: number): DisplayMessage => {
    const d = describeMessage(whole(i), ctx.sources[i] as EntryRec, i);
    const edit = ctx.editedBy[i];
    if (edit) {
      d.editedBy = editRef(edit);
      d.notes.push(`edited by line ${edit.line}`);
      if (opts.showEdits) d.original = describeMessage(ctx.originals[i], ctx.sources[i] as EntryRec, -1).parts;
    }
    return d;
  };
  /** `i`: the message's index in the context, or -1 for one the model never saw in this form (no call pairing). */
  const describeMessage = (m: unknown, rec: EntryRec, i: number): DisplayMessage => {
    const o: Obj = isObject(m) ? m : {};
    const role = typeof o.role === "string" ? o.role : "?";
    const d: DisplayMessage = { index: i, line: rec.line, id: rec.id ?? null, role, time: Number(o.timestamp), notes: [], parts: [] };
    if (typeof o.timestamp !== "number") d.time = NaN;
    switch (role) {
      case "assistant": {
        d.model = `${String(o.provider ?? "?")}/${String(o.model ?? "?")}`;
        if (typeof o.stopReason === "string" && o.stopReason !== "stop" && o.stopReason !== "toolUse") d.notes.push(o.stopReason);
        const blocks = Array.isArray(o.content) ? o.content : [];
        blocks.forEach((b, j) => {
          if (!isObject(b)) {
            d.parts.push({ kind: "other", type: b === null ? "null" : typeof b });
          } else if (b.type === "text") {
            if (b.text !== "") d.parts.push({ kind: "text", text: String(b.text ?? ""), cut: 0 });
          } else if (b.type === "thinking") {
            if (opts.thinking) d.parts.push({ kind: "thinking", text: String(b.thinking ?? ""), redacted: b.redacted === true });
          } else if (b.type === "toolCall") {
            const r = i < 0 ? undefined : (pairing.resultOf.get(`${i}:${j}`) ?? null);
            const result = r === undefined || r === null ? r : one(r);
            d.parts.push({
              kind: "call",
              id: String(b.id ?? ""),
              name: String(b.name ?? "?"),
              args: compactArgs(b.arguments, maxArgs),
              result,
            });
          } else d.parts.push({ kind: "other", type: String(b.type) });
        });
        if (typeof o.errorMessage === "string") d.parts.push({ kind: "text", text: `error: ${o.errorMessage}`, cut: 0 });
        break;
      }
      case "toolResult":
        d.toolName = String(o.toolName ?? "?");
        if (o.isError === true) d.isError = true;
        if (i >= 0 && pairing.orphans.has(i)) d.orphan = true;
        d.parts = contentParts(o.content, opts.maxOutput);
        break;
      case "bashExecution":
        describeBash(d, o, opts.maxOutput);
        break;
      case "custom":
        d.customType = String(o.customType ?? "?");
        if (o.display === false) d.notes.push("hidden in pi's UI");
        d.parts = contentParts(o.content, 0);
        break;
      case "compactionSummary":
      case "branchSummary":
        if (role === "compactionSummary") d.notes.push(`${formatCount(o.tokensBefore)} tokens before`);
        else d.notes.push(`from ${String(o.fromId)}`);
        d.parts.push({ kind: "text", text: String(o.summary ?? ""), cut: 0 });
        break;
      case "user":
        d.parts = contentParts(o.content, 0);
        break;
      case "system":
        describeSystem(d, o);
        break;
      default:
        d.notes.push(isObject(m) ? "unknown role, pi does not send it" : `not a message object (${m === null ? "null" : typeof m})`);
        d.parts.push({ kind: "text", text: toJson(m) ?? "", cut: 0 });
    }
    return d;
  };
  const removedItems = opts.showEdits ? ctx.removed : [];
  const items = (): Generator<DisplayMessage> => displayItems(ctx, removedItems, pairing.answered, one, describeMessage, editRef);
  const model = ctx.model ? `${String(ctx.model.provider)}/${String(ctx.model.modelId)}` : null;
  return {
    file,
    leaf: { id: leaf.id ?? null, line: leaf.line },
    model,
    thinkingLevel: String(ctx.thinkingLevel),
    messageCount: ctx.messages.length,
    llmCount: facts.llmCount,
    compaction: facts.compaction,
    size: facts.size,
    edits: facts.edits,
    items: items(),
  };
}

/** A bash execution's notes and its one part: the command and its output, cut to `maxOutput` lines. */
function describeBash(d: DisplayMessage, o: Obj, maxOutput: number): void {
  if (o.excludeFromContext) d.notes.push("not sent to the model (!!)");
  if (o.cancelled) d.notes.push("cancelled");
  else if (o.exitCode !== null && o.exitCode !== undefined && o.exitCode !== 0) d.notes.push(`exit ${String(o.exitCode)}`);
  const out = o.output ? cutLines(String(o.output), maxOutput) : { text: "", cut: 0 };
  d.parts.push({ kind: "text", text: `$ ${String(o.command ?? "")}${out.text ? `\n${out.text}` : ""}`, cut: out.cut });
  if (o.truncated && o.fullOutputPath) d.notes.push(`output truncated, full output: ${String(o.fullOutputPath)}`);
}

/** The first system message holds the prompt and tools; later ones patch sections (null removes one). */
function describeSystem(d: DisplayMessage, o: Obj): void {
  d.parts = contentParts(o.content, 0).filter((p) => p.kind !== "text" || p.text !== "");
  if (isObject(o.sections)) {
    for (const [name, text] of Object.entries(o.sections)) {
      d.parts.push({
        kind: "text",
        text: text === null ? `[section ${name} removed]` : `[section ${name}]\n${String(text)}`,
        cut: 0,
      });
    }
  }
  const names = (v: unknown) => (Array.isArray(v) ? v.map((t) => String(isObject(t) ? t.name : t)).join(", ") : "");
  if (names(o.toolsAdded)) d.notes.push(`tools added: ${names(o.toolsAdded)}`);
  if (names(o.toolsRemoved)) d.notes.push(`tools removed: ${names(o.toolsRemoved)}`);
}

/** The items in context order: each message not answered inside a call, with what an edit removed at its place. */
function* displayItems(
  ctx: DisplaySource["context"],
  removedItems: SessionContext["removed"],
  answered: ReadonlySet<number>,
  one: (i: number) => DisplayMessage,
  describeMessage: (m: unknown, rec: EntryRec, i: number) => DisplayMessage,
  editRef: (e: EntryRec) => { line: number; id: string | null },
): Generator<DisplayMessage> {
  let r = 0;
  function* removedUpTo(upTo: number): Generator<DisplayMessage> {
    for (; r < removedItems.length && (removedItems[r] as SessionContext["removed"][number]).at <= upTo; r++) {
      const gone = removedItems[r] as SessionContext["removed"][number];
      for (const m of gone.messages) {
        const d = describeMessage(m, gone.source, -1);
        d.index = gone.at;
        d.removedBy = editRef(gone.edit);
        d.notes.push(`removed by line ${gone.edit.line}: the model never saw it`);
        yield d;
      }
    }
  }
  for (let i = 0; i < ctx.messages.length; i++) {
    if (r < removedItems.length) yield* removedUpTo(i);
    if (!answered.has(i)) yield one(i);
  }
  yield* removedUpTo(Infinity);
}

function formatCount(n: unknown): string {
  return typeof n === "number" && Number.isFinite(n) ? String(n) : "?";
}

import { join } from "node:path";
import { cwdFolderName, findSessionsById, mostRecentSession, sessionsDir, type PiEnv } from "../io/discover.js";
import { diag } from "../model/codes.js";
import { readEntry, type Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import { buildContext, pairToolCalls, toolProblems, type SessionContext } from "../ops/context.js";
import { convertToLlmMapped, llmCount } from "../ops/llm.js";
import { pathTo } from "../ops/path.js";
import { sessionProblems } from "../ops/problems.js";
import { cycleProblem, treeProblems } from "../ops/tree.js";
import { messageLines } from "../model/store-text.js";
import { checkContextEdits } from "../check/edits.js";
import { toJson } from "../model/json-text.js";
import { contextFacts, type ContextFacts } from "../ops/context-facts.js";
import { sanitizeLine } from "../model/sanitize.js";
import { ReportError, type Report } from "./report.js";
import { entryRef, isEmptyAtDefault } from "./refs.js";

/** The session file to read when none is named: pi's own choice for the current directory, or one picked by id. */
export async function resolveSessionFile(opts: {
  session?: string | undefined;
  allProjects?: boolean | undefined;
  cwd: string;
  env: PiEnv;
}): Promise<string> {
  const root = await sessionsDir(opts.env);
  const folder = join(root, cwdFolderName(opts.cwd));
  if (opts.session !== undefined) {
    const where = opts.allProjects ? root : folder;
    const matches = await findSessionsById([where], opts.session);
    if (matches.length === 1) return (matches[0] as { path: string }).path;
    if (matches.length === 0)
      throw new ReportError(
        `no session with an id starting "${sanitizeLine(opts.session)}" in ${where}${opts.allProjects ? "" : " (--all-projects searches every project)"}`,
      );
    const list = matches
      .slice(0, 10)
      .map((m) => `${m.id} (${m.path})`)
      .join(", ");
    throw new ReportError(`session id prefix "${sanitizeLine(opts.session)}" is ambiguous: ${list}${matches.length > 10 ? ", …" : ""}`);
  }
  const found = await mostRecentSession(folder);
  if (!found) throw new ReportError(`no session for ${opts.cwd}: no valid session file in ${folder} (name a FILE, or use --session ID)`);
  return found;
}

/**
 * The form a context is written in, as the user asked for it (`context --json`/`--ndjson`, `--format text|markdown`).
 * The report takes the fast path that form allows: for "json" each message's text is sliced from its line where it
 * is JSON.stringify's text already, and for every form a message it writes or shows from its line is held as a
 * stand-in (HeldMessage) rather than parsed whole. The display of "text" and "markdown" (render/context-display.ts)
 * is made from the report's data: the context, its `facts` and `whole`.
 */
export type ContextOutput = "json" | "text" | "markdown";

export interface ContextOptions {
  /** Leaf: id, id prefix, @LINE, label:NAME or leaf (default "leaf"). */
  leaf?: string;
  /** Messages as sent to the LLM (after pi's convertToLlm) in `messages`/`sources`. */
  llm?: boolean;
  /** The output form the context is made for; without it the report gives pi's messages as values. */
  output?: ContextOutput;
}

/**
 * A message as contextReport holds it for an output form: pi's message, or a stand-in with only what the report
 * reads of it (role, provider and model, each content block's type and a tool call's id and name, a tool result's
 * toolCallId and toolName); not pi's value. Write it through `messageJson`, read it whole through `whole`.
 */
export type HeldMessage = { readonly [HELD]: true };
declare const HELD: unique symbol;

interface ContextBase {
  path: EntryRec[];
  /** The messages shown (pi's context, or the LLM's with `llm`) are `messages`; the entry each came from. */
  sources: readonly EntryRec[];
  /** editedBy[i]: the context_edit that replaced the content of messages[i] (the LLM message's source). */
  editedBy: readonly (EntryRec | undefined)[];
}

/** What a display of the context shows beside its messages (every form but "json"). */
interface ShownFacts {
  /** The context's facts: the LLM's count, what the compaction kept, the size, the edits, the tool-call pairing. */
  facts: ContextFacts;
  /** `context.messages[i]` (pi's context, also with `llm`) whole, where the report holds a stand-in. */
  whole: (i: number) => unknown;
}

/** The context as pi's values (no `output`). */
export interface ValuesContext extends ContextBase, ShownFacts {
  context: SessionContext;
  messages: readonly unknown[];
}

/** The context as held for an output form: its messages are not pi's values (HeldMessage). */
interface HeldContext extends ContextBase {
  context: Omit<SessionContext, "messages"> & { messages: readonly HeldMessage[] };
  messages: readonly HeldMessage[];
}

/** `output: "json"`: JSON.stringify's text of messages[i]. */
export interface JsonContext extends HeldContext {
  messageJson: (i: number) => string | undefined;
  /**
   * The same text as UTF-8 bytes that the JSON output writes as they are, where the report has them at hand (else
   * undefined: write messageJson's). A view valid until the next call of either.
   */
  messageBytes: (i: number) => Uint8Array | undefined;
}

/**
 * `output: "text"` or `"markdown"`: what the display model (render/context-display.ts, its items made as they are
 * taken, once) is made from.
 */
export interface ShownContext extends HeldContext, ShownFacts {}

export interface ContextData<C = ValuesContext> {
  file: string;
  /** null for a session without entries (header only): pi's empty context (no messages, thinking off, no model). */
  leaf: EntryRec | null;
  /** null when the path runs into a parent cycle (the diagnostics name it; exit 1). */
  context: C | null;
  /** Why the context at this leaf may not be the one pi shows for "the same" leaf, which pi addresses by id. */
  note: Diagnostic | null;
  /** Problems of the context itself (tool pairing, …), by line. */
  problems: Diagnostic[];
}

function leafNote(session: Session, leaf: EntryRec): Diagnostic | null {
  if (leaf.id === undefined) return diag("leaf-no-id", session.file, leaf.line, {});
  const winner = session.byId.get(leaf.id);
  if (winner && winner !== leaf)
    return diag("leaf-id-reused", session.file, leaf.line, { id: leaf.id, winnerLine: winner.line }, { entryId: leaf.id });
  return null;
}

/** `pisess context`: exactly what the model saw at a leaf (pi's session context). */
export function contextReport(session: Session, opts?: ContextOptions & { output?: undefined }): Report<ContextData>;
export function contextReport(session: Session, opts: ContextOptions & { output: "json" }): Report<ContextData<JsonContext>>;
export function contextReport(session: Session, opts: ContextOptions & { output: "text" | "markdown" }): Report<ContextData<ShownContext>>;
export function contextReport(
  session: Session,
  opts: ContextOptions = {},
): Report<ContextData<ValuesContext | JsonContext | ShownContext>> {
  const empty = isEmptyAtDefault(session, opts.leaf);
  const leaf = empty ? null : entryRef(session, opts.leaf ?? "leaf");
  const result = leaf === null ? { ok: true as const, path: [] } : pathTo(session, leaf);
  if (!result.ok) {
    return {
      data: { file: session.file, leaf, context: null, note: null, problems: [] },
      diagnostics: [cycleProblem(session.file, result.cycle)],
      exitCode: 1,
    };
  }
  const path = result.path;
  // Stand-ins only where nothing but JSON, or nothing but the display, is made, and never for a message a context
  // edit on the path targets (the edit rebuilds it from the one read).
  const edited = new Set<string>();
  for (const r of path) if (r.type === "context_edit" && typeof r.targetId === "string") edited.add(r.targetId);
  const json = opts.output === "json";
  const shown = opts.output === "text" || opts.output === "markdown";
  const lines = opts.llm ? null : messageLines(session, json, json || shown, edited);
  const ctx = buildContext(session, path, lines ? lines.read : (rec) => readEntry(session, rec));
  // The LLM's messages only where they are shown; the display counts them (facts.llmCount).
  const llm = opts.llm ? convertToLlmMapped(ctx.messages) : null;
  const pairing = pairToolCalls(ctx.messages);
  // The edits on this path as validate judges them (one producer per code), e.g. an edit pi would throw on; judged
  // on the path, so neither the tree (a million nodes on a long chain) nor the session's other edits are read.
  const editProblems = ctx.edits.length === 0 ? [] : checkContextEdits(session, undefined, { path, edits: ctx.edits });
  const problems = [...ctx.problems, ...toolProblems(session, ctx, pairing), ...editProblems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const messages = llm ? llm.messages : ctx.messages;
  const sources = llm ? llm.from.map((i) => ctx.sources[i] as EntryRec) : ctx.sources;
  const editedBy = llm ? llm.from.map((i) => ctx.editedBy[i]) : ctx.editedBy;
  // One object for every form; its type (ValuesContext, JsonContext, ShownContext) is the overload's.
  const context: ContextBase &
    Partial<ShownFacts> & {
      context: SessionContext;
      messages: readonly unknown[];
      messageJson?: (i: number) => string | undefined;
      messageBytes?: (i: number) => Uint8Array | undefined;
    } = { path, context: ctx, messages, sources, editedBy };
  if (json) {
    context.messageJson = (i) => lines?.json(messages[i], sources[i] as EntryRec) ?? toJson(messages[i]);
    context.messageBytes = (i) => lines?.bytes(messages[i], sources[i] as EntryRec);
  } else {
    const whole = lines ? (i: number) => lines.whole(ctx.messages[i], ctx.sources[i] as EntryRec) : (i: number) => ctx.messages[i];
    context.whole = whole;
    // Made when first read: the display reads them, a library caller asking for pi's values may not (on a realistic
    // 10 MB session they were 2.4-3.7 ms of a 23-37 ms report).
    let facts: ContextFacts | undefined;
    Object.defineProperty(context, "facts", {
      enumerable: true,
      configurable: true,
      get: () => (facts ??= contextFacts(ctx, path, llm ? llm.messages.length : llmCount(ctx.messages), pairing, whole)),
    });
  }
  return {
    data: {
      file: session.file,
      leaf,
      context: context as unknown as ValuesContext | JsonContext | ShownContext,
      note: leaf ? leafNote(session, leaf) : null,
      problems,
    },
    diagnostics: sessionProblems(session, { problems: treeProblems(session) }),
    exitCode: 0,
  };
}

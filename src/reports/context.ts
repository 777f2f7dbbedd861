import { join } from "node:path";
import { cwdFolderName, findSessionsById, mostRecentSession, sessionsDir, type PiEnv } from "../io/discover.js";
import { diag } from "../model/codes.js";
import { parseEntry, readEntry, type Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import {
  buildContext,
  describeContext,
  describeContextStream,
  pairToolCalls,
  toolProblems,
  type ContextDisplay,
  type ContextDisplayStream,
  type SessionContext,
} from "../ops/context.js";
import { convertToLlmMapped, llmCount } from "../ops/llm.js";
import { pathTo } from "../ops/path.js";
import { sessionProblems } from "../ops/problems.js";
import { buildTree, cycleProblem, treeProblems } from "../ops/tree.js";
import { messageStandIn, messageStandInFromBytes } from "../model/standin.js";
import { isStringifyFormBytes } from "../io/scan/index.js";
import { checkContextEdits } from "../check/edits.js";
import { NATIVE_CHECK_FROM, nativeFormSpan, stringifyFormMember, toJson } from "../render/json.js";
import { sanitizeLine } from "../render/sanitize.js";
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

export interface ContextOptions {
  /** Leaf: id, id prefix, @LINE, label:NAME or leaf (default "leaf"). */
  leaf?: string;
  /** Messages as sent to the LLM (after pi's convertToLlm) in `messages`/`sources`. */
  llm?: boolean;
  /**
   * Also build the display model for the text and Markdown renderers. `stream`: its items are made as they are
   * taken, once (`display.items` is then a one-shot iterable): a million-message context is not held twice.
   */
  display?: { thinking: boolean; maxOutput: number; showEdits?: boolean; stream?: boolean };
  /** Also give `messageJson`, for writing the messages as JSON. */
  json?: boolean;
  /**
   * With `json`, and without `llm` and `display`: the messages will only be written with `messageJson`, so a
   * message written from its line may be held as a stand-in with only what the report itself reads of it (the
   * CLI's JSON output; a million parsed messages were most of its memory). `messages` are then not pi's messages.
   */
  jsonOnly?: boolean;
  /**
   * With `display`, and without `llm` and `json`: the messages will only be shown through `display`, so a message
   * may be held as a stand-in, read again from its line when it is shown (the CLI's text and Markdown output).
   * `messages` are then not pi's messages.
   */
  displayOnly?: boolean;
}

export interface ContextData {
  file: string;
  /** null for a session without entries (header only): pi's empty context (no messages, thinking off, no model). */
  leaf: EntryRec | null;
  /** null when the path runs into a parent cycle (the diagnostics name it; exit 1). */
  context: {
    path: EntryRec[];
    context: SessionContext;
    /** The messages shown (pi's context, or the LLM's with `llm`), and the entry each came from. */
    messages: readonly unknown[];
    sources: readonly EntryRec[];
    /** editedBy[i]: the context_edit that replaced the content of messages[i] (the LLM message's source). */
    editedBy: readonly (EntryRec | undefined)[];
    /** An array of items, unless the options asked for `stream`. */
    display?: ContextDisplay | ContextDisplayStream;
    /** With the `json` option: JSON.stringify's text of messages[i]. */
    messageJson?: (i: number) => string | undefined;
  } | null;
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

/**
 * An entry reader for buildContext that also notes, for each message entry whose line is already in JSON.stringify's
 * form (current version: no migration, `spans`), where its message's text is in the line; `json` writes a message
 * read that way by slicing its line again instead of serializing the parsed object (a million of them on a long
 * path). Any other message, an edited or rebuilt one included (not the very object read), is serialized.
 *
 * `standIns` (a path without context edits, output through `json` or the display only): a message whose content is
 * not null is held as a stand-in with only what the report reads of it (model/standin.ts), read from the line's
 * bytes where it can be (no JSON.parse); `json` writes it from its line, `whole` reads it again for the display. A
 * million parsed messages were most of the memory, and parsing them most of the time.
 */
function messageLines(
  session: Session,
  spans: boolean,
  standIns: boolean,
): {
  read: (rec: EntryRec) => Record<string, unknown>;
  json: (m: unknown, rec: EntryRec) => string | undefined;
  whole: (m: unknown, rec: EntryRec) => unknown;
} | null {
  // JSON output of an older version's lines is serialized (they are migrated): no spans, and so no stand-ins.
  if (spans && (typeof session.version !== "number" || session.version < 3)) return null;
  if (!spans && !standIns) return null;
  const n = session.entries.length;
  const held: unknown[] = [];
  /** held[i] is a stand-in (1), one read from the line's bytes (2), or not (0). */
  const isStandIn = new Uint8Array(standIns ? n : 0);
  const holds = (m: unknown, rec: EntryRec): boolean => m !== undefined && m !== null && rec.index < held.length && held[rec.index] === m;
  // A current version's lines need no migration: a stand-in can be read from the bytes (no JSON.parse); for JSON,
  // only where the message's bytes are JSON.stringify's text of it (isStringifyFormBytes): they are written as
  // they are, and neither JSON.parse nor JSON.stringify runs.
  const fromBytes = standIns && session.version >= 3 && session.store.rawBytes !== undefined;
  // Where each message's JSON text is in its line: in its bytes for a stand-in read from them (2; `json` writes
  // them, `whole` parses only them, not the entry around them), else, with spans, in the line's text.
  const start = spans || fromBytes ? new Int32Array(n) : null;
  const end = spans || fromBytes ? new Int32Array(n) : null;
  const span = fromBytes ? new Int32Array(2) : undefined;
  return {
    read(rec) {
      if (fromBytes && span !== undefined && rec.type === "message" && rec.index < n) {
        const bytes = (session.store.rawBytes as (r: EntryRec) => Buffer)(rec);
        const standIn = messageStandInFromBytes(bytes, 0, bytes.length, span);
        if (standIn !== null && (!spans || isStringifyFormBytes(bytes, span[0] as number, span[1] as number))) {
          while (held.length <= rec.index) held.push(undefined);
          held[rec.index] = standIn;
          isStandIn[rec.index] = 2;
          if (start !== null && end !== null) {
            start[rec.index] = span[0] as number;
            end[rec.index] = span[1] as number;
          }
          return { message: standIn };
        }
      }
      const raw = session.store.rawLine(rec);
      const o = parseEntry(session, rec, raw);
      const m = o.message;
      if (rec.type === "message" && rec.index < n && m !== null && typeof m === "object") {
        let span: { start: number; end: number } | null = null;
        if (spans && start !== null && end !== null) {
          span = raw.length < NATIVE_CHECK_FROM ? stringifyFormMember(raw, "message") : nativeFormSpan(raw, m);
          if (span) {
            start[rec.index] = span.start;
            end[rec.index] = span.end;
          }
        }
        const mo = m as Record<string, unknown>;
        // With spans, only a message written from its line may be a stand-in.
        const standIn =
          standIns && (span !== null || !spans) && mo.content !== null && mo.content !== undefined ? messageStandIn(mo) : null;
        if (span || standIn) {
          // Filled by push up to the index: `new Array(n)` of a large n makes a slow dictionary-backed array.
          while (held.length <= rec.index) held.push(undefined);
          held[rec.index] = standIn ?? m;
          if (standIn) {
            isStandIn[rec.index] = 1;
            return { message: standIn };
          }
        }
      }
      return o;
    },
    json(m, rec) {
      if (!spans || start === null || end === null || !holds(m, rec)) return undefined;
      // A stand-in read from the bytes: its message's bytes, known to be in JSON.stringify's form.
      if (isStandIn[rec.index] === 2)
        return (session.store.rawBytes as (r: EntryRec) => Buffer)(rec).toString("utf8", start[rec.index], end[rec.index]);
      return session.store.rawLine(rec).slice(start[rec.index], end[rec.index]);
    },
    whole(m, rec) {
      if (!holds(m, rec) || isStandIn[rec.index] === 0) return m;
      if (start !== null && end !== null && isStandIn[rec.index] === 2) {
        const bytes = (session.store.rawBytes as (r: EntryRec) => Buffer)(rec);
        // Cut at ASCII braces: decoded alone, the message's bytes give the characters they give in the whole line.
        return JSON.parse(bytes.toString("utf8", start[rec.index], end[rec.index]));
      }
      return parseEntry(session, rec, session.store.rawLine(rec)).message;
    },
  };
}

/** `pisess context`: exactly what the model saw at a leaf (pi's session context). */
export function contextReport(session: Session, opts: ContextOptions = {}): Report<ContextData> {
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
  // Stand-ins only where no context edit can rebuild a message from the one read, and nothing but JSON, or nothing
  // but the display, is made.
  const edited = path.some((r) => r.type === "context_edit");
  const jsonOnly = opts.json === true && opts.jsonOnly === true && opts.display === undefined;
  const displayOnly = opts.display !== undefined && opts.displayOnly === true && opts.json !== true;
  const lines = opts.llm ? null : messageLines(session, opts.json === true, !edited && (jsonOnly || displayOnly));
  const ctx = buildContext(session, path, lines ? lines.read : (rec) => readEntry(session, rec));
  // The LLM's messages only where they are shown; the display counts them.
  const llm = opts.llm ? convertToLlmMapped(ctx.messages) : null;
  const pairing = pairToolCalls(ctx.messages);
  // The edits on this path as validate judges them (one producer per code), e.g. an edit pi would throw on.
  const editLines = new Set(ctx.edits.map((e) => e.edit.line));
  // The tree itself only for those; the session's problems need no nodes (a million of them on a long chain).
  const tree = editLines.size === 0 ? null : buildTree(session);
  const editProblems = tree === null ? [] : checkContextEdits(session, tree).filter((d) => d.line !== null && editLines.has(d.line));
  const problems = [...ctx.problems, ...toolProblems(session, ctx, pairing), ...editProblems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const messages = llm ? llm.messages : ctx.messages;
  const sources = llm ? llm.from.map((i) => ctx.sources[i] as EntryRec) : ctx.sources;
  const editedBy = llm ? llm.from.map((i) => ctx.editedBy[i]) : ctx.editedBy;
  const context: NonNullable<ContextData["context"]> = { path, context: ctx, messages, sources, editedBy };
  if (opts.json) context.messageJson = (i) => lines?.json(messages[i], sources[i] as EntryRec) ?? toJson(messages[i]);
  if (opts.display && leaf) {
    const whole = lines ? (i: number) => lines.whole(ctx.messages[i], ctx.sources[i] as EntryRec) : undefined;
    context.display = (opts.display.stream ? describeContextStream : describeContext)(
      session,
      leaf,
      path,
      ctx,
      llm ? llm.messages.length : llmCount(ctx.messages),
      {
        ...opts.display,
        ...(whole ? { whole } : {}),
      },
    );
  }
  return {
    data: { file: session.file, leaf, context, note: leaf ? leafNote(session, leaf) : null, problems },
    diagnostics: sessionProblems(session, tree ?? { problems: treeProblems(session) }),
    exitCode: 0,
  };
}

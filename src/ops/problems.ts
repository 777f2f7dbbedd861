import { diag } from "../model/codes.js";
import type { Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import type { SessionTree } from "./tree.js";

/**
 * A session's problems, the one rule every command counts by: what the loader found plus what the tree found
 * (dangling parents, cycles, …). Content checks are validate's.
 */
export function sessionProblems(session: Session, tree: Pick<SessionTree, "problems"> | null): Diagnostic[] {
  return tree ? [...session.diagnostics, ...tree.problems] : [...session.diagnostics];
}

/** The problems among the diagnostics by severity (errors and warnings; infos are not problems). */
export function problemTally(diagnostics: readonly Diagnostic[]): { error: number; warning: number } {
  const t = { error: 0, warning: 0 };
  for (const d of diagnostics) if (d.severity === "error" || d.severity === "warning") t[d.severity]++;
  return t;
}

/** How many of the diagnostics are problems (warnings and errors; infos are not). */
export function problemCount(diagnostics: readonly Diagnostic[]): number {
  let n = 0;
  for (const d of diagnostics) if (d.severity !== "info") n++;
  return n;
}

// The producers of the codes that both a context (ops/context.ts) and validate (src/check) report: each code's
// args are made in one place.

function idOf(rec: EntryRec): { entryId?: string } {
  return rec.id === undefined ? {} : { entryId: rec.id };
}

/** message-missing: a message entry whose `message` is not an object. */
export function messageMissing(file: string, rec: EntryRec, message: unknown): Diagnostic {
  const found = message === undefined ? "none" : message === null ? "null" : Array.isArray(message) ? "array" : typeof message;
  return diag("message-missing", file, rec.line, { found }, idOf(rec));
}

/** unknown-role: a message whose role pi's context code does not know. */
export function unknownRole(file: string, rec: EntryRec, role: unknown): Diagnostic {
  return diag("unknown-role", file, rec.line, { role: typeof role === "string" ? role : (JSON.stringify(role) ?? "none") }, idOf(rec));
}

/** A compaction's firstKeptEntryId that names no entry on its path: first-kept-off-path when `target` exists elsewhere, else first-kept-missing. */
export function firstKeptProblem(
  file: string,
  compaction: EntryRec,
  firstKeptEntryId: string | undefined,
  target: EntryRec | undefined,
): Diagnostic {
  return target !== undefined && firstKeptEntryId !== undefined
    ? diag("first-kept-off-path", file, compaction.line, { firstKeptEntryId, targetLine: target.line }, idOf(compaction))
    : diag("first-kept-missing", file, compaction.line, { firstKeptEntryId: firstKeptEntryId ?? null }, idOf(compaction));
}

/** tool-result-orphan: a tool result that answers no call on its path. */
export function toolResultOrphan(file: string, rec: EntryRec, toolCallId: string, toolName: string | null): Diagnostic {
  return diag("tool-result-orphan", file, rec.line, { toolCallId, toolName }, idOf(rec));
}

/** tool-call-unanswered: a tool call (of the assistant entry `rec`) that nothing below it answers. */
export function toolCallUnanswered(file: string, rec: EntryRec, toolCallId: string, name: string): Diagnostic {
  return diag("tool-call-unanswered", file, rec.line, { toolCallId, name }, idOf(rec));
}

import type { DiagArg, Diagnostic, Severity } from "./types.js";

type None = { [key: string]: never };
type TargetAt = { targetId: string; targetLine: number };
/** A secret found by `pisess secrets` (both its codes carry the same). */
type SecretArgs = {
  /** The rule that matched: a secretlint preset rule's short id (aws, github, privatekey, …) or a --pattern NAME. */
  rule: string;
  /** RFC 6901 pointer to the string inside the entry (or the header), "" for the value itself. */
  pointer: string;
  /** The kind of place: user-text, tool-result, bash-output, … (docs/commands/secrets.md). */
  place: string;
  /** For a tool result or bash output: what produced it ("read .env", "bash env"); null elsewhere. */
  from: string | null;
  /** The first 4 characters of the value; with `length`, all that is shown of it without --show-secret. */
  masked: string;
  length: number;
  /** Requests to the model whose context held it (assistant turns after it), and the first and last one's line. */
  requests: number;
  firstRequest: number | null;
  lastRequest: number | null;
  /** Lines of later compaction or branch summaries that repeat the same value. */
  repeatedIn: number[];
  /** The value itself: only with --show-secret, null otherwise. */
  value: string | null;
};

/**
 * The arguments each code carries (what its message template may name). A producer passing the wrong ones, or a
 * code without an entry here or in CODES, fails to compile.
 */
export type CodeArgs = {
  "malformed-json": { reason: string };
  "non-object-line": { kind: string };
  "truncated-line": { reason: string };
  "incomplete-last-line": { bytes: number };
  "blank-line": None;
  bom: None;
  crlf: { lines: number };
  "invalid-utf8": None;
  "lone-surrogate": { path: string; escape: string };
  "foreign-format": { format: string; version: number | string; supported: number };
  "not-a-session": { empty: boolean };
  "header-missing": { found: string };
  "header-not-first": { firstParsedLine: number | null };
  "header-invalid-id": None;
  "session-id-format": { id: string };
  "version-unknown": { version: string };
  "version-future": { version: number; supported: number };
  "legacy-branched-from": { path: string };
  "parent-session-missing": { path: string; resolved: string };
  "fork-cycle": { path: string };
  "pi-would-overwrite": { reason: "empty" };
  "pi-would-refuse": { reason: "no-header" | "invalid-id" };
  "pi-would-rewrite": { version: number };
  "extra-header": { headerLine: number | null };
  "missing-id": { found: string };
  "duplicate-id": { id: string; firstLine: number };
  "dangling-parent": { parentId: string | null; missing: boolean };
  "self-parent": { id: string };
  "parent-cycle": { ids: string[]; lines: number[] };
  "multiple-roots": { count: number; lines: number[] };
  "invalid-timestamp": { timestamp: string };
  "timestamp-regression": { timestamp: string; previousLine: number; previous: string };
  "first-kept-missing": { firstKeptEntryId: string | null };
  "first-kept-off-path": { firstKeptEntryId: string; targetLine: number };
  "first-kept-not-message": { firstKeptEntryId: string; targetLine: number; targetType: string };
  "tokens-before-mismatch": { tokensBefore: number; estimate: number };
  "older-compaction-kept": { olderLine: number; olderId: string | null };
  "first-kept-index-out-of-range": { index: number };
  "label-target-missing": { label: string; targetId: string };
  "branch-summary-from-missing": { fromId: string };
  "branch-summary-from-parent": { fromId: string; parentSession: string };
  "context-edit-target-missing": { targetId: string };
  "context-edit-off-path": TargetAt;
  "context-edit-forward": TargetAt;
  "context-edit-not-editable": TargetAt & { targetKind: string; replacement: string; effect: "removes" | "replaces" | "none" };
  "context-edit-of-edit": TargetAt;
  "context-edit-no-replacement": { targetId: string | null; throws: boolean };
  "context-edit-bad-replacement": { targetId: string | null; found: string; becomes: string };
  "message-missing": { found: string };
  "unknown-role": { role: string };
  "tool-result-orphan": { toolCallId: string; toolName: string | null };
  "tool-call-unanswered": { toolCallId: string; name: string };
  "usage-inconsistent": { field: string; found: number; expected: number };
  "unknown-entry-type": { type: string };
  "schema-violation": { path: string; keyword: string; message: string };
  "unknown-key": { key: string; path: string; schema: string };
  "leaf-no-id": None;
  "leaf-id-reused": { id: string; winnerLine: number };
  "secret-sent": SecretArgs;
  "secret-unsent": SecretArgs;
};

/**
 * Every diagnostic code pisess can emit, with its severity. Codes are stable: renaming one is a breaking change.
 * docs/diagnostics.md explains each; src/render/diagnostics.ts holds the one message template per code.
 */
export const CODES = {
  // Lines and encoding
  "malformed-json": "error",
  "non-object-line": "error",
  "truncated-line": "error",
  "incomplete-last-line": "info",
  "blank-line": "info",
  bom: "info",
  crlf: "info",
  "invalid-utf8": "error",
  "lone-surrogate": "warning",
  // Header
  "foreign-format": "error",
  "not-a-session": "error",
  "header-missing": "error",
  "header-not-first": "error",
  "header-invalid-id": "error",
  "session-id-format": "warning",
  "version-unknown": "error",
  "version-future": "error",
  "legacy-branched-from": "info",
  "parent-session-missing": "warning",
  "fork-cycle": "warning",
  "pi-would-overwrite": "error",
  "pi-would-refuse": "error",
  "pi-would-rewrite": "info",
  "extra-header": "error",
  // Tree
  "missing-id": "error",
  "duplicate-id": "error",
  "dangling-parent": "error",
  "self-parent": "error",
  "parent-cycle": "error",
  "multiple-roots": "info",
  "invalid-timestamp": "warning",
  "timestamp-regression": "warning",
  // References
  "first-kept-missing": "warning",
  "first-kept-off-path": "warning",
  "first-kept-index-out-of-range": "warning",
  "first-kept-not-message": "warning",
  "tokens-before-mismatch": "info",
  "older-compaction-kept": "info",
  "label-target-missing": "warning",
  "branch-summary-from-missing": "warning",
  "branch-summary-from-parent": "info",
  "context-edit-target-missing": "warning",
  "context-edit-off-path": "warning",
  "context-edit-forward": "info",
  "context-edit-not-editable": "warning",
  "context-edit-of-edit": "warning",
  "context-edit-no-replacement": "error",
  "context-edit-bad-replacement": "error",
  // Messages
  "message-missing": "error",
  "unknown-role": "warning",
  "tool-result-orphan": "warning",
  "tool-call-unanswered": "info",
  "usage-inconsistent": "warning",
  // Types and schema
  "unknown-entry-type": "warning",
  "schema-violation": "error",
  "unknown-key": "info",
  // Context (produced by `pisess context`, about the leaf asked for)
  "leaf-no-id": "info",
  "leaf-id-reused": "info",
  // Secrets (produced by `pisess secrets`): the rule is in the args; sent or not decides the code
  "secret-sent": "error",
  "secret-unsent": "warning",
} as const satisfies Record<keyof CodeArgs, Severity>;

export type Code = keyof typeof CODES;

// CODES and CodeArgs name the same codes, and every args type is one a Diagnostic can carry.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameCodes: Same<Code, keyof CodeArgs> = true;
const _argsFit: CodeArgs[Code] extends Record<string, DiagArg> ? true : false = true;
void _sameCodes;
void _argsFit;

export function isCode(code: string): code is Code {
  return Object.hasOwn(CODES, code);
}

type Extra = { column?: number; entryId?: string };
/** Codes without arguments may leave them out. */
type ArgsFor<C extends Code> = None extends CodeArgs[C] ? [args?: CodeArgs[C], extra?: Extra] : [args: CodeArgs[C], extra?: Extra];

/** Makes a diagnostic; the args must be the ones CodeArgs lists for the code. */
export function diag<C extends Code>(code: C, file: string, line: number | null, ...rest: ArgsFor<C>): Diagnostic {
  const [args, extra] = rest;
  const d: Diagnostic = { code, severity: CODES[code], file, line, args: (args ?? {}) as Record<string, DiagArg> };
  if (extra?.column !== undefined) d.column = extra.column;
  if (extra?.entryId !== undefined) d.entryId = extra.entryId;
  return d;
}

import type { DiagArg, Diagnostic, Severity } from "./types.js";

/**
 * Every diagnostic code pisess can emit, with its severity. Codes are stable: renaming one is a breaking change.
 * docs/diagnostics.md explains each; src/render/diagnostics.ts holds the one message template per code.
 */
export const CODES = {
  // Lines and encoding
  "malformed-json": "error",
  "non-object-line": "error",
  "truncated-line": "error",
  "blank-line": "info",
  bom: "info",
  crlf: "info",
  "invalid-utf8": "error",
  "lone-surrogate": "warning",
  // Header
  "foreign-format": "error",
  "header-missing": "error",
  "header-not-first": "error",
  "header-invalid-id": "error",
  "session-id-format": "warning",
  "version-unknown": "error",
  "version-future": "error",
  "legacy-branched-from": "info",
  "parent-session-missing": "warning",
  "pi-would-overwrite": "error",
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
  "label-target-missing": "warning",
  "branch-summary-from-missing": "warning",
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
} as const satisfies Record<string, Severity>;

export type Code = keyof typeof CODES;

export function isCode(code: string): code is Code {
  return Object.hasOwn(CODES, code);
}

export function diag(
  code: Code,
  file: string,
  line: number | null,
  args: Record<string, DiagArg> = {},
  extra: { column?: number; entryId?: string } = {},
): Diagnostic {
  const d: Diagnostic = { code, severity: CODES[code], file, line, args };
  if (extra.column !== undefined) d.column = extra.column;
  if (extra.entryId !== undefined) d.entryId = extra.entryId;
  return d;
}

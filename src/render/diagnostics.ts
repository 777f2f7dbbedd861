import type { Diagnostic } from "../model/types.js";
import { sanitizeLine } from "./sanitize.js";

/** The one place where a diagnostic becomes words. Templates name args as {name}. */
const MESSAGES: Record<string, string> = {
  "malformed-json": "line is not valid JSON ({reason}); pi drops it silently",
  "non-object-line": "line holds a JSON {kind}, not an object; pi cannot use it",
  "truncated-line": "last line is cut off mid-JSON ({reason}), as a crash or full disk leaves it",
  "blank-line": "blank line (pi skips it)",
  bom: "file starts with a byte order mark",
  crlf: "{lines} lines end in CRLF",
  "invalid-utf8": "line is not valid UTF-8; invalid bytes decode to U+FFFD",
  "lone-surrogate": "string holds a lone surrogate escape ({escape}) at {path}",
  "header-missing": "no session header: first parsed line is {found}; pi would overwrite this file on open",
  "header-not-first": "session header is not on the first parsed line",
  "header-invalid-id": "session header has no string id",
  "version-unknown": "unknown session version {version}",
  "version-future": "session version {version} is newer than supported ({supported}); read best-effort",
  "legacy-branched-from": "header uses legacy branchedFrom instead of parentSession",
  "parent-session-missing": "parent session file does not exist: {path}",
  "pi-would-overwrite": "pi would overwrite this file on open ({reason})",
  "pi-would-rewrite": "pi would rewrite this file on open (migration from v{version})",
  "extra-header": "second session header (first on line {headerLine}); pi ignores it",
  "missing-id": "entry has no id ({found})",
  "duplicate-id": "id {id} is used again (first on line {firstLine}); pi keeps the last",
  "dangling-parent": "parent {parentId} does not exist; pi treats the entry as a root",
  "self-parent": "entry {id} names itself as parent; pi hangs building its path",
  "parent-cycle": "parent cycle through lines {lines}; pi hangs building these paths",
  "multiple-roots": "{count} roots (lines {lines})",
  "invalid-timestamp": "invalid timestamp {timestamp}",
  "timestamp-regression": "timestamp {timestamp} is earlier than line {previousLine} ({previous})",
  "first-kept-missing": "compaction keeps from {firstKeptEntryId}, which does not exist",
  "first-kept-off-path": "compaction keeps from {firstKeptEntryId} (line {targetLine}), which is not on its path",
  "first-kept-index-out-of-range": "compaction firstKeptEntryIndex {index} is out of range; nothing is kept",
  "label-target-missing": "label {label} points to {targetId}, which does not exist",
  "branch-summary-from-missing": "branch summary fromId {fromId} does not exist",
  "message-missing": "message entry has no message; pi throws building its context",
  "unknown-role": "unknown message role {role}",
  "tool-result-orphan": "tool result {toolCallId} has no matching tool call on its path",
  "tool-call-unanswered": "tool call {toolCallId} ({name}) is never answered",
  "usage-inconsistent": "usage totals do not add up ({detail})",
  "unknown-entry-type": "unknown entry type {type}",
  "schema-violation": "{path} {message}",
  "unknown-key": "unknown key {key} at {path}",
};

function argText(v: unknown): string {
  if (Array.isArray(v)) return v.join(", ");
  if (v === null || v === undefined) return "none";
  // Args carry session content (ids, labels): never let it reach a terminal raw.
  return sanitizeLine(String(v));
}

/** The human message for a diagnostic, from its code and args. */
export function formatMessage(d: Diagnostic): string {
  const template = MESSAGES[d.code] ?? d.code;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => argText(d.args[name]));
}

export function hasTemplate(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(MESSAGES, code);
}

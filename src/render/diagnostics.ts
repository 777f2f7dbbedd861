import { type Code, type CodeArgs, isCode } from "../model/codes.js";
import type { Diagnostic } from "../model/types.js";
import { sanitizeLine } from "./sanitize.js";

/** What both secret codes say first: the rule, the masked value (or the value, with --show-secret), the place. */
function secretWords(a: CodeArgs["secret-sent"]): string {
  const value = a.value === null ? "{rule} secret {masked}… ({length} chars)" : "{rule} secret {value}";
  return value + (a.from === null ? " in {place} at {pointer}" : " in {place} ({from}) at {pointer}");
}

/** A template names args as {name}; a function picks between wordings where the args call for it. */
type Template<C extends Code> = string | ((args: CodeArgs[C]) => string);

/** The one place where a diagnostic becomes words: one template per code. */
const MESSAGES = {
  "malformed-json": "line is not valid JSON ({reason}); pi drops it silently",
  "non-object-line": "line holds a JSON {kind}, not an object; pi cannot use it",
  "truncated-line": "last line is cut off mid-JSON ({reason}), as a crash or full disk leaves it",
  "incomplete-last-line": "last line has no newline yet ({bytes} bytes): a write still in progress, left out of this reading",
  "blank-line": "blank line (pi skips it)",
  bom: "file starts with a byte order mark",
  crlf: "{lines} lines end in CRLF",
  "invalid-utf8": "line is not valid UTF-8; invalid bytes decode to U+FFFD",
  "lone-surrogate": "string at {path} holds a lone surrogate ({escape}); it cannot be encoded as UTF-8: pisess writes U+FFFD in its place",
  "foreign-format": (a) =>
    a.format === "agent-core"
      ? "this is a pi agent-core session file (its own JSONL format, version {version}), not a pi session file; pisess reads pi session files, versions 1–{supported}"
      : "this is not a pi session file ({format}, version {version}); pisess reads pi session files, versions 1–{supported}",
  "not-a-session": (a) => (a.empty ? "not a pi session file: it is empty" : "not a pi session file: no session header and no entry in it"),
  "header-missing": (a) =>
    a.found === "empty" ? "no session header: the file has no JSON line" : "no session header: the first parsed line is {found}",
  "header-not-first": "session header is not on the first parsed line (that is line {firstParsedLine}); pi does not look for it here",
  "header-invalid-id": "session header has no string id",
  "session-id-format":
    "session id {id} is not one pi 1.6 accepts for a new or forked session (letters, digits, '.', '_' and '-', starting and ending with a letter or digit)",
  "version-unknown": "unknown session version {version}",
  "version-future": "pi session file of version {version}, newer than pisess supports (pi session versions 1–{supported})",
  "legacy-branched-from": "header uses legacy branchedFrom instead of parentSession",
  "parent-session-missing": "parent session file does not exist: {path}",
  "fork-cycle": "the chain of fork parents from {path} loops back to this file: nothing in it counts as copied",
  "pi-would-overwrite": "pi would overwrite this file on open: it is empty (pi writes a fresh session header into it)",
  "pi-would-refuse": (a) =>
    a.reason === "invalid-id"
      ? "pi 1.6 refuses to open this file (not a valid pi session: the header has no string id); it leaves the file unchanged"
      : "pi 1.6 refuses to open this file (not a valid pi session: no session header on its first parsed line); it leaves the file unchanged",
  "pi-would-rewrite": "pi would rewrite this file on open (migration from v{version} to v3)",
  "extra-header": "second session header (first on line {headerLine}); pi ignores it",
  "missing-id": "entry has no id ({found}); nothing can name it as parent",
  "duplicate-id": "id {id} is used again (first on line {firstLine}); pi keeps the last",
  "dangling-parent": (a) =>
    a.missing === true
      ? "entry has no usable parentId; pi treats it as a root"
      : "parent {parentId} does not exist; pi treats the entry as a root",
  "self-parent": "entry {id} names itself as parent; pi hangs building its path",
  "parent-cycle": "parent cycle through lines {lines}; pi hangs building these paths",
  "multiple-roots": "{count} roots (lines {lines})",
  "invalid-timestamp": "invalid timestamp {timestamp}",
  "timestamp-regression": "timestamp {timestamp} is earlier than line {previousLine} ({previous})",
  "first-kept-missing": "compaction keeps from {firstKeptEntryId}, which does not exist; the context keeps nothing before it",
  "first-kept-off-path":
    "compaction keeps from {firstKeptEntryId} (line {targetLine}), which is not on its path; the context keeps nothing before it",
  "first-kept-index-out-of-range": "compaction firstKeptEntryIndex {index} names no earlier entry; nothing is kept",
  "first-kept-not-message":
    "compaction keeps from {firstKeptEntryId} (line {targetLine}), a {targetType} entry, not a message; pi always cuts at a message",
  "tokens-before-mismatch":
    "compaction tokensBefore {tokensBefore} is more than twice or less than half pisess's estimate of the context before it (~{estimate})",
  "older-compaction-kept":
    "compaction keeps the older compaction on line {olderLine} in its range; pi leaves that summary out of the context",
  "label-target-missing": "label {label} points to {targetId}, which does not exist",
  "branch-summary-from-missing": "branch summary fromId {fromId} does not exist",
  "branch-summary-from-parent":
    "branch summary fromId {fromId} is not in this file; it may be in the parent session {parentSession} (pi's /fork copies summaries as they are)",
  "context-edit-target-missing": "context edit targets {targetId}, which does not exist; it changes nothing",
  "context-edit-off-path":
    "context edit targets {targetId} (line {targetLine}), which is neither above nor below it in the tree; it changes nothing",
  "context-edit-forward":
    "context edit targets {targetId} (line {targetLine}), below it in the tree; pi applies it once that entry is in the context, though pi's own writer never makes such an edit",
  "context-edit-not-editable": (a) =>
    a.effect === "removes"
      ? "context edit targets a {targetKind} entry (line {targetLine}), which pi's writer does not accept as a target; pi still leaves its messages out of the context"
      : a.effect === "replaces"
        ? "context edit targets a {targetKind} entry (line {targetLine}), which pi's writer does not accept as a target; pi still replaces its content"
        : "context edit targets a {targetKind} entry (line {targetLine}), which pi's writer does not accept as a target; it changes nothing",
  "context-edit-of-edit":
    "context edit targets another context edit (line {targetLine}); pi does not undo or change edits, so it changes nothing",
  "context-edit-no-replacement": (a) =>
    a.throws === true
      ? "context edit has no replacement; pi throws (TypeError) building every context that applies it to {targetId}"
      : "context edit has no replacement (null or an object with content expected); it changes nothing here, but pi throws wherever such an edit meets a user, assistant, tool result or custom message",
  "context-edit-bad-replacement":
    "context edit replacement is {found}, not null or an object with string or array content; where pi applies it, the target's content becomes {becomes}",
  "message-missing": "message entry has no message object ({found}); pi throws building its context",
  "unknown-role": "unknown message role {role}; pi leaves it out of the LLM context",
  "tool-result-orphan": "tool result for {toolCallId} ({toolName}) has no matching tool call on its path",
  "tool-call-unanswered": "tool call {toolCallId} ({name}) is never answered",
  "usage-inconsistent": "usage {field} is {found}, but its parts add up to {expected}",
  "unknown-entry-type": "unknown entry type {type}",
  "schema-violation": "{path} {message}",
  "unknown-key": "unknown key {key} at {path} (not in {schema})",
  "leaf-no-id": "the leaf has no id; pi cannot address it (asked for it, pi builds the context of the last entry); showing its own path",
  "leaf-id-reused": "id {id} is used again on line {winnerLine}; pi, asked for this id, builds the context of line {winnerLine}",
  "secret-sent": (a) =>
    secretWords(a) +
    (a.requests === 1
      ? "; sent to the model in 1 request (line {firstRequest})"
      : "; sent to the model in {requests} requests (first line {firstRequest}, last line {lastRequest})") +
    (a.repeatedIn.length > 0 ? "; repeated by the summary on line {repeatedIn}" : ""),
  "secret-unsent": (a) =>
    `${secretWords(a)}; in no request to the model${a.repeatedIn.length > 0 ? "; repeated by the summary on line {repeatedIn}" : ""}`,
} as const satisfies { [C in Code]: Template<C> };

/** The {names} in a template: a string, or the strings a template function returns. */
type Placeholders<T> = T extends (a: never) => infer R ? Names<R> : Names<T>;
type Names<S> = S extends `${string}{${infer N}}${infer R}` ? N | Names<R> : never;
/** Per code, the names its string template uses that its args do not have: none anywhere, or this fails to compile. */
type UnknownNames = { [C in Code]: Exclude<Placeholders<(typeof MESSAGES)[C]>, keyof CodeArgs[C]> }[Code];
const _namesKnown: [UnknownNames] extends [never] ? true : UnknownNames = true;
void _namesKnown;

/** A short title per code: SARIF rule descriptions and docs. */
const TITLES: Record<Code, string> = {
  "malformed-json": "Line is not valid JSON",
  "non-object-line": "Line is valid JSON but not an object",
  "truncated-line": "Last line is cut off",
  "incomplete-last-line": "Last line still being written",
  "blank-line": "Blank line",
  bom: "Byte order mark",
  crlf: "CRLF line endings",
  "invalid-utf8": "Invalid UTF-8",
  "lone-surrogate": "Lone UTF-16 surrogate in a string",
  "foreign-format": "Not a pi session file (another program's format)",
  "not-a-session": "Not a pi session file (no header, no entry)",
  "header-missing": "No session header",
  "header-not-first": "Session header not on the first parsed line",
  "header-invalid-id": "Session header without a string id",
  "session-id-format": "Session id pi 1.6 would not accept",
  "version-unknown": "Unknown session version",
  "version-future": "Session version newer than supported",
  "legacy-branched-from": "Legacy branchedFrom header key",
  "parent-session-missing": "Parent session file missing",
  "fork-cycle": "Fork parents loop back to the file",
  "pi-would-overwrite": "pi would overwrite this empty file on open",
  "pi-would-refuse": "pi 1.6 refuses to open this file",
  "pi-would-rewrite": "pi would rewrite this file on open",
  "extra-header": "Second session header",
  "missing-id": "Entry without id",
  "duplicate-id": "Duplicate entry id",
  "dangling-parent": "Parent id names no entry",
  "self-parent": "Entry is its own parent",
  "parent-cycle": "Parent cycle",
  "multiple-roots": "More than one root",
  "invalid-timestamp": "Invalid timestamp",
  "timestamp-regression": "Timestamp earlier than the entry above",
  "first-kept-missing": "Compaction firstKeptEntryId does not exist",
  "first-kept-off-path": "Compaction firstKeptEntryId not on its path",
  "first-kept-index-out-of-range": "v1 compaction firstKeptEntryIndex out of range",
  "first-kept-not-message": "Compaction firstKeptEntryId names an entry that is not a message",
  "tokens-before-mismatch": "Compaction tokensBefore far from the estimate",
  "older-compaction-kept": "Older compaction inside a compaction's kept range",
  "label-target-missing": "Label target does not exist",
  "branch-summary-from-missing": "Branch summary fromId does not exist",
  "branch-summary-from-parent": "Branch summary fromId in the parent session",
  "context-edit-target-missing": "Context edit target does not exist",
  "context-edit-off-path": "Context edit target neither above nor below the edit",
  "context-edit-forward": "Context edit precedes its target",
  "context-edit-not-editable": "Context edit target is not an editable entry",
  "context-edit-of-edit": "Context edit targets another context edit",
  "context-edit-no-replacement": "Context edit without replacement",
  "context-edit-bad-replacement": "Context edit replacement is not null or an object with content",
  "message-missing": "Message entry without message",
  "unknown-role": "Unknown message role",
  "tool-result-orphan": "Tool result without a tool call on its path",
  "tool-call-unanswered": "Tool call never answered",
  "usage-inconsistent": "Usage totals do not add up",
  "unknown-entry-type": "Unknown entry type",
  "schema-violation": "Schema violation",
  "unknown-key": "Key not in the schema",
  "leaf-no-id": "Leaf without an id",
  "leaf-id-reused": "Leaf id used again by a later entry",
  "secret-sent": "Secret sent to the model (an API key, token, private key or password in a request's context)",
  "secret-unsent": "Secret in the session file, in no request to the model",
};

function argText(v: unknown): string {
  if (Array.isArray(v)) return v.map((x) => sanitizeLine(String(x))).join(", ");
  if (v === null || v === undefined) return "none";
  // Args carry session content (ids, labels): never let it reach a terminal raw.
  return sanitizeLine(String(v));
}

/** The human message for a diagnostic, from its code and args. */
export function formatMessage(d: Diagnostic): string {
  // diag() gave these args the code's type.
  const t = (isCode(d.code) ? MESSAGES[d.code] : undefined) as string | ((a: unknown) => string) | undefined;
  const template = t === undefined ? d.code : typeof t === "string" ? t : t(d.args);
  return template.replace(/\{(\w+)\}/g, (_, name: string) => argText(d.args[name]));
}

/** The short title of a code (the code itself when it is not one). */
export function codeTitle(code: string): string {
  return isCode(code) ? TITLES[code] : code;
}

/** A diagnostic as one stderr line, `FILE:LINE: SEVERITY CODE: message` (the line left out when there is none). */
export function diagnosticLine(d: Diagnostic): string {
  return `${sanitizeLine(d.file)}${d.line === null ? "" : `:${d.line}`}: ${d.severity} ${d.code}: ${formatMessage(d)}\n`;
}

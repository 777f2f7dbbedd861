/**
 * Message roles pi builds context from (pi 1.6.0's AgentMessage union). `system` since pi 0.86; `hookMessage` is
 * the v2 name of `custom` and is migrated away on load.
 */
export const KNOWN_ROLES: ReadonlySet<string> = new Set([
  "system",
  "user",
  "assistant",
  "toolResult",
  "bashExecution",
  "custom",
  "branchSummary",
  "compactionSummary",
]);

/** Roles whose content a `context_edit` replaces (other roles keep their message as it is). */
export const EDITABLE_ROLES: ReadonlySet<string> = new Set(["user", "assistant", "toolResult", "custom"]);

/** Roles whose string replacement content pi wraps into one text block. */
export const BLOCK_ONLY_ROLES: ReadonlySet<string> = new Set(["assistant", "toolResult"]);

import { isObject, type Obj } from "../model/json.js";

/**
 * One string of an entry (a value or an object key) as the secrets scan sees it: where it sits, as the pointer of
 * its container and its own key (the whole pointer is made only for the strings a rule matched).
 */
export interface StringAt {
  container: string;
  key: string | null;
  text: string;
}

/** RFC 6901: "~" → "~0", "/" → "~1". */
function escapeToken(token: string): string {
  return token.indexOf("~") < 0 && token.indexOf("/") < 0 ? token : token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The JSON pointer of a string found by `entryStrings`. */
export function pointerOf(s: Pick<StringAt, "container" | "key">): string {
  return s.key === null ? s.container : `${s.container}/${escapeToken(s.key)}`;
}

/**
 * Every string of a parsed JSON value, decoded (JSON.parse resolved the escapes): values, and object keys (a key is
 * reported at its member's pointer). Iterative: a deeply nested tool argument does not overflow the stack.
 */
export function entryStrings(value: unknown, into: (s: StringAt) => void): void {
  if (typeof value === "string") {
    into({ container: "", key: null, text: value });
    return;
  }
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [unknown, string];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === "string") into({ container: at, key: String(i), text: x });
        else if (x !== null && typeof x === "object") stack.push([x, `${at}/${i}`]);
      }
    } else if (isObject(v)) {
      for (const k of Object.keys(v)) {
        const x = v[k];
        into({ container: at, key: k, text: k });
        if (typeof x === "string") into({ container: at, key: k, text: x });
        else if (x !== null && typeof x === "object") stack.push([x, `${at}/${escapeToken(k)}`]);
      }
    }
  }
}

/** The kinds of place a secret is found in (docs/commands/secrets.md lists them). */
export type PlaceKind =
  | "header"
  | "user-text"
  | "assistant-text"
  | "thinking"
  | "tool-call"
  | "tool-result"
  | "bash-command"
  | "bash-output"
  | "system-prompt"
  | "custom-message"
  | "custom-data"
  | "compaction-summary"
  | "branch-summary"
  | "context-edit"
  | "label"
  | "session-name"
  | "unparsed-line"
  | "field";

const ROLE_PLACE: Record<string, PlaceKind> = {
  user: "user-text",
  assistant: "assistant-text",
  toolResult: "tool-result",
  system: "system-prompt",
  custom: "custom-message",
  branchSummary: "branch-summary",
  compactionSummary: "compaction-summary",
};

/** The content block a pointer under /message/content/N names, when the entry holds one. */
function blockAt(entry: Obj, pointer: string): Obj | undefined {
  const m = /^\/message\/content\/(\d+)(?:\/|$)/.exec(pointer);
  const content = isObject(entry.message) ? entry.message.content : undefined;
  if (!m || !Array.isArray(content)) return undefined;
  const block: unknown = content[Number(m[1])];
  return isObject(block) ? block : undefined;
}

/** What kind of place a pointer names inside an entry of the given type. */
export function placeOf(entry: Obj, pointer: string): PlaceKind {
  const under = (p: string) => pointer === p || pointer.startsWith(`${p}/`);
  switch (entry.type) {
    case "message": {
      if (!under("/message")) return "field";
      const m = entry.message as Obj;
      if (m.role === "bashExecution")
        return under("/message/command") ? "bash-command" : under("/message/output") ? "bash-output" : "field";
      if (under("/message/details") || !under("/message/content")) return "field";
      const block = blockAt(entry, pointer);
      if (block?.type === "thinking") return "thinking";
      if (block?.type === "toolCall") return "tool-call";
      return ROLE_PLACE[String(m.role)] ?? "field";
    }
    case "custom_message":
      return under("/content") ? "custom-message" : under("/details") ? "custom-data" : "field";
    case "custom":
      return under("/data") ? "custom-data" : "field";
    case "compaction":
      return under("/summary") ? "compaction-summary" : under("/systemMessage") ? "system-prompt" : "field";
    case "branch_summary":
      return under("/summary") ? "branch-summary" : "field";
    case "context_edit":
      return under("/replacement") ? "context-edit" : "field";
    case "label":
      return under("/label") ? "label" : "field";
    case "session_info":
      return under("/name") ? "session-name" : "field";
    default:
      return "field";
  }
}

/**
 * Whether a string at this pointer is one pi hands the model when the entry is in a request's context: a message's
 * role, content and tool call arguments, a bash execution's command and output, a custom message's content, a
 * summary, an applied edit's replacement. Not: ids, timestamps, usage, a tool result's or custom message's `details`
 * (kept for the UI; pi's convertToLlm does not send them), custom entries' data, labels, session names, the header.
 */
export function reachesModel(entry: Obj, pointer: string): boolean {
  const under = (p: string) => pointer === p || pointer.startsWith(`${p}/`);
  switch (entry.type) {
    case "message":
      // A `!!` bash command (excludeFromContext) stays out of every request: convertToLlm drops it.
      if (isObject(entry.message) && entry.message.excludeFromContext === true) return false;
      return (
        under("/message") &&
        !under("/message/details") &&
        !/^\/message\/(?:timestamp|usage|api|provider|model|stopReason)(?:\/|$)/.test(pointer)
      );
    case "custom_message":
      return under("/content");
    case "compaction":
      return under("/summary") || under("/systemMessage");
    case "branch_summary":
      return under("/summary");
    case "context_edit":
      return under("/replacement/content");
    default:
      return false;
  }
}

/** A tool call's key argument, as a person names the call: `read .env`, `bash env`, `grep TOKEN` (whole: the caller masks, then shortens). */
export function toolCallWords(name: string, args: unknown): string {
  const a = isObject(args) ? args : {};
  const key = ["path", "file_path", "command", "pattern", "url", "query"].find((k) => typeof a[k] === "string");
  const first = key ?? Object.keys(a).find((k) => typeof a[k] === "string");
  const arg = first === undefined ? "" : String(a[first]).replace(/\s+/g, " ");
  return arg === "" ? name : `${name} ${arg}`;
}

import { isObject, type Obj } from "../model/json.js";

/** Where a string sits in a value: the pointer of its container and its own key (null for the value itself). */
export interface StringAt {
  container: string;
  key: string | null;
  text: string;
}

/** RFC 6901: "~" → "~0", "/" → "~1". */
function escapeToken(token: string): string {
  return token.indexOf("~") < 0 && token.indexOf("/") < 0 ? token : token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The JSON pointer of a string found by `stringAt`. */
export function pointerOf(s: Pick<StringAt, "container" | "key">): string {
  return s.key === null ? s.container : `${s.container}/${escapeToken(s.key)}`;
}

/**
 * Every string of a parsed JSON value, decoded (JSON.parse resolved the escapes): values, and object keys (a key is
 * reported at its member's pointer), each with its ordinal in the walk; `into` gets those of `minChars` or more.
 * Nothing is built per string (the scan walks every string of a 1 GB file): `stringAt` finds the place of an
 * ordinal again, for the few that a rule matched. Iterative: a deeply nested tool argument does not overflow.
 */
export function entryStrings(value: unknown, minChars: number, into: (ordinal: number, text: string) => void): void {
  // walkStrings's order without its pointers: a stack of the containers alone (no pair, no parent link per
  // container), as this runs on every entry of the file. The planted-session tests find each hit's place with
  // stringAt (walkStrings): an order that differed would give them the wrong pointers.
  let n = 0;
  if (typeof value === "string") {
    if (value.length >= minChars) into(n, value);
    return;
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === "string") {
          if (x.length >= minChars) into(n, x);
          n++;
        } else if (x !== null && typeof x === "object") stack.push(x);
      }
    } else if (isObject(v)) {
      for (const k of Object.keys(v)) {
        if (k.length >= minChars) into(n, k);
        n++;
        const x = v[k];
        if (typeof x === "string") {
          if (x.length >= minChars) into(n, x);
          n++;
        } else if (x !== null && typeof x === "object") stack.push(x);
      }
    }
  }
}

/** The place of the string `ordinal` of entryStrings's walk of `value`, or null when there is none. */
export function stringAt(value: unknown, ordinal: number): StringAt | null {
  let found: StringAt | null = null;
  walkStrings(value, (n, text, container, key) => {
    if (n !== ordinal) return false;
    found = { container: container(), key, text };
    return true;
  });
  return found;
}

/**
 * The one walk order both use: depth first from the last member (an explicit stack), a key before its value.
 * `visit` gets the container's pointer as a function (made only when asked) and returns true to stop.
 */
function walkStrings(value: unknown, visit: (ordinal: number, text: string, container: () => string, key: string | null) => boolean): void {
  let n = 0;
  if (typeof value === "string") {
    visit(n, value, () => "", null);
    return;
  }
  // A container's pointer is its parent's and its key: kept as that pair, joined only for a string asked for.
  type At = { parent: At | null; key: string };
  const pointer = (at: At | null): string => {
    const keys: string[] = [];
    for (let a = at; a !== null; a = a.parent) keys.push(escapeToken(a.key));
    let s = "";
    for (let i = keys.length - 1; i >= 0; i--) s += `/${keys[i]}`;
    return s;
  };
  const stack: [unknown, At | null][] = [[value, null]];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [unknown, At | null];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === "string") {
          if (visit(n++, x, () => pointer(at), String(i))) return;
        } else if (x !== null && typeof x === "object") stack.push([x, { parent: at, key: String(i) }]);
      }
    } else if (isObject(v)) {
      for (const k of Object.keys(v)) {
        const x = v[k];
        if (visit(n++, k, () => pointer(at), k)) return;
        if (typeof x === "string") {
          if (visit(n++, x, () => pointer(at), k)) return;
        } else if (x !== null && typeof x === "object") stack.push([x, { parent: at, key: k }]);
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

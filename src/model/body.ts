import { isObject } from "./json.js";
import type { MessageBody, ToolCallFacts } from "./types.js";
import { toJson } from "./json-text.js";

/**
 * A message's body facts (MessageBody) from its parsed value: the definition the tables detail's byte reader
 * (skeleton.ts, slotBody) must equal.
 */

const NO_CALLS: readonly ToolCallFacts[] = Object.freeze([]);

/** The facts of a message that is not an object (or not there): nothing to count. */
export const NO_BODY: MessageBody = Object.freeze({ stopReason: null, textLength: 0, result: null, toolCalls: NO_CALLS });

/** Characters of text in a message content: a string, or the text blocks. */
function textLength(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content) if (isObject(b) && b.type === "text" && typeof b.text === "string") n += b.text.length;
  return n;
}

/** UTF-8 bytes of the text of a tool result's content: a string, or every block's string `text` (whatever its type). */
function textBytes(content: unknown): number {
  if (typeof content === "string") return Buffer.byteLength(content, "utf8");
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content) if (isObject(b) && typeof b.text === "string") n += Buffer.byteLength(b.text, "utf8");
  return n;
}

function toolCalls(content: unknown): readonly ToolCallFacts[] {
  if (!Array.isArray(content)) return NO_CALLS;
  let out: ToolCallFacts[] | undefined;
  for (const b of content) {
    if (!isObject(b) || b.type !== "toolCall") continue;
    out ??= [];
    out.push({
      id: typeof b.id === "string" ? b.id : null,
      name: typeof b.name === "string" ? b.name : null,
      arguments: b.arguments === undefined ? null : (toJson(b.arguments) ?? null),
    });
  }
  return out ?? NO_CALLS;
}

/** The body facts of `message` (an entry's `message` value, as parsed). */
export function messageBody(message: unknown): MessageBody {
  // An array is an object to the rows' readers too, but has none of the keys.
  if (typeof message !== "object" || message === null || Array.isArray(message)) return NO_BODY;
  const m = message as Record<string, unknown>;
  const content = m.content;
  return {
    stopReason: typeof m.stopReason === "string" ? m.stopReason : null,
    textLength: textLength(content),
    result:
      m.role === "toolResult" && typeof m.toolCallId === "string"
        ? { callId: m.toolCallId, isError: typeof m.isError === "boolean" ? m.isError : null, bytes: textBytes(content) }
        : null,
    toolCalls: toolCalls(content),
  };
}

import { isObject, type Obj } from "./json.js";
import type { EntryRec, Usage } from "./types.js";

/** Longest text kept per entry in the index; the whole entry is read back from disk when needed. */
const TEXT_KEEP = 240;

/**
 * Copies a short prefix into a fresh string: V8 may keep a sliced string's parent (a whole tool output) alive, and
 * the index must not pin message bodies in memory.
 */
export function keep(s: string): string {
  if (s.length <= TEXT_KEEP) {
    // Nothing was sliced off, so nothing is pinned; the round trip below only matters for lone surrogates, which
    // it turns into U+FFFD.
    if (s.length <= 12 || isWellFormed(s)) return s;
    return Buffer.from(s, "utf8").toString("utf8");
  }
  return Buffer.from(s.slice(0, TEXT_KEEP), "utf8").toString("utf8");
}

/** String.prototype.isWellFormed (Node 20+), typed locally: the project's lib setting predates it. */
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/**
 * The text pi's /tree shows and searches for a content value: a string as is, or the text blocks joined, cut at
 * TEXT_KEEP characters (pi cuts at 200).
 */
export function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let out = "";
  for (const block of content) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") {
      out += block.text;
      if (out.length >= TEXT_KEEP) break;
    }
  }
  return out;
}

/** Whether any text block (or a string content) holds more than white space, as pi's tree filter asks. */
function hasTextContent(content: unknown): boolean {
  if (typeof content === "string") return content.trim().length > 0;
  if (!Array.isArray(content)) return false;
  return content.some((b) => isObject(b) && b.type === "text" && typeof b.text === "string" && b.text.trim().length > 0);
}

function usageOf(u: unknown): Usage | undefined {
  if (!isObject(u)) return undefined;
  const cost = isObject(u.cost) ? num(u.cost.total) : 0;
  return {
    input: num(u.input),
    output: num(u.output),
    cacheRead: num(u.cacheRead),
    cacheWrite: num(u.cacheWrite),
    cacheWrite1h: num(u.cacheWrite1h),
    reasoning: num(u.reasoning),
    totalTokens: num(u.totalTokens),
    cost,
  };
}

function fillMessage(rec: EntryRec, m: unknown): void {
  if (!isObject(m)) {
    rec.hasMessage = false;
    return;
  }
  rec.hasMessage = true;
  const role = str(m.role);
  if (role !== undefined) rec.role = role;
  let text: string | undefined;
  switch (role) {
    case "assistant": {
      text = contentText(m.content);
      rec.hasText = hasTextContent(m.content);
      const names: string[] = [];
      const ids: string[] = [];
      if (Array.isArray(m.content)) {
        for (const block of m.content) {
          if (isObject(block) && block.type === "toolCall") {
            names.push(typeof block.name === "string" ? block.name : "?");
            if (typeof block.id === "string") ids.push(block.id);
          }
        }
      }
      if (names.length > 0) rec.toolNames = names;
      if (ids.length > 0) rec.toolCallIds = ids;
      const provider = str(m.provider);
      if (provider !== undefined) rec.provider = provider;
      const model = str(m.model);
      if (model !== undefined) rec.model = model;
      const stop = str(m.stopReason);
      if (stop !== undefined) rec.stopReason = stop;
      const err = str(m.errorMessage);
      if (err !== undefined) rec.errorMessage = keep(err);
      const usage = usageOf(m.usage);
      if (usage) rec.usage = usage;
      break;
    }
    case "toolResult": {
      text = contentText(m.content);
      const id = str(m.toolCallId);
      if (id !== undefined) rec.toolCallId = id;
      const name = str(m.toolName);
      if (name !== undefined) rec.toolName = name;
      if (m.isError === true) rec.isError = true;
      // Nested model work done by the tool (pi 1.6): pi counts it in the session's spend.
      const usage = usageOf(m.usage);
      if (usage) rec.usage = usage;
      break;
    }
    case "bashExecution":
      text = str(m.command);
      break;
    case "custom":
    case "hookMessage": {
      text = contentText(m.content);
      const ct = str(m.customType);
      if (ct !== undefined) rec.customType = ct;
      break;
    }
    default:
      text = contentText(m.content);
  }
  if (text !== undefined) rec.text = keep(text);
}

/** Fills the type-specific fields of the index record from the parsed entry. */
export function extractFields(rec: EntryRec, o: Obj): void {
  switch (rec.type) {
    case "message":
      fillMessage(rec, o.message);
      break;
    case "compaction": {
      rec.tokensBefore = o.tokensBefore;
      const fk = str(o.firstKeptEntryId);
      if (fk !== undefined) rec.firstKeptEntryId = fk;
      const summary = str(o.summary);
      if (summary !== undefined) rec.text = keep(summary);
      const usage = usageOf(o.usage);
      if (usage) rec.usage = usage;
      break;
    }
    case "branch_summary": {
      const from = str(o.fromId);
      if (from !== undefined) rec.fromId = from;
      // pi tests `entry.summary` for truthiness.
      rec.summaryEmpty = !o.summary;
      const summary = str(o.summary);
      if (summary !== undefined) rec.text = keep(summary);
      const usage = usageOf(o.usage);
      if (usage) rec.usage = usage;
      break;
    }
    case "usage": {
      const kind = str(o.kind);
      if (kind !== undefined) rec.usageKind = keep(kind);
      const provider = str(o.provider);
      if (provider !== undefined) rec.provider = provider;
      const model = str(o.model);
      if (model !== undefined) rec.model = model;
      const usage = usageOf(o.usage);
      if (usage) rec.usage = usage;
      break;
    }
    case "label": {
      const target = str(o.targetId);
      if (target !== undefined) rec.targetId = target;
      const label = str(o.label);
      if (label !== undefined) rec.labelText = keep(label);
      break;
    }
    case "context_edit": {
      const target = str(o.targetId);
      if (target !== undefined) rec.targetId = target;
      rec.editRemoves = o.replacement === null;
      const text = isObject(o.replacement) ? contentText(o.replacement.content) : undefined;
      if (text !== undefined) rec.text = keep(text);
      break;
    }
    case "session_info": {
      const name = str(o.name);
      if (name !== undefined) rec.name = keep(name);
      break;
    }
    case "model_change": {
      const provider = str(o.provider);
      if (provider !== undefined) rec.provider = provider;
      const model = str(o.modelId);
      if (model !== undefined) rec.model = model;
      break;
    }
    case "thinking_level_change": {
      const level = str(o.thinkingLevel);
      if (level !== undefined) rec.thinkingLevel = level;
      break;
    }
    case "custom":
    case "custom_message": {
      const ct = str(o.customType);
      if (ct !== undefined) rec.customType = ct;
      if (rec.type === "custom_message") {
        const text = contentText(o.content);
        if (text !== undefined) rec.text = keep(text);
      }
      break;
    }
    default:
      break;
  }
}

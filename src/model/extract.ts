import { type FieldRule, type FieldTables, FULL_TABLES } from "./fields.js";
import { isObject, type Obj } from "./json.js";
import type { EntryFields, Usage } from "./types.js";

/** Longest text kept per entry in the index; the whole entry is read back from disk when needed. */
export const TEXT_KEEP = 240;

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

/** A usage number as the index keeps it: a finite number, else 0. */
export function num(v: unknown): number {
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
export function hasTextContent(content: unknown): boolean {
  if (typeof content === "string") return content.trim().length > 0;
  if (!Array.isArray(content)) return false;
  return content.some((b) => isObject(b) && b.type === "text" && typeof b.text === "string" && b.text.trim().length > 0);
}

/**
 * The members of a usage object the index reads, in Usage's order; and where its cost is (usage.cost.total). The
 * spend detail's scanner reads the same (skeleton.ts).
 */
export const USAGE_MEMBERS = ["input", "output", "cacheRead", "cacheWrite", "cacheWrite1h", "reasoning", "totalTokens"] as const;
export const USAGE_COST = { key: "cost", total: "total" } as const;

export function usageOf(u: unknown): Usage | undefined {
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

/** The names ("?" for a non-string name) or the string ids of a content value's toolCall blocks. */
export function toolCalls(content: unknown, what: "toolNames" | "toolCallIds"): string[] {
  const list: string[] = [];
  if (Array.isArray(content)) {
    for (const block of content) {
      if (!isObject(block) || block.type !== "toolCall") continue;
      if (what === "toolNames") list.push(typeof block.name === "string" ? block.name : "?");
      else if (typeof block.id === "string") list.push(block.id);
    }
  }
  return list;
}

/** Sets one field from a key's value, as its rule says. */
function readInto(rec: EntryFields, r: FieldRule, v: unknown, t: FieldTables): void {
  // The rule's type ties `field` to what its reader yields.
  const out = rec as unknown as Record<string, unknown>;
  switch (r.read) {
    case "string":
      if (typeof v === "string") out[r.field] = v;
      break;
    case "kept":
      if (typeof v === "string") out[r.field] = keep(v);
      break;
    case "value":
      out[r.field] = v;
      break;
    case "falsy":
      out[r.field] = !v;
      break;
    case "null":
      out[r.field] = v === null;
      break;
    case "true":
      if (v === true) out[r.field] = true;
      break;
    case "text": {
      const t = contentText(v);
      if (t !== undefined) out[r.field] = keep(t);
      break;
    }
    case "hasText":
      out[r.field] = hasTextContent(v);
      break;
    case "toolNames":
    case "toolCallIds": {
      const list = toolCalls(v, r.read);
      if (list.length > 0) out[r.field] = list;
      break;
    }
    case "replacementText": {
      const t = isObject(v) ? contentText(v.content) : undefined;
      if (t !== undefined) out[r.field] = keep(t);
      break;
    }
    case "usage": {
      const u = usageOf(v);
      if (u) out[r.field] = u;
      break;
    }
    case "message":
      // pi passes on any message that is there and not null (an object or not); the fields come from an object.
      out[r.field] = v !== undefined && v !== null;
      if (isObject(v)) {
        readAll(rec, t.common, v, t);
        readAll(rec, (rec.role === undefined ? undefined : t.message.get(rec.role)) ?? t.otherRole, v, t);
      }
      break;
  }
}

function readAll(rec: EntryFields, rules: readonly FieldRule[], o: Obj, t: FieldTables): void {
  for (const r of rules) readInto(rec, r, o[r.key], t);
}

/** Fills the type-specific fields of the index record from the parsed entry (fields.ts says which; `t`: whose rules). */
export function extractFields(rec: EntryFields, o: Obj, t: FieldTables = FULL_TABLES): void {
  const rules = t.entry.get(rec.type);
  if (rules !== undefined) readAll(rec, rules, o, t);
}

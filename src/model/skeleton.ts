/**
 * The skeleton, spend or full record of an entry, read from its line's bytes by the skeleton scanner (src/io/scan)
 * without building the entry object. Which keys are read and which fields they fill comes from the one field table
 * (fields.ts): this file only turns its rows (the skeleton's, the spend detail's, or every row for the full detail)
 * into scanner slots. A usage object's numbers are read by a second scan of its bytes; a content value's blocks
 * (previews, tool calls) by a scan of each block, and of a long text only its first TEXT_KEEP characters are decoded.
 *
 * The tables detail reads a message's body facts too (EntryFields.body: body.ts), from its content's blocks scanned one
 * by one; a message it is unsure of (a block that is not an object, a block key written with escapes) gets none.
 *
 * `skeletonRec` returns null whenever it is unsure: the line is not valid JSON (the ordinary path then words the
 * error), the value is not an object, a key that matters is written with escapes, the type is not a plain string
 * or is "session", the id is not a non-empty string.
 */
import {
  elementStartsWith,
  itemsOf,
  type Names,
  names,
  nextItem,
  scanElement,
  scanLine,
  scanSlot,
  type SkeletonKeys,
  skeletonKeys,
  slotBlank,
  slotElements,
  slotFalsy,
  slotIs,
  slotNamed,
  slotNumber,
  slotStartsWith,
  slotStr,
  slotString,
  slotStringPrefix,
  slotStringSize,
  slotValue,
} from "../io/scan/index.js";
import { NO_BODY } from "./body.js";
import { contentText, hasTextContent, keep, num, TEXT_KEEP, toolCalls, USAGE_COST, USAGE_MEMBERS, usageOf } from "./extract.js";
import { isObject } from "./json.js";
import {
  BASE_KEYS,
  BLOCK_KEYS,
  BODY_KEYS,
  ENTRY_FIELDS,
  type FieldRule,
  inDetail,
  MESSAGE_COMMON,
  MESSAGE_FIELDS,
  MESSAGE_KEY,
  OTHER_ROLE_FIELDS,
  type ScanDetail,
} from "./fields.js";
import { NewRec } from "./rec.js";
import { KNOWN_ENTRY_TYPES } from "./session.js";
import type { EntryFields, MessageBody, ToolCallFacts, Usage } from "./types.js";
import { entryTime } from "./time.js";

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const N = 0x6e;
const T = 0x74;
const F = 0x66;

/** A row compiled: the slot its key's value is in, and the strings it returns as shared constants. */
interface SlotRule {
  slot: number;
  rule: FieldRule;
  shared: Names | null;
  /** The string this row read last: kept again, not decoded again, when the next line holds the same (models, names). */
  last: string | undefined;
}

/** Entry types and roles returned as shared constants instead of fresh strings. */
const TYPE_NAMES = names([...KNOWN_ENTRY_TYPES, "session"]);
const SHARED: Partial<Record<keyof EntryFields, Names>> = {
  role: names(["user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage"]),
};
const compile = (slot: number, rule: FieldRule): SlotRule => ({ slot, rule, shared: SHARED[rule.field] ?? null, last: undefined });

/** What a scanning load reads, compiled: the scanner's key list, and per entry type and message role the rows. */
interface Plan {
  keys: SkeletonKeys;
  byType: Map<string, SlotRule[]>;
  /** Every message's rows (the role), then its role's. */
  common: SlotRule[];
  byRole: Map<string, SlotRule[]>;
  otherRole: SlotRule[];
  /** The tables detail: the slots of `message` and of its BODY_KEYS (else null). */
  body: BodySlots | null;
}

/** The slots the body facts are read from: the message's, and those of its BODY_KEYS. */
interface BodySlots {
  message: number;
  content: number;
  stopReason: number;
  toolCallId: number;
  isError: number;
}

// The base keys take the first slots, in the same places in every plan.
const S_TYPE = 0;
const S_ID = 1;
const S_PARENT = 2;
const S_TS = 3;

function plan(detail: ScanDetail): Plan {
  const top: string[] = [...BASE_KEYS];
  const slotOf = (key: string): number => {
    let i = top.indexOf(key);
    if (i < 0) i = top.push(key) - 1;
    return i;
  };
  slotOf(MESSAGE_KEY);
  const byType = new Map<string, SlotRule[]>();
  for (const [type, rules] of ENTRY_FIELDS) {
    const list: SlotRule[] = [];
    for (const rule of rules) if (inDetail(rule, detail)) list.push(compile(slotOf(rule.key), rule));
    if (list.length > 0) byType.set(type, list);
  }
  const pick = (rules: readonly FieldRule[]): FieldRule[] => rules.filter((r) => inDetail(r, detail));
  const common = pick(MESSAGE_COMMON);
  const roles = [...MESSAGE_FIELDS].map(([role, rules]) => [role, pick(rules)] as const);
  const other = pick(OTHER_ROLE_FIELDS);
  const bodyKeys = detail === "tables" ? BODY_KEYS : [];
  const nestedKeys = [...new Set([...common, ...roles.flatMap(([, r]) => r), ...other].map((r) => r.key).concat(bodyKeys))];
  const keys = skeletonKeys(top, MESSAGE_KEY, nestedKeys);
  const nested = (rules: readonly FieldRule[]): SlotRule[] => rules.map((rule) => compile(top.length + nestedKeys.indexOf(rule.key), rule));
  const byRole = new Map<string, SlotRule[]>();
  for (const [role, rules] of roles) byRole.set(role, nested(rules));
  if (
    top.indexOf("type") !== S_TYPE ||
    top.indexOf("id") !== S_ID ||
    top.indexOf("parentId") !== S_PARENT ||
    top.indexOf("timestamp") !== S_TS
  )
    throw new Error("skeleton: base keys out of place");
  const inMessage = (k: (typeof BODY_KEYS)[number]): number => top.length + nestedKeys.indexOf(k);
  const body: BodySlots | null =
    detail === "tables"
      ? {
          message: top.indexOf(MESSAGE_KEY),
          content: inMessage("content"),
          stopReason: inMessage("stopReason"),
          toolCallId: inMessage("toolCallId"),
          isError: inMessage("isError"),
        }
      : null;
  return { keys, byType, common: nested(common), byRole, otherRole: nested(other), body };
}

const PLANS: Record<ScanDetail, Plan> = {
  skeleton: plan("skeleton"),
  spend: plan("spend"),
  tables: plan("tables"),
  preview: plan("preview"),
  full: plan("full"),
};
/** The compiled key list of the skeleton detail (exported for the scanner's tests). */
export const SKELETON_KEYS = PLANS.skeleton.keys;
/** A usage object's members, scanned in their own slots past those of every plan's line keys. */
const USAGE_KEYS = skeletonKeys(
  [...USAGE_MEMBERS, USAGE_COST.key],
  USAGE_COST.key,
  [USAGE_COST.total],
  Object.values(PLANS).reduce((n, p) => Math.max(n, p.keys.slots), -Infinity),
);
const member = (k: (typeof USAGE_MEMBERS)[number]): number => USAGE_KEYS.first + USAGE_MEMBERS.indexOf(k);
const [U_INPUT, U_OUTPUT, U_CACHE_READ, U_CACHE_WRITE, U_CACHE_WRITE_1H, U_REASONING, U_TOTAL_TOKENS] = USAGE_MEMBERS.map(
  member,
) as number[];
const U_COST_TOTAL = USAGE_KEYS.firstNested;

/** The usage object in `slot` (known to be an object), read as extract.ts's usageOf reads it from the parsed line. */
function slotUsage(slot: number): Usage | undefined {
  // A member written with escapes: the object is parsed alone (it is short).
  if (scanSlot(USAGE_KEYS, slot) !== 1) return usageOf(slotValue(slot));
  return {
    input: num(slotNumber(U_INPUT as number)),
    output: num(slotNumber(U_OUTPUT as number)),
    cacheRead: num(slotNumber(U_CACHE_READ as number)),
    cacheWrite: num(slotNumber(U_CACHE_WRITE as number)),
    cacheWrite1h: num(slotNumber(U_CACHE_WRITE_1H as number)),
    reasoning: num(slotNumber(U_REASONING as number)),
    totalTokens: num(slotNumber(U_TOTAL_TOKENS as number)),
    // Filled only when `cost` is an object (the scanner's nested slots), as usageOf asks.
    cost: num(slotNumber(U_COST_TOTAL)),
  };
}

/** A content block's keys, scanned per block past the usage object's slots; a replacement's content past them. */
const PREVIEW_BLOCK = skeletonKeys(["type", "text", "name", "id"], "type", [], USAGE_KEYS.slots);
const [P_TYPE, P_TEXT, P_NAME, P_ID] = [0, 1, 2, 3].map((i) => PREVIEW_BLOCK.first + i) as [number, number, number, number];
const BLOCK_TYPES = names(["text", "toolCall"]);
const REPLACEMENT_KEYS = skeletonKeys(["content"], "content", [], PREVIEW_BLOCK.slots);
const R_CONTENT = REPLACEMENT_KEYS.first;

/** What the content readers make of one content value: extract.ts's contentText (before keep), hasTextContent, toolCalls. */
interface ContentFacts {
  text: string | undefined;
  hasText: boolean;
  toolNames: string[];
  toolCallIds: string[];
}
const NONE: string[] = [];
const facts: ContentFacts = { text: undefined, hasText: false, toolNames: NONE, toolCallIds: NONE };
/** The record and slot `facts` were read for: the readers of one content value share one reading. */
let factsRec = -1;
let factsSlot = -1;
let recSerial = 0;

function setFacts(text: string | undefined, hasText: boolean, toolNames: string[], toolCallIds: string[]): ContentFacts {
  facts.text = text;
  facts.hasText = hasText;
  facts.toolNames = toolNames;
  facts.toolCallIds = toolCallIds;
  return facts;
}

/** The content facts of the parsed value (blocks whose keys are written with escapes). */
function parsedFacts(v: unknown): ContentFacts {
  return setFacts(contentText(v), hasTextContent(v), toolCalls(v, "toolNames"), toolCalls(v, "toolCallIds"));
}

/** The content facts of the value in `slot` (a string, an array of blocks, anything else, or missing). */
function contentFacts(slot: number): ContentFacts {
  if (factsRec === recSerial && factsSlot === slot) return facts;
  factsRec = recSerial;
  factsSlot = slot;
  // Only the first TEXT_KEEP characters of the text are kept: a long string is decoded in part.
  if (slotStartsWith(slot, QUOTE)) return setFacts(slotStringPrefix(slot, TEXT_KEEP), !slotBlank(slot), NONE, NONE);
  const n = slotElements(slot);
  if (n < 0) return setFacts(undefined, false, NONE, NONE);
  let text = "";
  let hasText = false;
  let toolNames = NONE;
  let toolCallIds = NONE;
  for (let i = 0; i < n; i++) {
    if (!elementStartsWith(i, OPEN_BRACE)) continue;
    // A block key written with escapes: the content is parsed alone.
    if (scanElement(PREVIEW_BLOCK, i) !== 1) return parsedFacts(slotValue(slot));
    if (!slotStartsWith(P_TYPE, QUOTE)) continue;
    const type = slotNamed(P_TYPE, BLOCK_TYPES);
    if (type === "text") {
      if (!slotStartsWith(P_TEXT, QUOTE)) continue;
      if (text.length < TEXT_KEEP) text += slotStringPrefix(P_TEXT, TEXT_KEEP);
      if (!hasText && !slotBlank(P_TEXT)) hasText = true;
    } else if (type === "toolCall") {
      if (toolNames === NONE) toolNames = [];
      toolNames.push(slotStartsWith(P_NAME, QUOTE) ? slotString(P_NAME) : "?");
      if (slotStartsWith(P_ID, QUOTE)) {
        if (toolCallIds === NONE) toolCallIds = [];
        toolCallIds.push(slotString(P_ID));
      }
    }
  }
  return setFacts(text, hasText, toolNames, toolCallIds);
}

/** A content block's keys (the body facts), scanned in their own slots past those of the preview readers. */
const BLOCK = skeletonKeys(BLOCK_KEYS, null, [], REPLACEMENT_KEYS.slots);
const blockSlot = (k: (typeof BLOCK_KEYS)[number]): number => BLOCK.first + BLOCK_KEYS.indexOf(k);
const B_TYPE = blockSlot("type");
const B_TEXT = blockSlot("text");
const B_ID = blockSlot("id");
const B_NAME = blockSlot("name");
const B_ARGUMENTS = blockSlot("arguments");

/**
 * The body facts of the message in the last scanned line, as body.ts's messageBody reads them from the parsed
 * message; null when unsure (a content element that is not an object, a block key written with escapes).
 */
function slotBody(slots: BodySlots, role: string | undefined): MessageBody | null {
  const { message, content, stopReason, toolCallId, isError } = slots;
  if (!slotStartsWith(message, OPEN_BRACE)) return NO_BODY;
  const result = role === "toolResult" && slotStartsWith(toolCallId, QUOTE);
  let textLength = 0;
  let bytes = 0;
  let calls: ToolCallFacts[] | undefined;
  if (slotStartsWith(content, QUOTE)) {
    textLength = slotStringSize(content, false);
    if (result) bytes = slotStringSize(content, true);
  } else if (slotStartsWith(content, OPEN_BRACKET)) {
    itemsOf(content);
    for (let r = nextItem(BLOCK); r !== 2; r = nextItem(BLOCK)) {
      if (r !== 1) return null;
      const type = slotStartsWith(B_TYPE, QUOTE) ? slotNamed(B_TYPE, BLOCK_TYPES) : undefined;
      if (slotStartsWith(B_TEXT, QUOTE)) {
        if (type === "text") textLength += slotStringSize(B_TEXT, false);
        if (result) bytes += slotStringSize(B_TEXT, true);
      }
      if (type === "toolCall") {
        // As JSON.stringify writes the parsed value: only that value is parsed (its bytes may hold white space,
        // escapes or number forms the stringified text writes otherwise).
        let args: string | null;
        try {
          const v = slotValue(B_ARGUMENTS);
          args = v === undefined ? null : JSON.stringify(v);
        } catch {
          // Nested too deep to write back: left to the whole parse, which fails where it always did.
          return null;
        }
        calls ??= [];
        calls.push({ id: slotStr(B_ID) ?? null, name: slotStr(B_NAME) ?? null, arguments: args });
      }
    }
  }
  return {
    stopReason: slotStr(stopReason) ?? null,
    textLength,
    result: result
      ? {
          callId: slotString(toolCallId),
          isError: slotStartsWith(isError, T) ? true : slotStartsWith(isError, F) ? false : null,
          bytes,
        }
      : null,
    toolCalls: calls ?? NO_BODY.toolCalls,
  };
}

/** Sets the fields of `rules` from their slots (the scanning readers of extract.ts's readInto). */
function readSlots(rec: EntryFields, rules: readonly SlotRule[], p: Plan): void {
  const out = rec as unknown as Record<string, unknown>;
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i] as SlotRule;
    const { slot, rule, shared } = r;
    switch (rule.read) {
      case "string":
        if (!slotStartsWith(slot, QUOTE)) break;
        if (shared !== null) out[rule.field] = slotNamed(slot, shared);
        else if (r.last !== undefined && slotIs(slot, r.last)) out[rule.field] = r.last;
        else out[rule.field] = r.last = slotString(slot);
        break;
      case "kept":
        // keep() cuts to TEXT_KEEP characters: a long string is decoded in part.
        if (slotStartsWith(slot, QUOTE)) out[rule.field] = keep(slotStringPrefix(slot, TEXT_KEEP));
        break;
      case "value":
        out[rule.field] = slotValue(slot);
        break;
      case "falsy":
        out[rule.field] = slotFalsy(slot);
        break;
      case "null":
        out[rule.field] = slotStartsWith(slot, N);
        break;
      case "true":
        if (slotStartsWith(slot, T)) out[rule.field] = true;
        break;
      case "text": {
        const t = contentFacts(slot).text;
        if (t !== undefined) out[rule.field] = keep(t);
        break;
      }
      case "hasText":
        out[rule.field] = contentFacts(slot).hasText;
        break;
      case "toolNames":
      case "toolCallIds": {
        const list = contentFacts(slot)[rule.read];
        if (list.length > 0) out[rule.field] = list;
        break;
      }
      case "replacementText": {
        if (!slotStartsWith(slot, OPEN_BRACE)) break;
        let t: string | undefined;
        if (scanSlot(REPLACEMENT_KEYS, slot) === 1) t = contentFacts(R_CONTENT).text;
        else {
          // A key written with escapes: the object is parsed alone.
          const v = slotValue(slot);
          t = isObject(v) ? contentText(v.content) : undefined;
        }
        if (t !== undefined) out[rule.field] = keep(t);
        break;
      }
      case "usage": {
        // Only an object gives a usage.
        if (!slotStartsWith(slot, OPEN_BRACE)) break;
        const u = slotUsage(slot);
        if (u) out[rule.field] = u;
        break;
      }
      case "message": {
        const isObj = slotStartsWith(slot, OPEN_BRACE);
        // As extract.ts: there and not null. Only a value that is not an object is parsed (to see it is there).
        out[rule.field] = isObj || (!slotStartsWith(slot, N) && slotValue(slot) !== undefined);
        if (isObj) {
          readSlots(rec, p.common, p);
          const roleRules = (rec.role === undefined ? undefined : p.byRole.get(rec.role)) ?? p.otherRole;
          if (roleRules.length > 0) readSlots(rec, roleRules, p);
        }
        break;
      }
    }
  }
}

/** The id of the last record read, and the last parent id decoded. */
let lastId: string | undefined;
let lastParent: string | undefined;

/**
 * The parent id in its slot (a string): most entries name the entry just before (a chain) or the same parent as the
 * entry before (siblings), whose string is kept again instead of decoding a copy.
 */
function parentString(): string {
  if (lastId !== undefined && slotIs(S_PARENT, lastId)) return lastId;
  if (lastParent !== undefined && slotIs(S_PARENT, lastParent)) return lastParent;
  lastParent = slotString(S_PARENT);
  return lastParent;
}

/**
 * The scanned record of the entry on b[start, end), or null when the ordinary path must read the line (see the
 * file comment). Equal to the full record on every field skeletonFieldsOf (or, for the spend detail, spendFieldsOf)
 * in fields.ts lists for version ≥ 2 files; the caller applies the same post-processing (v2 role migration,
 * diagnostics) as for full records.
 */
export function skeletonRec(
  b: Buffer,
  start: number,
  end: number,
  index: number,
  line: number,
  offset: number,
  detail: ScanDetail = "skeleton",
): EntryFields | null {
  const p = PLANS[detail];
  recSerial++;
  if (scanLine(p.keys, b, start, end) !== 1) return null;
  if (!slotStartsWith(S_TYPE, QUOTE) || !slotStartsWith(S_ID, QUOTE)) return null;
  const type = slotNamed(S_TYPE, TYPE_NAMES);
  if (type === "session") return null;
  const id = slotString(S_ID);
  if (id === "") return null;
  const parentId = slotStartsWith(S_PARENT, QUOTE) ? parentString() : slotStartsWith(S_PARENT, N) ? null : undefined;
  lastId = id;
  const timestamp = slotValue(S_TS);
  const rec = new NewRec(index, line, offset, end - start, id, parentId, type, timestamp, entryTime(timestamp));
  const rules = p.byType.get(type);
  if (rules !== undefined) readSlots(rec, rules, p);
  if (p.body !== null && type === "message") {
    const body = slotBody(p.body, rec.role);
    if (body !== null) rec.body = body;
  }
  return rec;
}

/**
 * The skeleton record of an entry, read from its line's bytes by the skeleton scanner (src/io/scan) without
 * building the entry object. Which keys are read and which fields they fill comes from the one field table
 * (fields.ts): this file only turns its skeleton rows into scanner slots.
 *
 * `skeletonRec` returns null whenever it is unsure: the line is not valid JSON (the ordinary path then words the
 * error), the value is not an object, a key that matters is written with escapes, the type is not a plain string
 * or is "session", the id is not a non-empty string.
 */
import {
  type Names,
  names,
  scanLine,
  skeletonKeys,
  slotFalsy,
  slotNamed,
  slotStartsWith,
  slotStr,
  slotString,
  slotTime,
  slotValue,
} from "../io/scan/index.js";
import { keep } from "./extract.js";
import { BASE_KEYS, ENTRY_FIELDS, isSkeletonRule, MESSAGE_COMMON, MESSAGE_KEY, type SkeletonRule } from "./fields.js";
import { KNOWN_ENTRY_TYPES } from "./session.js";
import type { EntryRec } from "./types.js";

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const N = 0x6e;

/** A skeleton row compiled: the slot its key's value is in, and the strings it returns as shared constants. */
interface SlotRule {
  slot: number;
  rule: SkeletonRule;
  shared: Names | null;
}

/** Entry types and roles returned as shared constants instead of fresh strings. */
const TYPE_NAMES = names([...KNOWN_ENTRY_TYPES, "session"]);
const SHARED: Partial<Record<keyof EntryRec, Names>> = {
  role: names(["user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage"]),
};
const compile = (slot: number, rule: SkeletonRule): SlotRule => ({ slot, rule, shared: SHARED[rule.field] ?? null });

const top: string[] = [...BASE_KEYS];
const slotOf = (key: string): number => {
  let i = top.indexOf(key);
  if (i < 0) i = top.push(key) - 1;
  return i;
};
const S_TYPE = slotOf("type");
const S_ID = slotOf("id");
const S_PARENT = slotOf("parentId");
const S_TS = slotOf("timestamp");
slotOf(MESSAGE_KEY);

const byType = new Map<string, SlotRule[]>();
for (const [type, rules] of ENTRY_FIELDS) {
  const list: SlotRule[] = [];
  for (const rule of rules) if (isSkeletonRule(rule)) list.push(compile(slotOf(rule.key), rule));
  if (list.length > 0) byType.set(type, list);
}
const nestedRules = MESSAGE_COMMON.filter(isSkeletonRule);
const nestedKeys = [...new Set(nestedRules.map((r) => r.key))];
/** The compiled key list (exported for the scanner's tests). */
export const SKELETON_KEYS = skeletonKeys(top, MESSAGE_KEY, nestedKeys);
const messageRules: SlotRule[] = nestedRules.map((rule) => compile(top.length + nestedKeys.indexOf(rule.key), rule));

/** Sets the fields of `rules` from their slots (the skeleton readers of extract.ts's readInto). */
function readSlots(rec: EntryRec, rules: readonly SlotRule[]): void {
  const out = rec as unknown as Record<string, unknown>;
  for (let i = 0; i < rules.length; i++) {
    const { slot, rule, shared } = rules[i] as SlotRule;
    switch (rule.read) {
      case "string":
        if (slotStartsWith(slot, QUOTE)) out[rule.field] = shared === null ? slotString(slot) : slotNamed(slot, shared);
        break;
      case "kept": {
        const v = slotStr(slot);
        if (v !== undefined) out[rule.field] = keep(v);
        break;
      }
      case "value":
        out[rule.field] = slotValue(slot);
        break;
      case "falsy":
        out[rule.field] = slotFalsy(slot);
        break;
      case "message": {
        const isObj = slotStartsWith(slot, OPEN_BRACE);
        out[rule.field] = isObj;
        if (isObj) readSlots(rec, messageRules);
        break;
      }
    }
  }
}

/**
 * The skeleton record of the entry on b[start, end), or null when the ordinary path must read the line (see the
 * file comment). Equal to the full record on every field skeletonFieldsOf (fields.ts) lists for version ≥ 2 files;
 * the caller applies the same post-processing (v2 role migration, diagnostics) as for full records.
 */
export function skeletonRec(b: Buffer, start: number, end: number, index: number, line: number, offset: number): EntryRec | null {
  if (scanLine(SKELETON_KEYS, b, start, end) !== 1) return null;
  if (!slotStartsWith(S_TYPE, QUOTE) || !slotStartsWith(S_ID, QUOTE)) return null;
  const type = slotNamed(S_TYPE, TYPE_NAMES);
  if (type === "session") return null;
  const id = slotString(S_ID);
  if (id === "") return null;
  const parentId = slotStartsWith(S_PARENT, QUOTE) ? slotString(S_PARENT) : slotStartsWith(S_PARENT, N) ? null : undefined;
  const timestamp = slotValue(S_TS);
  const rec: EntryRec = {
    index,
    line,
    offset,
    length: end - start,
    id,
    parentId,
    type,
    timestamp,
    time: typeof timestamp === "string" ? slotTime(S_TS, timestamp) : new Date(timestamp as string).getTime(),
  };
  const rules = byType.get(type);
  if (rules !== undefined) readSlots(rec, rules);
  return rec;
}

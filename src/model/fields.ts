import type { EntryFields, Usage } from "./types.js";

/**
 * The one table of what the index reads: per entry type (and per message role), which top-level key feeds which
 * EntryRec field, how, and whether the skeleton load reads it too. The full extractor (extract.ts), the skeleton
 * scanner's key list and record builder (skeleton.ts) and SKELETON_FIELDS are all derived from it: adding a field
 * is one row here.
 */

/** What a reader makes of a key's value; `field` must be able to hold it. */
interface ReadOut {
  /** The value when it is a string. */
  string: string;
  /** A string, cut to the index's text length (keep). */
  kept: string;
  /** The value as it is, also when the key is missing. */
  value: unknown;
  /** `!value`, as pi tests it. */
  falsy: boolean;
  /** value === null. */
  null: boolean;
  /** Set (to true) only when the value is true. */
  true: boolean;
  /** The text of a content value (a string, or its text blocks joined), kept. */
  text: string;
  /** A content value holds a text block with more than white space. */
  hasText: boolean;
  /** The names of a content value's toolCall blocks ("?" for a non-string name). */
  toolNames: string[];
  /** The string ids of a content value's toolCall blocks. */
  toolCallIds: string[];
  /** context_edit: the text of the replacement's content, kept. */
  replacementText: string;
  /** Numbers of a usage object. */
  usage: Usage;
  /** Whether the value is an object; the message's own fields come from MESSAGE_FIELDS. */
  message: boolean;
}
type Read = keyof ReadOut;

/** Readers a skeleton row may use: those that read no more than the value's first bytes or a short string. */
type SkeletonRead = "string" | "kept" | "value" | "falsy" | "message";
/** Readers a spend row may use: the skeleton's, and a usage object (scanned in its own bytes). */
type SpendRead = SkeletonRead | "usage";

/** The EntryRec fields that can hold T. */
type FieldFor<T> = { [K in keyof EntryFields]-?: [T] extends [Exclude<EntryFields[K], undefined>] ? K : never }[keyof EntryFields];

/**
 * One row: `key` of the entry (or of its message) feeds `field`, read by `read`. `skeleton`: the skeleton load reads
 * it too; `spend`: the spend load (what `pisess usage` needs: totals.ts's spendOf and spendModels) reads it too, on
 * top of the skeleton rows; `check`: the check load (what validate's checks read of the index: src/check and the
 * ops it calls) reads it too, on top of the skeleton rows.
 */
export type FieldRule = {
  [R in Read]: {
    key: string;
    field: FieldFor<ReadOut[R]>;
    read: R;
    skeleton?: R extends SkeletonRead ? true : never;
    spend?: R extends SpendRead ? true : never;
    check?: true;
  };
}[Read];

const text = { key: "content", field: "text", read: "text" } as const;
const usage = { key: "usage", field: "usage", read: "usage", spend: true } as const;

/** Per entry type, its fields in the order they are set (kept literal: detail.ts derives each load's record type). */
const ENTRY_TABLE = {
  message: [{ key: "message", field: "hasMessage", read: "message", skeleton: true }],
  compaction: [
    { key: "tokensBefore", field: "tokensBefore", read: "value", skeleton: true },
    { key: "firstKeptEntryId", field: "firstKeptEntryId", read: "string", skeleton: true },
    { key: "summary", field: "text", read: "kept" },
    usage,
  ],
  branch_summary: [
    { key: "fromId", field: "fromId", read: "string", skeleton: true },
    { key: "summary", field: "summaryEmpty", read: "falsy", skeleton: true },
    { key: "summary", field: "text", read: "kept" },
    usage,
  ],
  usage: [
    { key: "kind", field: "usageKind", read: "kept", spend: true },
    { key: "provider", field: "provider", read: "string", spend: true },
    { key: "model", field: "model", read: "string", spend: true },
    usage,
  ],
  label: [
    { key: "targetId", field: "targetId", read: "string", skeleton: true },
    { key: "label", field: "labelText", read: "kept", skeleton: true },
  ],
  context_edit: [
    { key: "targetId", field: "targetId", read: "string", skeleton: true },
    { key: "replacement", field: "editRemoves", read: "null" },
    { key: "replacement", field: "text", read: "replacementText" },
  ],
  session_info: [{ key: "name", field: "name", read: "kept", skeleton: true }],
  model_change: [
    { key: "provider", field: "provider", read: "string", skeleton: true },
    { key: "modelId", field: "model", read: "string", skeleton: true },
  ],
  thinking_level_change: [{ key: "thinkingLevel", field: "thinkingLevel", read: "string", skeleton: true }],
  custom: [{ key: "customType", field: "customType", read: "string", skeleton: true }],
  custom_message: [{ key: "customType", field: "customType", read: "string", skeleton: true }, text],
} as const satisfies Record<string, readonly FieldRule[]>;

/** Every message's own fields, read before its role's. */
export const MESSAGE_COMMON = [{ key: "role", field: "role", read: "string", skeleton: true }] as const satisfies readonly FieldRule[];

const custom = [{ key: "customType", field: "customType", read: "string" }, text] as const satisfies readonly FieldRule[];
/** Per message role, the message's fields in the order they are set; "*" for any other role. */
const MESSAGE_TABLE = {
  assistant: [
    { key: "content", field: "hasText", read: "hasText" },
    { key: "content", field: "toolNames", read: "toolNames", check: true },
    { key: "content", field: "toolCallIds", read: "toolCallIds", check: true },
    { key: "provider", field: "provider", read: "string", spend: true },
    { key: "model", field: "model", read: "string", spend: true },
    { key: "stopReason", field: "stopReason", read: "string" },
    { key: "errorMessage", field: "errorMessage", read: "kept" },
    usage,
    text,
  ],
  toolResult: [
    { key: "toolCallId", field: "toolCallId", read: "string", check: true },
    { key: "toolName", field: "toolName", read: "string", check: true },
    { key: "isError", field: "isError", read: "true" },
    // Nested model work done by the tool (pi 1.6): pi counts it in the session's spend.
    usage,
    text,
  ],
  bashExecution: [{ key: "command", field: "text", read: "kept" }],
  custom,
  hookMessage: custom,
  "*": [text],
} as const satisfies Record<string, readonly FieldRule[]>;

/** Looked up by strings from the file: a Map, so "constructor" or "__proto__" find nothing. */
export const ENTRY_FIELDS: ReadonlyMap<string, readonly FieldRule[]> = new Map(Object.entries(ENTRY_TABLE));
export const MESSAGE_FIELDS: ReadonlyMap<string, readonly FieldRule[]> = new Map(Object.entries(MESSAGE_TABLE));
export const OTHER_ROLE_FIELDS = MESSAGE_TABLE["*"] as readonly FieldRule[];

/** The rules one load reads: per entry type, every message's, per role, and any other role's. */
export interface FieldTables {
  entry: ReadonlyMap<string, readonly FieldRule[]>;
  common: readonly FieldRule[];
  message: ReadonlyMap<string, readonly FieldRule[]>;
  otherRole: readonly FieldRule[];
}

export const FULL_TABLES: FieldTables = {
  entry: ENTRY_FIELDS,
  common: MESSAGE_COMMON,
  message: MESSAGE_FIELDS,
  otherRole: OTHER_ROLE_FIELDS,
};

const inCheck = (rules: readonly FieldRule[]): readonly FieldRule[] => rules.filter((r) => r.skeleton === true || r.check === true);
const checkMap = (m: ReadonlyMap<string, readonly FieldRule[]>) => new Map([...m].map(([k, v]) => [k, inCheck(v)]));

/**
 * The check load's rules (`detail: "check"`): the skeleton's and the rows marked `check`. The lines are parsed
 * whole (validate's per-entry checks need the values), so these are read from the parsed value, not the bytes; what
 * is left out (previews, usage, models) is what validate's checks never read of the index.
 */
export const CHECK_TABLES: FieldTables = {
  entry: checkMap(ENTRY_FIELDS),
  common: inCheck(MESSAGE_COMMON),
  message: checkMap(MESSAGE_FIELDS),
  otherRole: inCheck(OTHER_ROLE_FIELDS),
};

/**
 * The EntryRec fields a check load fills exactly as a full load does, for an entry of `type` (and, for a message,
 * of `role`): the skeleton's, plus the table's check rows.
 */
export function checkFieldsOf(type: string, role?: string): (keyof EntryFields)[] {
  const out = skeletonFieldsOf(type);
  for (const r of ENTRY_FIELDS.get(type) ?? []) {
    if (r.read === "message" && role !== undefined)
      for (const m of MESSAGE_FIELDS.get(role) ?? OTHER_ROLE_FIELDS) if (m.check === true) out.push(m.field);
  }
  return [...new Set(out)];
}

/** The key the message rules read inside: that of the (one) `message` reader. */
export const MESSAGE_KEY = (
  Object.values(ENTRY_TABLE)
    .flat()
    .find((r) => r.read === "message") as FieldRule
).key;

/** Fields every record has (load.ts's makeRec and the skeleton set them), and the top-level keys they come from. */
export const BASE_KEYS = ["type", "id", "parentId", "timestamp"] as const;
const BASE_FIELDS = ["index", "line", "offset", "length", "id", "parentId", "type", "timestamp", "time"] as const;
/** Fields every load fills: the base ones, and v1 compactions' firstKeptEntryIndex (v1 files are always read whole). */
export type BaseField = (typeof BASE_FIELDS)[number] | "firstKeptEntryIndex";

/** Every row of the table as written, flags and all: detail.ts derives each load's record type from them. */
export type TableRow =
  | (typeof ENTRY_TABLE)[keyof typeof ENTRY_TABLE][number]
  | (typeof MESSAGE_TABLE)[keyof typeof MESSAGE_TABLE][number]
  | (typeof MESSAGE_COMMON)[number];

/** A rule the skeleton reads. */
export type SkeletonRule = Extract<FieldRule, { read: SkeletonRead }>;
function isSkeletonRule(r: FieldRule): r is SkeletonRule {
  return r.skeleton === true;
}

/**
 * The loads that read lines with the byte scanner: each reads the rows marked for it (spend: the skeleton's too;
 * tables: the spend rows and, for messages, the body facts `pisess tables` needs: EntryRec.body, body.ts; preview:
 * every row but those only spend counting reads, for the text views; full: every row, the same record a whole parse
 * makes).
 */
export type ScanDetail = "skeleton" | "spend" | "tables" | "preview" | "full";
export function inDetail(r: FieldRule, detail: ScanDetail): boolean {
  if (detail === "full" || r.skeleton === true) return true;
  if (detail === "preview") return r.spend !== true;
  return (detail === "spend" || detail === "tables") && r.spend === true;
}

/**
 * The EntryRec fields a preview load (`detail: "preview"`) fills exactly as a full load does, for an entry of
 * `type` (and, for a message, of `role`): every row's but those only spend counting reads (usage, an assistant's
 * provider and model, a usage entry's fields).
 */
export function previewFieldsOf(type: string, role?: string): (keyof EntryFields)[] {
  const out = skeletonFieldsOf(type);
  for (const r of ENTRY_FIELDS.get(type) ?? []) {
    if (inDetail(r, "preview")) out.push(r.field);
    if (r.read === "message" && role !== undefined)
      for (const m of MESSAGE_FIELDS.get(role) ?? OTHER_ROLE_FIELDS) if (inDetail(m, "preview")) out.push(m.field);
  }
  return [...new Set(out)];
}

/** The keys of a message the body facts are read from (model/body.ts), and those of its content's blocks. */
export const BODY_KEYS = ["role", "content", "stopReason", "toolCallId", "isError"] as const;
export const BLOCK_KEYS = ["type", "text", "id", "name", "arguments"] as const;

/**
 * The EntryRec fields a skeleton load (`loadSession(..., { detail: "skeleton" })`) fills exactly as a full load
 * does, for an entry of `type`: the base fields and the table's skeleton rows, plus `firstKeptEntryIndex` (v1
 * files, which are always read in full). Every other field may be missing in a skeleton record.
 */
export function skeletonFieldsOf(type: string): (keyof EntryFields)[] {
  const out: (keyof EntryFields)[] = [...BASE_FIELDS, "firstKeptEntryIndex"];
  for (const r of ENTRY_FIELDS.get(type) ?? []) {
    if (!isSkeletonRule(r)) continue;
    out.push(r.field);
    if (r.read === "message") for (const m of MESSAGE_COMMON) if (isSkeletonRule(m)) out.push(m.field);
  }
  return [...new Set(out)];
}

/**
 * The EntryRec fields a spend load (`detail: "spend"`) fills exactly as a full load does, for an entry of `type`
 * (and, for a message, of `role`): the skeleton's, plus the table's spend rows.
 */
export function spendFieldsOf(type: string, role?: string): (keyof EntryFields)[] {
  const out = skeletonFieldsOf(type);
  for (const r of ENTRY_FIELDS.get(type) ?? []) {
    if (inDetail(r, "spend")) out.push(r.field);
    if (r.read === "message" && role !== undefined)
      for (const m of MESSAGE_FIELDS.get(role) ?? OTHER_ROLE_FIELDS) if (inDetail(m, "spend")) out.push(m.field);
  }
  return [...new Set(out)];
}

/** skeletonFieldsOf over every entry type. */
export const SKELETON_FIELDS: readonly (keyof EntryFields)[] = [...new Set([...ENTRY_FIELDS.keys()].flatMap(skeletonFieldsOf))];

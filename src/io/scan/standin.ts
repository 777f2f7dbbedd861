/**
 * A message's stand-in: what building a context reads of a message whose content is not null, and nothing else,
 * for a report that holds a million messages only to count, pair and write them from their lines (reports/
 * context.ts). Made from the parsed message, or read from the entry line's bytes by the skeleton scanner (no
 * JSON.parse of the line); both give the same object, key order included.
 */
import {
  elementStartsWith,
  elementValue,
  scanElement,
  scanLine,
  skeletonKeys,
  slotElements,
  slotFrom,
  slotIs,
  slotPresent,
  slotStartsWith,
  slotTo,
  slotValue,
} from "./skeleton.js";

type Obj = Record<string, unknown>;

/** The members a stand-in copies where the message has them, in this order. */
const KEPT = ["provider", "model", "toolCallId", "toolName", "excludeFromContext"] as const;

/**
 * What buildContext, pairToolCalls, toolProblems and the count of messages sent to the model read of a message whose
 * content is not null: its role, the provider and model of an assistant, each content block's type (a tool call's
 * id and name too), a tool result's toolCallId and toolName, a command's excludeFromContext.
 */
export function messageStandIn(m: Obj): Obj {
  const c = m.content;
  const content = Array.isArray(c)
    ? c.map((b: unknown) => {
        if (b === null || typeof b !== "object" || Array.isArray(b)) return b;
        const o = b as Obj;
        return o.type === "toolCall" ? { type: o.type, id: o.id, name: o.name } : { type: o.type };
      })
    : typeof c === "string"
      ? ""
      : c;
  const out: Obj = { role: m.role, content };
  for (const k of KEPT) if (k in m) out[k] = m[k];
  return out;
}

const MESSAGE = "message";
const LINE_KEYS = skeletonKeys([MESSAGE], MESSAGE, ["role", "content", ...KEPT]);
const S_MESSAGE = LINE_KEYS.first;
const S_ROLE = LINE_KEYS.firstNested;
const S_CONTENT = S_ROLE + 1;
const BLOCK_KEYS = skeletonKeys(["type", "id", "name"], "type", [], LINE_KEYS.slots);
const [B_TYPE, B_ID, B_NAME] = [0, 1, 2].map((i) => BLOCK_KEYS.first + i) as [number, number, number];
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const N = 0x6e;

/**
 * The last few strings each slot gave, newest first: a million stand-ins share one "assistant", one model name (no
 * copy decoded each), and roles and block types alternate along a path, so one kept string missed every time.
 */
const recent: string[][] = [];
const RECENT = 4;

/** The value in slot s as JSON.parse gives it (undefined when missing), a recent string not decoded again. */
function keptValue(s: number): unknown {
  if (!slotStartsWith(s, QUOTE)) return slotValue(s);
  let r = recent[s];
  if (r === undefined) {
    r = [];
    recent[s] = r;
  }
  for (let i = 0; i < r.length; i++) if (slotIs(s, r[i] as string)) return r[i];
  const v = slotValue(s) as string;
  if (r.length === RECENT) r.pop();
  r.unshift(v);
  return v;
}

/**
 * A block that is only its type, one frozen object for each type (a few: text, thinking, image), and a content of
 * that one block, one frozen array: a stand-in is read, never changed, and a million of them on a long path were
 * two objects each that lived as long as the context.
 */
interface TypeBlock {
  readonly block: object;
  /** A content of that block alone. */
  readonly alone: readonly object[];
}
const typeBlocks = new Map<string, TypeBlock>();
const TYPE_BLOCKS_MAX = 64;
function typeBlock(type: unknown): TypeBlock | undefined {
  if (typeof type !== "string") return undefined;
  let t = typeBlocks.get(type);
  if (t === undefined && typeBlocks.size < TYPE_BLOCKS_MAX) {
    const block = Object.freeze({ type });
    t = { block, alone: Object.freeze([block]) };
    typeBlocks.set(type, t);
  }
  return t;
}

/**
 * messageStandIn of the `message` of the entry line b[start, end), read from its bytes; null where the scanner is
 * unsure (a key that matters written with escapes, an invalid line), the message is not an object, or its content
 * is null or missing: the caller then parses the line. With `span`, a stand-in's message is at bytes
 * [span[0], span[1]) of the line (counted from `start`): JSON.parse of them gives the message whole.
 */
export function messageStandInFromBytes(b: Buffer, start: number, end: number, span?: Int32Array): Obj | null {
  if (scanLine(LINE_KEYS, b, start, end) !== 1) return null;
  if (!slotStartsWith(S_MESSAGE, OPEN_BRACE)) return null;
  if (!slotPresent(S_CONTENT) || slotStartsWith(S_CONTENT, N)) return null;
  if (span !== undefined) {
    span[0] = slotFrom(S_MESSAGE);
    span[1] = slotTo(S_MESSAGE);
  }
  let content: unknown;
  if (slotStartsWith(S_CONTENT, QUOTE)) content = "";
  else {
    const n = slotElements(S_CONTENT);
    if (n < 0) content = slotValue(S_CONTENT);
    else {
      const blocks: unknown[] = [];
      let shared: readonly object[] | undefined;
      for (let i = 0; i < n; i++) {
        if (!elementStartsWith(i, OPEN_BRACE)) {
          blocks.push(elementValue(i));
          continue;
        }
        if (scanElement(BLOCK_KEYS, i) !== 1) return null;
        const type = keptValue(B_TYPE);
        if (type === "toolCall") {
          blocks.push({ type, id: slotValue(B_ID), name: keptValue(B_NAME) });
          continue;
        }
        const t = typeBlock(type);
        blocks.push(t?.block ?? { type });
        if (n === 1) shared = t?.alone;
      }
      content = shared ?? blocks;
    }
  }
  const out: Obj = { role: keptValue(S_ROLE), content };
  for (let k = 0; k < KEPT.length; k++) {
    const v = keptValue(S_CONTENT + 1 + k);
    if (v !== undefined) out[KEPT[k] as string] = v;
  }
  return out;
}

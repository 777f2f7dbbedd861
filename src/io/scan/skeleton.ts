/**
 * The skeleton scanner: a complete, validating byte-level JSON scanner for one JSONL line that extracts the few
 * values the skeleton index needs (see SKELETON_FIELDS in types.ts) without building the entry object.
 *
 * `scanSkeleton` accepts exactly the lines JSON.parse accepts (RFC 8259 as V8 implements it: white space is space,
 * tab, LF and CR; numbers `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`; the literals true, false and null; strings with no
 * raw byte below 0x20 and only the escapes \" \\ \/ \b \f \n \r \t \uXXXX; any nesting depth, walked without
 * recursion; exactly one value, then only white space). The bytes must be valid UTF-8 (the caller checks).
 *
 * While scanning it records the byte span of the value of each top-level key it cares about, and of `role` inside
 * the top-level `message` object, with JSON.parse's rule for duplicate keys (the last one wins; a later `message`
 * discards the role found in an earlier one). Only those spans are decoded.
 *
 * `skeletonRec` returns null whenever it is unsure: the line is not valid JSON (the ordinary path then words the
 * error), the value is not an object, a key that matters is written with escapes, the type is not a plain string
 * or is "session", the id is not a non-empty string. Saying "not sure" is always safe; saying "valid" must be exact.
 */
import { keep } from "./extract.js";
import { SCAN_WASM } from "./scan-wasm.js";
import { KNOWN_ENTRY_TYPES } from "./session.js";
import type { EntryRec } from "./types.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// Slots of the values the skeleton reads.
const S_TYPE = 0;
const S_ID = 1;
const S_PARENT = 2;
const S_TS = 3;
const S_MESSAGE = 4;
const S_TARGET = 5;
const S_LABEL = 6;
const S_NAME = 7;
const S_FIRSTKEPT = 8;
const S_TOKENS = 9;
const S_FROMID = 10;
const S_SUMMARY = 11;
const S_PROVIDER = 12;
const S_MODELID = 13;
const S_THINKING = 14;
const S_CUSTOMTYPE = 15;
/** `role` inside the top-level `message` object. */
const S_ROLE = 16;
const NSLOTS = 17;

const TOP_KEYS: readonly [string, number][] = [
  ["type", S_TYPE],
  ["id", S_ID],
  ["parentId", S_PARENT],
  ["timestamp", S_TS],
  ["message", S_MESSAGE],
  ["targetId", S_TARGET],
  ["label", S_LABEL],
  ["name", S_NAME],
  ["firstKeptEntryId", S_FIRSTKEPT],
  ["tokensBefore", S_TOKENS],
  ["fromId", S_FROMID],
  ["summary", S_SUMMARY],
  ["provider", S_PROVIDER],
  ["modelId", S_MODELID],
  ["thinkingLevel", S_THINKING],
  ["customType", S_CUSTOMTYPE],
];

/** Top-level keys by length: [bytes, slot] pairs. */
const KEYS_BY_LEN: [Uint8Array, number][][] = [];
for (const [k, slot] of TOP_KEYS) {
  KEYS_BY_LEN[k.length] ??= [];
  const list = KEYS_BY_LEN[k.length] as [Uint8Array, number][];
  list.push([Buffer.from(k, "latin1"), slot]);
}
const ROLE_KEY = Buffer.from("role", "latin1");

/** Entry types and roles returned as shared constants instead of fresh strings. */
const TYPE_NAMES = [...KNOWN_ENTRY_TYPES, "session"].map((s) => [Buffer.from(s, "latin1"), s] as const);
const ROLE_NAMES = ["user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage"].map(
  (s) => [Buffer.from(s, "latin1"), s] as const,
);

// Value spans, [start, end) of the whole value (a string's span includes its quotes); -1: not seen.
const spanStart = new Int32Array(NSLOTS);
const spanEnd = new Int32Array(NSLOTS);

// Container stack: kind (1 object, 2 array), and for the container open at each depth, the slot it fills.
let stackKind = new Uint8Array(256);
let stackSlot = new Int8Array(256);
let stackStart = new Int32Array(256);

// hex digit lookup: 1 for 0-9, a-f, A-F
const HEX = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) HEX[c] = 1;
for (let c = 0x41; c <= 0x46; c++) HEX[c] = 1;
for (let c = 0x61; c <= 0x66; c++) HEX[c] = 1;
// valid single-character escapes: " \ / b f n r t
const ESC = new Uint8Array(256);
for (const c of [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]) ESC[c] = 1;

/** DataView of the buffer being scanned (4 bytes at a time through string contents). */
let viewOf: Uint8Array | null = null;
let view: DataView = new DataView(new ArrayBuffer(0));

/** Set by scanString: the string held a backslash. */
let sawEscape = false;

function growStack(): void {
  const n = stackKind.length * 2;
  const k = new Uint8Array(n);
  k.set(stackKind);
  stackKind = k;
  const s = new Int8Array(n);
  s.set(stackSlot);
  stackSlot = s;
  const st = new Int32Array(n);
  st.set(stackStart);
  stackStart = st;
}

/**
 * Scans a string's content from `q` (just after the opening quote) to `end`; returns the index of the closing
 * quote, or -1 when the string is invalid or never closes. `dv` views the same bytes as `b`.
 */
export function scanStringJs(b: Uint8Array, dv: DataView, q: number, end: number): number {
  let esc = false;
  for (;;) {
    // Four bytes at a time while none of them is a quote, a backslash or a control character.
    let hit = 0;
    while (q + 4 <= end) {
      const x = dv.getInt32(q, true);
      const xq = x ^ 0x22222222;
      const xb = x ^ 0x5c5c5c5c;
      hit = ((((x - 0x20202020) | 0) & ~x) | (((xq - 0x01010101) | 0) & ~xq) | (((xb - 0x01010101) | 0) & ~xb)) & 0x80808080;
      if (hit !== 0) {
        // The lowest flagged byte is always a real quote, backslash or control byte (false flags only appear
        // above a real one, from the borrow), so the bytes before it are plain: skip them.
        q += (31 - Math.clz32(hit & -hit)) >> 3;
        break;
      }
      q += 4;
    }
    if (q >= end) return -1;
    const d = b[q] as number;
    if (d === QUOTE) {
      sawEscape = esc;
      return q;
    }
    if (d === BACKSLASH) {
      esc = true;
      if (q + 1 >= end) return -1;
      const e = b[q + 1] as number;
      if (e === 0x75 /* u */) {
        if (q + 5 >= end) return -1;
        if (
          ((HEX[b[q + 2] as number] as number) &
            (HEX[b[q + 3] as number] as number) &
            (HEX[b[q + 4] as number] as number) &
            (HEX[b[q + 5] as number] as number)) ===
          0
        )
          return -1;
        q += 6;
        continue;
      }
      if (ESC[e] === 0) return -1;
      q += 2;
      continue;
    }
    if (d < 0x20) return -1;
    q++;
  }
}

/**
 * The SIMD scanner (scan.wat): long lines are copied once into its memory (`toWasm`) and their strings scanned
 * there, 16 bytes at a time. Instantiated on first use; null when WebAssembly or its SIMD is unavailable (the JS
 * scanner then reads every line).
 */
interface ScanWasm {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  scan: (q: number, end: number) => number;
}
let wasm: ScanWasm | null | undefined;
/** Buffer over the whole wasm memory (remade after it grows), and its DataView. */
let wbuf: Buffer = Buffer.alloc(0);
let wview: DataView = new DataView(new ArrayBuffer(0));
/** Lines this long or longer are scanned in wasm memory. */
let wasmMin = 4096;

function loadWasm(): ScanWasm | null {
  try {
    // The compiler's lib has no WebAssembly types; this is the little used here.
    const WA = (
      globalThis as { WebAssembly?: { Module: new (bytes: Uint8Array) => object; Instance: new (m: object) => { exports: unknown } } }
    ).WebAssembly;
    if (WA === undefined) return null;
    return new WA.Instance(new WA.Module(Buffer.from(SCAN_WASM, "base64"))).exports as ScanWasm;
  } catch {
    return null;
  }
}

/** Copies b[start, end) to the start of wasm memory and returns the buffer over that memory, or null without wasm. */
function toWasm(b: Uint8Array, start: number, end: number): Buffer | null {
  if (wasm === undefined) wasm = loadWasm();
  if (wasm === null) return null;
  const n = end - start;
  if (n > wbuf.length) {
    const have = wasm.memory.buffer.byteLength;
    if (n > have) wasm.memory.grow(Math.ceil((n - have) / 65536));
    const ab = wasm.memory.buffer;
    wbuf = Buffer.from(ab, 0, ab.byteLength);
    wview = new DataView(ab);
  }
  wbuf.set(b.subarray(start, end), 0);
  return wbuf;
}

/** For tests: the length from which lines are scanned in wasm memory (0: every line). Returns the previous one. */
export function setWasmMinForTest(n: number): number {
  const old = wasmMin;
  wasmMin = n;
  return old;
}

/**
 * For tests: scans the string content at b[q, end) with the JS scanner, or through wasm on a copy of b[0, end).
 * Returns the closing quote's index (-1: invalid or unclosed) and whether an escape was seen, or null when wasm
 * was asked for and is unavailable.
 */
export function scanStringForTest(b: Uint8Array, q: number, end: number, useWasm: boolean): { q: number; esc: boolean } | null {
  let r: number;
  if (useWasm) {
    const w = toWasm(b, 0, end);
    if (w === null) return null;
    r = scanString(w, wview, q, end);
  } else r = scanStringJs(b, new DataView(b.buffer, b.byteOffset, b.byteLength), q, end);
  return { q: r, esc: r >= 0 && sawEscape };
}

/**
 * Scans a string's content from `q` (just after the opening quote) to `end`; returns the index of the closing
 * quote, or -1 when the string is invalid or never closes; sets sawEscape. `dv` views the same bytes as `b`.
 */
function scanString(b: Uint8Array, dv: DataView, q: number, end: number): number {
  if (b !== wbuf) return scanStringJs(b, dv, q, end);
  // Short plain strings (keys, ids) end before the call into wasm would pay off.
  const lim = Math.min(q + 24, end);
  for (let i = q; i < lim; i++) {
    const c = b[i] as number;
    if (c === QUOTE) {
      sawEscape = false;
      return i;
    }
    if (c === BACKSLASH || c < 0x20) break;
  }
  const r = (wasm as ScanWasm).scan(q, end);
  if (r >= -1) {
    sawEscape = false;
    return r;
  }
  sawEscape = true;
  return -2 - r;
}

/** End of the number starting at p (exact JSON grammar), or -1. */
function scanNumber(b: Uint8Array, p: number, end: number): number {
  let c = b[p] as number;
  if (c === 0x2d /* - */) {
    p++;
    if (p >= end) return -1;
    c = b[p] as number;
  }
  if (c === 0x30) {
    p++;
  } else if (c >= 0x31 && c <= 0x39) {
    p++;
    while (p < end && (b[p] as number) >= 0x30 && (b[p] as number) <= 0x39) p++;
  } else return -1;
  if (p < end && b[p] === 0x2e /* . */) {
    p++;
    const digits = p;
    while (p < end && (b[p] as number) >= 0x30 && (b[p] as number) <= 0x39) p++;
    if (p === digits) return -1;
  }
  if (p < end && (b[p] === 0x65 || b[p] === 0x45) /* e E */) {
    p++;
    if (p < end && (b[p] === 0x2b || b[p] === 0x2d)) p++;
    const digits = p;
    while (p < end && (b[p] as number) >= 0x30 && (b[p] as number) <= 0x39) p++;
    if (p === digits) return -1;
  }
  return p;
}

function matches(b: Uint8Array, from: number, to: number, name: Uint8Array): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (b[from + i] !== name[i]) return false;
  return true;
}

function topKeySlot(b: Uint8Array, from: number, to: number): number {
  const list = KEYS_BY_LEN[to - from];
  if (list === undefined) return -1;
  for (let i = 0; i < list.length; i++) {
    const k = list[i] as [Uint8Array, number];
    if (matches(b, from, to, k[0])) return k[1];
  }
  return -1;
}

// Parser states.
const ST_VALUE = 0; // a value must come
const ST_ARR_FIRST = 1; // after '[': a value or ']'
const ST_OBJ_FIRST = 2; // after '{': a key or '}'
const ST_KEY = 3; // after ',' in an object: a key
const ST_COLON = 4; // after a key
const ST_AFTER = 5; // after a value: ',' or the closer, or the end at depth 0

/**
 * Scans the line's bytes b[start, end). Returns 1 when the line is valid JSON whose value is an object and every
 * key that matters was read plainly, 0 when it is not valid JSON, -1 when unsure (valid or not). Fills the spans.
 */
export function scanSkeleton(b: Uint8Array, start: number, end: number): number {
  spanStart.fill(-1);
  spanEnd.fill(-1);
  if (b !== viewOf && b !== wbuf) {
    viewOf = b;
    view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  const dv = b === wbuf ? wview : view;
  let p = start;
  let depth = 0;
  let state = ST_VALUE;
  /** Slot the next value fills (set by the key before it), -1 for none. */
  let slot = -1;
  /** The object open at depth 2 is the top-level `message` value. */
  let inMsg = false;
  let unsure = false;
  while (p < end) {
    const c = b[p] as number;
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) {
      p++;
      continue;
    }
    switch (state) {
      case ST_OBJ_FIRST:
      case ST_KEY: {
        if (c === 0x7d /* } */ && state === ST_OBJ_FIRST) {
          p = closeContainer(p, depth);
          depth--;
          if (depth === 1) inMsg = false;
          state = ST_AFTER;
          break;
        }
        if (c !== QUOTE) return 0;
        const q = scanString(b, dv, p + 1, end);
        if (q < 0) return 0;
        slot = -1;
        if (depth === 1) {
          if (sawEscape) unsure = true;
          else {
            slot = topKeySlot(b, p + 1, q);
            // A later `message` replaces an earlier one, and with it the role read there.
            if (slot === S_MESSAGE) {
              spanStart[S_ROLE] = -1;
              spanEnd[S_ROLE] = -1;
            }
          }
        } else if (depth === 2 && inMsg) {
          if (sawEscape) unsure = true;
          else if (matches(b, p + 1, q, ROLE_KEY)) slot = S_ROLE;
        }
        p = q + 1;
        state = ST_COLON;
        break;
      }
      case ST_COLON:
        if (c !== 0x3a /* : */) return 0;
        p++;
        state = ST_VALUE;
        break;
      case ST_AFTER:
        if (depth === 0) return 0;
        if (c === 0x2c /* , */) {
          state = stackKind[depth] === 1 ? ST_KEY : ST_VALUE;
          p++;
        } else if ((c === 0x7d && stackKind[depth] === 1) || (c === 0x5d && stackKind[depth] === 2)) {
          p = closeContainer(p, depth);
          depth--;
          if (depth === 1) inMsg = false;
        } else return 0;
        break;
      default: {
        // ST_VALUE, ST_ARR_FIRST
        if (state === ST_ARR_FIRST && c === 0x5d /* ] */) {
          p = closeContainer(p, depth);
          depth--;
          if (depth === 1) inMsg = false;
          state = ST_AFTER;
          break;
        }
        // The line must hold an object; anything else (valid or not) the ordinary path reports.
        if (depth === 0 && c !== 0x7b) return -1;
        // Only values of the top-level object (depth 1) or of the message object fill slots.
        const s = depth === 1 || (depth === 2 && inMsg) ? slot : -1;
        slot = -1;
        if (c === QUOTE) {
          const q = scanString(b, dv, p + 1, end);
          if (q < 0) return 0;
          if (s >= 0) {
            spanStart[s] = p;
            spanEnd[s] = q + 1;
          }
          p = q + 1;
          state = ST_AFTER;
        } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
          depth++;
          if (depth >= stackKind.length) growStack();
          stackKind[depth] = c === 0x7b ? 1 : 2;
          stackSlot[depth] = s;
          stackStart[depth] = p;
          if (depth === 2 && s === S_MESSAGE && c === 0x7b) inMsg = true;
          p++;
          state = c === 0x7b ? ST_OBJ_FIRST : ST_ARR_FIRST;
        } else {
          let q: number;
          if (c === 0x74 /* t */) q = b[p + 1] === 0x72 && b[p + 2] === 0x75 && b[p + 3] === 0x65 && p + 4 <= end ? p + 4 : -1;
          else if (c === 0x66 /* f */)
            q = b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === 0x65 && p + 5 <= end ? p + 5 : -1;
          else if (c === 0x6e /* n */) q = b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c && p + 4 <= end ? p + 4 : -1;
          else q = scanNumber(b, p, end);
          if (q < 0) return 0;
          if (s >= 0) {
            spanStart[s] = p;
            spanEnd[s] = q;
          }
          p = q;
          state = ST_AFTER;
        }
        break;
      }
    }
  }
  if (depth !== 0 || state !== ST_AFTER) return 0;
  return unsure ? -1 : 1;
}

/** Closes the container at `depth` whose closer is at p; records its span if it fills a slot. Returns p + 1. */
function closeContainer(p: number, depth: number): number {
  const s = stackSlot[depth] as number;
  if (s >= 0) {
    spanStart[s] = stackStart[depth] as number;
    spanEnd[s] = p + 1;
  }
  return p + 1;
}

/** Decodes the string value in slot s (known to be a string), exactly as JSON.parse would. */
function decodeString(b: Buffer, s: number): string {
  const from = (spanStart[s] as number) + 1;
  const to = (spanEnd[s] as number) - 1;
  let ascii = true;
  for (let i = from; i < to; i++) {
    const c = b[i] as number;
    if (c === BACKSLASH) return JSON.parse(b.toString("utf8", from - 1, to + 1)) as string;
    if (c >= 0x80) ascii = false;
  }
  return b.toString(ascii ? "latin1" : "utf8", from, to);
}

function isString(b: Uint8Array, s: number): boolean {
  return (spanStart[s] as number) >= 0 && b[spanStart[s] as number] === QUOTE;
}

/** The string in slot s, or undefined when the value is missing or not a string (extract.ts's `str`). */
function str(b: Buffer, s: number): string | undefined {
  return isString(b, s) ? decodeString(b, s) : undefined;
}

/** The value in slot s as JSON.parse gives it, or undefined when the key is missing. */
function anyValue(b: Buffer, s: number): unknown {
  const from = spanStart[s] as number;
  if (from < 0) return undefined;
  const c = b[from] as number;
  if (c === QUOTE) return decodeString(b, s);
  if (c === 0x6e) return null;
  if (c === 0x74) return true;
  if (c === 0x66) return false;
  return JSON.parse(b.toString("utf8", from, spanEnd[s] as number));
}

/** A constant from `names` equal to the string in slot s (plain bytes only), else a decoded string. */
function named(b: Buffer, s: number, names: readonly (readonly [Uint8Array, string])[]): string {
  const from = (spanStart[s] as number) + 1;
  const to = (spanEnd[s] as number) - 1;
  for (let i = 0; i < names.length; i++) {
    const n = names[i] as readonly [Uint8Array, string];
    if (matches(b, from, to, n[0])) return n[1];
  }
  return decodeString(b, s);
}

/**
 * The skeleton record of the entry on b[start, end), or null when the ordinary path must read the line (see the
 * file comment). Equal to the full record on every field listed in SKELETON_FIELDS (types.ts) for version ≥ 2
 * files; the caller applies the same post-processing (v2 role migration, diagnostics) as for full records.
 */
export function skeletonRec(b: Buffer, start: number, end: number, index: number, line: number, offset: number): EntryRec | null {
  if (end - start >= wasmMin) {
    // A long line: scan (and decode from) its copy in wasm memory.
    const w = toWasm(b, start, end);
    if (w !== null) {
      b = w;
      end -= start;
      start = 0;
    }
  }
  if (scanSkeleton(b, start, end) !== 1) return null;
  if (!isString(b, S_TYPE) || !isString(b, S_ID)) return null;
  const type = named(b, S_TYPE, TYPE_NAMES);
  if (type === "session") return null;
  const id = decodeString(b, S_ID);
  if (id === "") return null;
  const ps = spanStart[S_PARENT] as number;
  const parentId = ps < 0 ? undefined : b[ps] === QUOTE ? decodeString(b, S_PARENT) : b[ps] === 0x6e ? null : undefined;
  const timestamp = anyValue(b, S_TS);
  const rec: EntryRec = {
    index,
    line,
    offset,
    length: end - start,
    id,
    parentId,
    type,
    timestamp,
    time: typeof timestamp === "string" ? isoTime(b, timestamp) : new Date(timestamp as string).getTime(),
  };
  switch (type) {
    case "message": {
      const ms = spanStart[S_MESSAGE] as number;
      if (ms >= 0 && b[ms] === 0x7b) {
        rec.hasMessage = true;
        if (isString(b, S_ROLE)) rec.role = named(b, S_ROLE, ROLE_NAMES);
      } else rec.hasMessage = false;
      break;
    }
    case "compaction": {
      rec.tokensBefore = anyValue(b, S_TOKENS);
      const fk = str(b, S_FIRSTKEPT);
      if (fk !== undefined) rec.firstKeptEntryId = fk;
      break;
    }
    case "branch_summary": {
      const from = str(b, S_FROMID);
      if (from !== undefined) rec.fromId = from;
      rec.summaryEmpty = summaryFalsy(b);
      break;
    }
    case "label": {
      const target = str(b, S_TARGET);
      if (target !== undefined) rec.targetId = target;
      const label = str(b, S_LABEL);
      if (label !== undefined) rec.labelText = keep(label);
      break;
    }
    case "context_edit": {
      const target = str(b, S_TARGET);
      if (target !== undefined) rec.targetId = target;
      break;
    }
    case "session_info": {
      const name = str(b, S_NAME);
      if (name !== undefined) rec.name = keep(name);
      break;
    }
    case "model_change": {
      const provider = str(b, S_PROVIDER);
      if (provider !== undefined) rec.provider = provider;
      const model = str(b, S_MODELID);
      if (model !== undefined) rec.model = model;
      break;
    }
    case "thinking_level_change": {
      const level = str(b, S_THINKING);
      if (level !== undefined) rec.thinkingLevel = level;
      break;
    }
    case "custom":
    case "custom_message": {
      const ct = str(b, S_CUSTOMTYPE);
      if (ct !== undefined) rec.customType = ct;
      break;
    }
    default:
      break;
  }
  return rec;
}

/**
 * `new Date(ts).getTime()` for the timestamp string in its slot: computed directly for the form pi writes,
 * YYYY-MM-DDTHH:MM:SS.sssZ, within ranges where that is plainly the same (years 1000-9999, days 1-28); else Date.
 */
function isoTime(b: Buffer, ts: string): number {
  const from = (spanStart[S_TS] as number) + 1;
  if ((spanEnd[S_TS] as number) - 1 - from !== 24) return new Date(ts).getTime();
  if (
    b[from + 4] !== 0x2d ||
    b[from + 7] !== 0x2d ||
    b[from + 10] !== 0x54 ||
    b[from + 13] !== 0x3a ||
    b[from + 16] !== 0x3a ||
    b[from + 19] !== 0x2e ||
    b[from + 23] !== 0x5a
  ) {
    return new Date(ts).getTime();
  }
  let bad = 0;
  const dig = (i: number): number => {
    const d = (b[from + i] as number) - 0x30;
    if (d < 0 || d > 9) bad = 1;
    return d;
  };
  const y = dig(0) * 1000 + dig(1) * 100 + dig(2) * 10 + dig(3);
  const mo = dig(5) * 10 + dig(6);
  const d = dig(8) * 10 + dig(9);
  const h = dig(11) * 10 + dig(12);
  const mi = dig(14) * 10 + dig(15);
  const s = dig(17) * 10 + dig(18);
  const ms = dig(20) * 100 + dig(21) * 10 + dig(22);
  if (bad !== 0 || y < 1000 || mo < 1 || mo > 12 || d < 1 || d > 28 || h > 23 || mi > 59 || s > 59) return new Date(ts).getTime();
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

/** `!entry.summary` without decoding a long summary. */
function summaryFalsy(b: Buffer): boolean {
  const from = spanStart[S_SUMMARY] as number;
  if (from < 0) return true;
  const c = b[from] as number;
  if (c === QUOTE) return (spanEnd[S_SUMMARY] as number) - from === 2;
  if (c === 0x7b || c === 0x5b || c === 0x74) return false;
  if (c === 0x6e || c === 0x66) return true;
  return !(JSON.parse(b.toString("latin1", from, spanEnd[S_SUMMARY] as number)) as number);
}

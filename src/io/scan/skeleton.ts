/**
 * The skeleton scanner: a complete, validating byte-level JSON scanner for one JSONL line that extracts the few
 * values the skeleton index needs (the keys src/model/fields.ts marks, compiled by skeletonKeys) without building
 * the entry object. The scan itself is WebAssembly (scan.wat's `line`, on the line in its memory): V8
 * compiles it before its first call, where a JS scanner spent most of a one-shot 10 MB load in the interpreter and
 * on its way to optimized code. Without WebAssembly every line is "unsure" and takes the ordinary path (JSON.parse).
 *
 * `scanSkeleton` accepts exactly the lines JSON.parse accepts (RFC 8259 as V8 implements it: white space is space,
 * tab, LF and CR; numbers `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`; the literals true, false and null; strings with no
 * raw byte below 0x20 and only the escapes \" \\ \/ \b \f \n \r \t \uXXXX; any nesting depth, walked without
 * recursion; exactly one value, then only white space). The bytes must be valid UTF-8 (the caller checks).
 *
 * While scanning it records the byte span of the value of each top-level key it cares about, and of the keys it
 * cares about inside one top-level object (`role` inside `message`), with JSON.parse's rule for duplicate keys (the
 * last one wins; a later `message` discards the role found in an earlier one). Only those spans are decoded, by
 * the slot readers below.
 *
 * It says "unsure" (-1) whenever a key that matters is written with escapes or the value is not an object; the
 * caller then takes the ordinary path. Saying "not sure" is always safe; saying "valid" must be exact.
 */
import { isAscii } from "node:buffer";
import { SCAN_WASM } from "./wasm.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The keys a scan records, compiled once: top-level keys get slots first…first+n-1 in the order given, the keys
 * read inside the one top-level object `nestedIn` the slots after them.
 */
export interface SkeletonKeys {
  /** Top-level keys and their slots. */
  readonly top: readonly (readonly [Uint8Array, number])[];
  /** Keys inside `nestedIn`, and their slots. */
  readonly nested: readonly (readonly [Uint8Array, number])[];
  /** Slot of the `nestedIn` key (-2: none); its object's keys fill the nested slots. */
  readonly nestedSlot: number;
  readonly firstNested: number;
  /** The first slot, and the end of the slots (exclusive). */
  readonly first: number;
  readonly slots: number;
  /** Where its key table is in the scanner's memory (-1: not written yet). */
  tableAt: number;
}

function withSlots(keys: readonly string[], first: number): [Uint8Array, number][] {
  return keys.map((k, i) => [Buffer.from(k, "latin1"), first + i]);
}

/**
 * Compiles a key list for scanSkeleton: slot first + i is top[i], slot first + top.length + j is nested[j] inside
 * top-level `nestedIn`. A list for values inside a line (scanSlot) starts past the slots of the line's list, so that
 * scanning a value keeps the line's spans.
 */
export function skeletonKeys(top: readonly string[], nestedIn: string | null, nested: readonly string[], first = 0): SkeletonKeys {
  const at = nestedIn === null ? -1 : top.indexOf(nestedIn);
  if (nestedIn !== null && at < 0) throw new Error(`skeletonKeys: ${nestedIn} is not a top-level key`);
  const slots = first + top.length + nested.length;
  if (slots > MAX_SLOTS) throw new Error("skeletonKeys: too many keys");
  const firstNested = first + top.length;
  // Without `nestedIn`, a slot no key has (-1 is "no key"): no object is read inside.
  const nestedSlot = at < 0 ? -2 : first + at;
  return { top: withSlots(top, first), nested: withSlots(nested, firstNested), nestedSlot, firstNested, first, slots, tableAt: -1 };
}

/** Most slots a key list may have. */
const MAX_SLOTS = 64;
// Value spans of the last scan, [start, end) of the whole value (a string's span includes its quotes); -1: not
// seen. Views of the scanner's memory, where `line` writes them (remade when it grows).
let spanStart = new Int32Array(MAX_SLOTS);
let spanEnd = new Int32Array(MAX_SLOTS);

/**
 * The scanner (scan.wat), instantiated on first use; null when WebAssembly or its SIMD is unavailable. Bytes are
 * scanned from DATA on in its memory (the read region, then copies); below DATA it keeps the key tables (from
 * TABLES), the spans of the last scan (at SPANS), the numbers `form` leaves to JS (at 0) and its stacks.
 */
interface ScanWasm {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  scan: (q: number, end: number) => number;
  line: (p: number, end: number, prefix: number, table: number) => number;
  after: { value: number };
  form: (p: number, end: number) => number;
  plain: (p: number, end: number) => number;
}
let wasm: ScanWasm | null | undefined;
const DATA = 131072;
const TABLES = 16000;
const TABLES_END = 32000;
const SPANS = 32000;
/** Buffer over the whole wasm memory (remade after it grows), and the spans of the numbers `form` lists. */
let wbuf: Buffer = Buffer.alloc(0);
let numberSpans = new Int32Array(0);
/** Where the next key table goes. */
let tablesEnd = TABLES;

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

/** The scanner's memory grown to at least `n` bytes, and the views over it made again when it grew. */
function memoryOf(w: ScanWasm, n: number): void {
  if (n <= wbuf.length) return;
  const have = w.memory.buffer.byteLength;
  if (n > have) w.memory.grow(Math.ceil((n - have) / 65536));
  const ab = w.memory.buffer;
  wbuf = Buffer.from(ab, 0, ab.byteLength);
  numberSpans = new Int32Array(ab, 0, TABLES / 4);
  spanStart = new Int32Array(ab, SPANS, MAX_SLOTS);
  spanEnd = new Int32Array(ab, SPANS + 4 * MAX_SLOTS, MAX_SLOTS);
}

/**
 * The line reader's buffer (lines.ts) can be a region of the scanner's memory, [DATA, COPY): a file's lines are then
 * read where they are scanned, not copied there one by one (a 10 MB load copied each of its 6,583 lines).
 * Everything else is copied to COPY on.
 */
const READ_SIZE = 1 << 20;
/** The size of the read region (a reader asks takeReadRegion for it). */
export const READ_REGION_SIZE = READ_SIZE;
const COPY = DATA + READ_SIZE;
/** Whether a reader holds the region (one at a time: reads of several files may interleave). */
let readRegionHeld = false;

/**
 * The region as a Buffer of `size` bytes for a line reader, or null (another size, no wasm, or another reader holds
 * it). The memory is grown first to hold a copy of any line of the region, so that no scan of a line read there grows
 * it (which would detach the reader's Buffer: readRegionAgain).
 */
export function takeReadRegion(size: number): Buffer | null {
  if (size !== READ_SIZE || readRegionHeld) return null;
  if (wasm === undefined) wasm = loadWasm();
  if (wasm === null) return null;
  memoryOf(wasm, COPY + READ_SIZE);
  readRegionHeld = true;
  return readRegionAgain();
}

/** The held region as a Buffer again, after the memory grew (the old Buffer is detached; the bytes stay). */
export function readRegionAgain(): Buffer {
  return wbuf.subarray(DATA, COPY);
}

/** The reader is done with the region. */
export function giveReadRegion(): void {
  readRegionHeld = false;
}

/**
 * Where b[start, end) is in wasm memory: in place when b is a view of it (the read region), else copied to COPY.
 * -1 without wasm.
 */
function toWasm(b: Uint8Array, start: number, end: number): number {
  if (wasm === undefined) wasm = loadWasm();
  if (wasm === null) return -1;
  if (b.buffer === wasm.memory.buffer) return b.byteOffset + start;
  memoryOf(wasm, COPY + end - start);
  // Buffer#copy makes no view object (a million lines made a million).
  if (b instanceof Buffer) b.copy(wbuf, COPY, start, end);
  else wbuf.set(b.subarray(start, end), COPY);
  return COPY;
}

/**
 * For tests: scans the string content at b[q, end) through wasm (on a copy of b[0, end)). Returns the closing
 * quote's index (-1: invalid or unclosed) and whether an escape was seen, or null when wasm is unavailable.
 */
export function scanStringForTest(b: Uint8Array, q: number, end: number): { q: number; esc: boolean } | null {
  const at = toWasm(b, 0, end);
  if (at < 0) return null;
  const r = scanString(q + at, end + at);
  return { q: r < 0 ? r : r - at, esc: r >= 0 && sawEscape };
}

/** Set by scanString: the string held a backslash. */
let sawEscape = false;

/**
 * Scans a string's content in wasm memory from `q` (just after the opening quote) to `end`; returns the index of
 * the closing quote, or -1 when the string is invalid or never closes; sets sawEscape.
 */
function scanString(q: number, end: number): number {
  const r = (wasm as ScanWasm).scan(q, end);
  sawEscape = r < -1;
  return r < -1 ? -2 - r : r;
}

/**
 * For form.ts: scan.wat's `form` over b[from, to) (a valid JSON value), in wasm memory (copied there unless read
 * there). False when its structure or escapes are not JSON.stringify's, else the numbers (start and end, offsets
 * from `from`) whose printing is still to compare; null without wasm. With `plain`, when the form holds, it also says
 * whether the bytes are valid UTF-8 that the JSON output writes as they are (scan.wat's `plain`).
 */
export function formScan(b: Buffer, from: number, to: number, plain?: { plain: boolean }): false | readonly number[] | null {
  const at = toWasm(b, from, to);
  if (at < 0) return null;
  const n = (wasm as ScanWasm).form(at, at + to - from);
  if (n < 0) return false;
  // On the copy form just walked: whether the output writes these bytes as they are (scan.wat's plain).
  if (plain !== undefined) plain.plain = (wasm as ScanWasm).plain(at, at + to - from) === 1;
  // Most messages leave no number to JS: no array is made for them (a million on a long path).
  if (n === 0) return NO_NUMBERS;
  const numbers: number[] = [];
  for (let i = 0; i < 2 * n; i++) numbers.push((numberSpans[i] as number) - at);
  return numbers;
}

const NO_NUMBERS: readonly number[] = Object.freeze([]);

function matches(b: Uint8Array, from: number, to: number, name: Uint8Array): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (b[from + i] !== name[i]) return false;
  return true;
}

/** Where the value read by the last prefix scan (scanSkeleton with `prefix`) ended: where the bytes after it begin. */
let valueEnd = 0;

/**
 * Scans the line's bytes b[start, end). Returns 1 when the line is valid JSON whose value is an object and every
 * key that matters was read plainly, 0 when it is not valid JSON, -1 when unsure (valid or not). Fills the spans
 * of the keys in `keys`. `prefix`: the object may be followed by anything (an element of an array): the scan stops
 * at the first byte after it that is not white space, and valueEnd says where that is. The slot readers read the
 * spans in `line`: b must be it (wasm memory) or is copied there.
 */
export function scanSkeleton(keys: SkeletonKeys, b: Uint8Array, start: number, end: number, prefix = false): number {
  if (b !== wbuf) {
    const at = toWasm(b, start, end);
    if (at < 0) return -1;
    line = wbuf;
    lineStart = at;
    end += at - start;
    start = at;
  }
  const w = wasm as ScanWasm;
  if (keys.tableAt < 0) writeTable(keys);
  const r = w.line(start, end, prefix ? 1 : 0, keys.tableAt);
  // An exported global's value is read through a getter: only a prefix scan needs this one.
  if (prefix && r === 1) valueEnd = w.after.value;
  return r;
}

/** Writes the key table of `keys` into the scanner's memory (scan.wat's slotOf reads it), once. */
function writeTable(keys: SkeletonKeys): void {
  const size = 6 + [...keys.top, ...keys.nested].reduce((n, [k]) => n + 2 + k.length, 0);
  if (tablesEnd + size > TABLES_END) throw new Error("skeleton scanner: too many key lists");
  const at = tablesEnd;
  const b = wbuf;
  b[at] = keys.top.length;
  b[at + 1] = keys.nested.length;
  b[at + 2] = keys.nestedSlot < 0 ? 255 : keys.nestedSlot;
  b[at + 3] = keys.firstNested;
  b[at + 4] = keys.slots;
  b[at + 5] = keys.first;
  let p = at + 6;
  for (const [k, slot] of [...keys.top, ...keys.nested]) {
    if (k.length > 255) throw new Error("skeleton scanner: key too long");
    b[p] = k.length;
    b[p + 1] = slot;
    b.set(k, p + 2);
    p += 2 + k.length;
  }
  tablesEnd = p;
  keys.tableAt = at;
}

/**
 * Scans one line for `keys` (see scanSkeleton), in wasm memory: where the line reader read it (the read region), or
 * copied there. The slot readers below then read the values of this line, until the next scan.
 */
export function scanLine(keys: SkeletonKeys, b: Buffer, start: number, end: number): number {
  const at = toWasm(b, start, end);
  if (at < 0) return -1;
  line = wbuf;
  lineStart = at;
  return scanSkeleton(keys, wbuf, at, at + end - start);
}

/** The buffer of the last scanLine (the scanner's memory), and where in it the line starts. */
let line: Buffer = Buffer.alloc(0);
let lineStart = 0;

/** Where the value in slot s of the last scanLine starts, counted from the start of the line (-1: missing). */
export function slotFrom(s: number): number {
  const from = spanStart[s] as number;
  return from < 0 ? -1 : from - lineStart;
}

/** Where the value in slot s of the last scanLine ends (exclusive), counted from the start of the line. */
export function slotTo(s: number): number {
  return (spanEnd[s] as number) - lineStart;
}

/**
 * Scans the value in slot s of the last scanLine (an object, already known valid) for `keys`, whose slots must lie
 * past the line's: the slot readers then read both. Returns as scanSkeleton does (-1: a key written with escapes).
 */
export function scanSlot(keys: SkeletonKeys, s: number): number {
  return scanSkeleton(keys, line, spanStart[s] as number, spanEnd[s] as number);
}

/** The number in slot s as JSON.parse gives it, or undefined when the value is missing or not a number. */
export function slotNumber(s: number): number | undefined {
  const b = line;
  const from = spanStart[s] as number;
  if (from < 0) return undefined;
  const end = spanEnd[s] as number;
  let i = from;
  let c = b[i] as number;
  const neg = c === 0x2d;
  if (neg) c = b[++i] as number;
  if (c < 0x30 || c > 0x39) return undefined;
  // A plain integer of up to 15 digits is exact in a double: summed here. Anything else (a fraction, an exponent,
  // more digits) is left to JSON.parse, which rounds as it does in a whole line.
  if (end - i <= 15) {
    let v = 0;
    for (; i < end; i++) {
      const d = (b[i] as number) - 0x30;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (i === end) return neg ? -v : v;
  }
  return JSON.parse(b.toString("latin1", from, end)) as number;
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

/** Slot s holds a value that starts with `c` (a quote: a string; `{`: an object; `n`: null). */
export function slotStartsWith(s: number, c: number): boolean {
  const from = spanStart[s] as number;
  return from >= 0 && line[from] === c;
}

/** The string in slot s (known to be a string). */
export function slotString(s: number): string {
  return decodeString(line, s);
}

/** The string in slot s, or undefined when the value is missing or not a string. */
export function slotStr(s: number): string | undefined {
  return slotStartsWith(s, QUOTE) ? decodeString(line, s) : undefined;
}

/** The value in slot s as JSON.parse gives it, or undefined when the key is missing. */
export function slotValue(s: number): unknown {
  const b = line;
  const from = spanStart[s] as number;
  if (from < 0) return undefined;
  const c = b[from] as number;
  if (c === QUOTE) return decodeString(b, s);
  if (c === 0x6e) return null;
  if (c === 0x74) return true;
  if (c === 0x66) return false;
  return JSON.parse(b.toString("utf8", from, spanEnd[s] as number));
}

/** Strings compiled for slotNamed: [bytes, the string]. */
export type Names = readonly (readonly [Uint8Array, string])[];
export function names(list: readonly string[]): Names {
  return list.map((s) => [Buffer.from(s, "latin1"), s] as const);
}

/** A constant from `names` equal to the string in slot s (plain bytes only), else a decoded string. */
export function slotNamed(s: number, list: Names): string {
  const b = line;
  const from = (spanStart[s] as number) + 1;
  const to = (spanEnd[s] as number) - 1;
  for (let i = 0; i < list.length; i++) {
    const n = list[i] as readonly [Uint8Array, string];
    if (matches(b, from, to, n[0])) return n[1];
  }
  return decodeString(b, s);
}

/** `!value` for the value in slot s, without decoding a long string. */
export function slotFalsy(s: number): boolean {
  const b = line;
  const from = spanStart[s] as number;
  if (from < 0) return true;
  const c = b[from] as number;
  if (c === QUOTE) return (spanEnd[s] as number) - from === 2;
  if (c === 0x7b || c === 0x5b || c === 0x74) return false;
  if (c === 0x6e || c === 0x66) return true;
  return !(JSON.parse(b.toString("latin1", from, spanEnd[s] as number)) as number);
}

// Element spans of the last slotElements call.
let elStart = new Int32Array(64);
let elEnd = new Int32Array(64);

/** End (exclusive) of the value starting at p in a line already known to be valid JSON. */
function skipValue(b: Uint8Array, p: number, end: number): number {
  const c = b[p] as number;
  if (c === QUOTE) return scanString(p + 1, end) + 1;
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    while (p < end) {
      const d = b[p] as number;
      if (d === QUOTE) {
        p = scanString(p + 1, end) + 1;
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return p + 1;
      }
      p++;
    }
    return end;
  }
  while (p < end) {
    const d = b[p] as number;
    if (d === 0x2c || d === 0x5d || d === 0x7d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d) break;
    p++;
  }
  return p;
}

/**
 * The elements of the array in slot s of the last scanLine (a line known to be valid): their spans are kept for
 * scanElement and the element readers. Returns how many, or -1 when the value is missing or not an array.
 */
export function slotElements(s: number): number {
  const b = line;
  let p = spanStart[s] as number;
  if (p < 0 || b[p] !== 0x5b) return -1;
  const end = (spanEnd[s] as number) - 1;
  let n = 0;
  p++;
  for (;;) {
    while (p < end && ((b[p] as number) === 0x20 || (b[p] as number) === 0x09 || (b[p] as number) === 0x0a || (b[p] as number) === 0x0d))
      p++;
    if (p >= end) return n;
    const e = skipValue(b, p, end);
    if (n === elStart.length) {
      const s2 = new Int32Array(n * 2);
      s2.set(elStart);
      elStart = s2;
      const e2 = new Int32Array(n * 2);
      e2.set(elEnd);
      elEnd = e2;
    }
    elStart[n] = p;
    elEnd[n] = e;
    n++;
    p = e;
    while (p < end && (b[p] as number) !== 0x2c) p++;
    p++;
  }
}

/** Element i of the last slotElements starts with `c` (`{`: an object). */
export function elementStartsWith(i: number, c: number): boolean {
  return line[elStart[i] as number] === c;
}

/** Scans element i of the last slotElements (an object) for `keys`, as scanSlot scans a slot's value. */
export function scanElement(keys: SkeletonKeys, i: number): number {
  return scanSkeleton(keys, line, elStart[i] as number, elEnd[i] as number);
}

/**
 * The string in slot s (known to be a string), decoded as JSON.parse would, or for a long one a prefix of it that
 * holds at least `units` UTF-16 code units (the first `units` are then those of the whole string): a reader that
 * keeps only the start of a long text need not decode all of it.
 */
export function slotStringPrefix(s: number, units: number): string {
  const b = line;
  const from = (spanStart[s] as number) + 1;
  const to = (spanEnd[s] as number) - 1;
  // No code unit takes more than six bytes (a \uXXXX escape).
  const want = from + units * 6;
  if (to <= want) return decodeString(b, s);
  // Cut after whole escapes and whole UTF-8 sequences.
  let i = from;
  let escaped = false;
  while (i < want) {
    const c = b[i] as number;
    if (c === BACKSLASH) {
      escaped = true;
      i += b[i + 1] === 0x75 ? 6 : 2;
    } else i++;
  }
  while (i < to && ((b[i] as number) & 0xc0) === 0x80) i++;
  if (escaped) return JSON.parse(`${b.toString("utf8", from - 1, i)}"`) as string;
  let ascii = true;
  for (let k = from; k < i; k++) if ((b[k] as number) >= 0x80) ascii = false;
  return b.toString(ascii ? "latin1" : "utf8", from, i);
}

/** The string in slot s (known to be a string) is empty or white space only, as String.prototype.trim sees it. */
export function slotBlank(s: number): boolean {
  const b = line;
  const to = (spanEnd[s] as number) - 1;
  for (let i = (spanStart[s] as number) + 1; i < to; i++) {
    const c = b[i] as number;
    if (c === 0x20) continue;
    // An escape or a non-ASCII character may be white space (a tab, U+00A0, U+2028…): decoded and trimmed.
    if (c === BACKSLASH || c >= 0x80) return decodeString(b, s).trim() === "";
    return false;
  }
  return true;
}

/**
 * The string in slot s (known to be a string) is `str`, written plainly (no escapes; `str` ASCII): a reader can
 * then keep the string it already has instead of decoding a new one (repeated ids, models, names).
 */
export function slotIs(s: number, str: string): boolean {
  const b = line;
  const from = (spanStart[s] as number) + 1;
  const n = str.length;
  if ((spanEnd[s] as number) - 1 - from !== n) return false;
  for (let i = 0; i < n; i++) {
    const c = str.charCodeAt(i);
    if (c !== b[from + i] || c === BACKSLASH || c >= 0x80) return false;
  }
  return true;
}

/** Element i of the last slotElements as JSON.parse gives it. */
export function elementValue(i: number): unknown {
  return JSON.parse(line.toString("utf8", elStart[i] as number, elEnd[i] as number));
}

/** Slot s holds a value (its key was there). */
export function slotPresent(s: number): boolean {
  return (spanStart[s] as number) >= 0;
}

// The elements of an array value being read (itemsOf, nextItem): the next one starts at or after itemAt (after a
// comma unless itemFirst); the array's closing bracket is at itemEnd.
let itemAt = 0;
let itemEnd = 0;
let itemFirst = true;

/** Starts reading the elements of the array in slot s of the last scanLine (known to be an array: a valid line). */
export function itemsOf(s: number): void {
  itemAt = (spanStart[s] as number) + 1;
  itemEnd = (spanEnd[s] as number) - 1;
  itemFirst = true;
}

function skipSpace(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p] as number;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
    p++;
  }
  return p;
}

/**
 * Scans the next element of the array itemsOf named for `keys` (whose slots must lie past the line's: the slot
 * readers then read both the line's values and this element's). Returns 1 when an element was read (an object, every
 * key that matters written plainly), 2 when there are no more, -1 when unsure (an element that is not an object, a
 * key written with escapes), 0 when the bytes are not what a valid array holds.
 */
export function nextItem(keys: SkeletonKeys): number {
  const b = line;
  let p = skipSpace(b, itemAt, itemEnd);
  if (p >= itemEnd) return 2;
  if (!itemFirst) {
    if (b[p] !== 0x2c /* , */) return 0;
    p = skipSpace(b, p + 1, itemEnd);
    if (p >= itemEnd) return 0;
  }
  if (b[p] !== 0x7b /* { */) return -1;
  const r = scanSkeleton(keys, b, p, itemEnd, true);
  if (r !== 1) return r;
  itemAt = valueEnd;
  itemFirst = false;
  return 1;
}

/** The value of the four hex digits at b[i] (known to be hex digits: the scan checked them). */
function hex4(b: Uint8Array, i: number): number {
  let v = 0;
  for (let k = i; k < i + 4; k++) {
    const c = b[k] as number;
    v = (v << 4) | (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
  }
  return v;
}

/**
 * The string in slot s (known to be a string) as JSON.parse would decode it, measured without decoding it:
 * `utf8` false, its length in UTF-16 code units (a JS string's length); true, its UTF-8 bytes as Buffer.byteLength
 * counts them (a lone surrogate, which only an escape can write, as the 3 bytes of U+FFFD).
 */
export function slotStringSize(s: number, utf8: boolean): number {
  const b = line;
  const from = (spanStart[s] as number) + 1;
  const to = (spanEnd[s] as number) - 1;
  const text = b.subarray(from, to);
  // Plain bytes: an escape only ever shortens the text (each counted below as what it stands for).
  let n = utf8 || isAscii(text) ? to - from : text.toString("utf8").length;
  for (let i = text.indexOf(BACKSLASH); i >= 0; i = text.indexOf(BACKSLASH, i)) {
    if (text[i + 1] !== 0x75 /* u */) {
      // \" \\ \/ \b \f \n \r \t: two bytes for one character (one code unit, one byte).
      n -= 1;
      i += 2;
      continue;
    }
    const cu = hex4(text, i + 2);
    i += 6;
    if (!utf8) {
      n -= 5;
      continue;
    }
    if (cu < 0x80) n -= 5;
    else if (cu < 0x800) n -= 4;
    else if (cu >= 0xd800 && cu <= 0xdbff && text[i] === BACKSLASH && text[i + 1] === 0x75) {
      const lo = hex4(text, i + 2);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        // A surrogate pair: twelve bytes of escapes for one four-byte character.
        n -= 8;
        i += 6;
      } else n -= 3;
    } else n -= 3;
  }
  return n;
}

/**
 * Whether the bytes of one JSON value are, as they stand, the UTF-8 of the text JSON.stringify writes for the value
 * JSON.parse reads from them: then they can be written out as they are, with neither call (a long line's message
 * was parsed and serialized again only to learn that). Its text-level reference is test/equivalence/stringify-form-text.ts,
 * with the same rules: no white space, strings escaped only as JSON.stringify escapes (\" \\ \b \f \n \r \t, and
 * \u00xx in lowercase hex for the other control characters), numbers as it prints them, no repeated key, no key
 * starting with a digit (V8 puts array-index keys first). False also for what it does not look into (very deep or
 * wide values): false only costs the slow way.
 *
 * The value must be valid JSON in valid UTF-8 (the skeleton scanner read its line): raw non-ASCII characters are
 * what JSON.stringify writes for them, and valid UTF-8 holds no lone surrogate. Strings are read by the skeleton
 * scanner's string reader (in wasm memory, 16 bytes at a time, for a long value); their escapes are then looked
 * at one backslash at a time.
 */
import { stringClose, stringScanBuffer } from "./skeleton.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Objects with more keys than this, or nesting deeper, are left to the slow way (the check stays linear). */
const MAX_KEYS = 64;
const MAX_DEPTH = 256;
const keyStart = new Int32Array(MAX_KEYS * 8);
const keyEnd = new Int32Array(MAX_KEYS * 8);
const frameIsObject = new Uint8Array(MAX_DEPTH);
const frameKeyBase = new Int32Array(MAX_DEPTH);

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

const BACKSLASH_U = Buffer.from("\\u", "latin1");
const BACKSLASH_SLASH = Buffer.from("\\/", "latin1");

/** Whether the backslash at p starts an escape (an even number of backslashes before it, from `from` on). */
function startsEscape(b: Uint8Array, from: number, p: number): boolean {
  let k = 0;
  while (p - 1 - k >= from && b[p - 1 - k] === BACKSLASH) k++;
  return k % 2 === 0;
}

/**
 * Whether every escape in the valid JSON value `v` is the one JSON.stringify writes for its character. A valid value
 * has escapes only inside strings and only \" \\ \/ \b \f \n \r \t \uXXXX; of those JSON.stringify writes all
 * but \/, and \u only as \u00xx (lowercase hex) for a control character without a short escape. So the value is
 * searched (natively) for the two sequences \/ and \u, not walked escape by escape.
 */
function escapesAsStringify(v: Buffer): boolean {
  for (let p = v.indexOf(BACKSLASH_SLASH); p >= 0; p = v.indexOf(BACKSLASH_SLASH, p + 1)) if (startsEscape(v, 0, p)) return false;
  for (let p = v.indexOf(BACKSLASH_U); p >= 0; p = v.indexOf(BACKSLASH_U, p + 1)) {
    if (!startsEscape(v, 0, p)) continue;
    if (v[p + 2] !== ZERO || v[p + 3] !== ZERO) return false;
    const h = v[p + 4] as number;
    const l = v[p + 5] as number;
    if (h !== 0x30 && h !== 0x31) return false;
    const lo = isDigit(l) ? l - ZERO : l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
    if (lo < 0) return false;
    const c = (h - ZERO) * 16 + lo;
    if (c === 8 || c === 9 || c === 10 || c === 12 || c === 13) return false;
  }
  return true;
}

/** End of the number at `i`, or -1 when it is not as JSON.stringify prints its value (render/json.ts numberEnd). */
function numberEnd(b: Uint8Array, i: number, end: number): number {
  const start = i;
  const neg = b[i] === MINUS;
  if (neg) i++;
  const first = b[i] as number;
  if (!isDigit(first)) return -1;
  i++;
  if (first !== ZERO) while (i < end && isDigit(b[i] as number)) i++;
  const intEnd = i;
  let plain = true;
  let dot = -1;
  if (i < end && b[i] === DOT) {
    plain = false;
    dot = i;
    i++;
    if (!(i < end && isDigit(b[i] as number))) return -1;
    while (i < end && isDigit(b[i] as number)) i++;
  }
  const e = i < end ? (b[i] as number) : 0;
  if (e === 0x65 || e === 0x45) {
    dot = -1;
    plain = false;
    i++;
    const sign = b[i] as number;
    if (sign === 0x2b || sign === MINUS) i++;
    if (!(i < end && isDigit(b[i] as number))) return -1;
    while (i < end && isDigit(b[i] as number)) i++;
  }
  const sign = neg ? 1 : 0;
  if (dot >= 0 && b[i - 1] !== ZERO) {
    // A decimal fraction of at most 15 significant digits, none of them trailing zeros, reads back as itself and
    // prints as written from 1e-6 up (below: exponent form).
    const zeroInt = intEnd - start - sign === 1 && first === ZERO;
    let lead = 0;
    if (zeroInt) while (b[dot + 1 + lead] === ZERO) lead++;
    const significant = zeroInt ? i - dot - 1 - lead : i - start - 1 - sign;
    if (significant <= 15 && lead <= 5) return i;
  }
  const digits = i - start - sign;
  // Integers of up to 15 digits print as written (-0 prints as 0); anything else is compared with its printing.
  if (plain && digits <= 15 && !(digits === 1 && first === ZERO && neg)) return i;
  const text = Buffer.from(b.buffer, b.byteOffset + start, i - start).toString("latin1");
  return String(Number(text)) === text ? i : -1;
}

function startsWith(b: Uint8Array, i: number, end: number, word: readonly number[]): boolean {
  if (i + word.length > end) return false;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false;
  return true;
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

function sameBytes(b: Uint8Array, a: number, c: number, len: number): boolean {
  for (let j = 0; j < len; j++) if (b[a + j] !== b[c + j]) return false;
  return true;
}

/** See the file's comment: whether line bytes b[from, to), one valid JSON value, are in JSON.stringify's form. */
export function isStringifyFormBytes(line: Buffer, from: number, to: number): boolean {
  if (!escapesAsStringify(line.subarray(from, to))) return false;
  // Without wasm nothing is known to be in the form (the caller then writes the value itself).
  const copy = stringScanBuffer(line, from, to);
  if (copy === null) return false;
  const { buf: b, shift } = copy;
  const end = to - shift;
  let i = from - shift;
  let depth = 0;
  let keys = 0;
  // 0: a value is next; 1: after a value; 2: a key is next (after "{" or ",")
  let state = 0;
  for (;;) {
    if (state === 1 && depth === 0) return i === end;
    // Past `end` a wasm copy holds older lines' bytes.
    if (i >= end) return false;
    if (state === 0) {
      const c = b[i] as number;
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (depth === MAX_DEPTH) return false;
        const obj = c === OPEN_BRACE;
        frameIsObject[depth] = obj ? 1 : 0;
        frameKeyBase[depth] = keys;
        depth++;
        i++;
        if (i < end && b[i] === (obj ? CLOSE_BRACE : CLOSE_BRACKET)) {
          i++;
          depth--;
          state = 1;
        } else state = obj ? 2 : 0;
        continue;
      }
      if (c === QUOTE) {
        const close = stringClose(i + 1, end);
        if (close < 0) return false;
        i = close + 1;
      } else if (c === MINUS || isDigit(c)) i = numberEnd(b, i, end);
      else if (c === 0x74) i = startsWith(b, i, end, TRUE) ? i + 4 : -1;
      else if (c === 0x66) i = startsWith(b, i, end, FALSE) ? i + 5 : -1;
      else if (c === 0x6e) i = startsWith(b, i, end, NULL) ? i + 4 : -1;
      else return false;
      if (i < 0) return false;
      state = 1;
    } else if (state === 1) {
      const c = b[i] as number;
      const obj = frameIsObject[depth - 1] === 1;
      if (c === COMMA) {
        i++;
        state = obj ? 2 : 0;
      } else if (c === (obj ? CLOSE_BRACE : CLOSE_BRACKET)) {
        i++;
        depth--;
        if (obj) keys = frameKeyBase[depth] as number;
      } else return false;
    } else {
      if (b[i] !== QUOTE) return false;
      const kFrom = i + 1;
      const close = stringClose(kFrom, end);
      if (close < 0) return false;
      i = close + 1;
      if (b[i] !== COLON) return false;
      if (isDigit(b[kFrom] as number)) return false;
      const base = frameKeyBase[depth - 1] as number;
      if (keys - base >= MAX_KEYS || keys >= keyStart.length) return false;
      const len = close - kFrom;
      for (let k = base; k < keys; k++) {
        const ks = keyStart[k] as number;
        if ((keyEnd[k] as number) - ks === len && sameBytes(b, ks, kFrom, len)) return false;
      }
      keyStart[keys] = kFrom;
      keyEnd[keys] = close;
      keys++;
      i++;
      state = 0;
    }
  }
}

/**
 * The reference for src/io/scan/form.ts (isStringifyFormBytes): the same check on a JSON text, one UTF-16 unit at a
 * time. It shipped beside the byte check (render/json.ts) until #27; only the byte check ships now, and this twin
 * states the rules it must agree with (stringify-form.test.ts).
 */
enum Ch {
  Quote = 0x22,
  Backslash = 0x5c,
  Comma = 0x2c,
  Colon = 0x3a,
  Minus = 0x2d,
  Dot = 0x2e,
  Zero = 0x30,
  Nine = 0x39,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
  OpenBracket = 0x5b,
  CloseBracket = 0x5d,
}

/** Objects with more keys than this, or nesting deeper, are left to the slow way (the check stays linear). */
const MAX_KEYS = 64;
const MAX_DEPTH = 256;
const keyStart = new Int32Array(MAX_KEYS * 8);
const keyEnd = new Int32Array(MAX_KEYS * 8);
const frameIsObject = new Uint8Array(MAX_DEPTH);
const frameKeyBase = new Int32Array(MAX_DEPTH);

function isDigit(c: number): boolean {
  return c >= Ch.Zero && c <= Ch.Nine;
}

function sameChars(s: string, a: number, b: number, len: number): boolean {
  for (let j = 0; j < len; j++) if (s.charCodeAt(a + j) !== s.charCodeAt(b + j)) return false;
  return true;
}

/** End of the string starting with the quote at `i` (past its closing quote), or -1 when not as JSON.stringify writes it. */
function stringEnd(s: string, i: number): number {
  const n = s.length;
  i++;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === Ch.Quote) return i + 1;
    if (c < 0x20) return -1;
    if (c === Ch.Backslash) {
      const e = s.charCodeAt(i + 1);
      // \" \\ \b \f \n \r \t: JSON.stringify's own short escapes.
      if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
        continue;
      }
      // \u00XX (lowercase hex) for a control character without a short escape; any other \u escape is not its form.
      if (e !== 0x75 || s.charCodeAt(i + 2) !== Ch.Zero || s.charCodeAt(i + 3) !== Ch.Zero) return -1;
      const h = s.charCodeAt(i + 4);
      const l = s.charCodeAt(i + 5);
      if (h !== 0x30 && h !== 0x31) return -1;
      const lo = isDigit(l) ? l - Ch.Zero : l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
      if (lo < 0) return -1;
      const v = (h - Ch.Zero) * 16 + lo;
      if (v === 8 || v === 9 || v === 10 || v === 12 || v === 13) return -1;
      i += 6;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      // A surrogate pair stays as it is; a lone surrogate is escaped by JSON.stringify.
      const d = s.charCodeAt(i + 1);
      if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) return -1;
      i += 2;
      continue;
    }
    i++;
  }
  return -1;
}

/** End of the number at `i`, or -1 when it is not JSON or not as JSON.stringify writes its value. */
function numberEnd(s: string, i: number): number {
  const start = i;
  if (s.charCodeAt(i) === Ch.Minus) i++;
  const first = s.charCodeAt(i);
  if (!isDigit(first)) return -1;
  i++;
  if (first !== Ch.Zero) while (isDigit(s.charCodeAt(i))) i++;
  const intEnd = i;
  let plain = true;
  let dot = -1;
  if (s.charCodeAt(i) === Ch.Dot) {
    plain = false;
    dot = i;
    i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  const e = s.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    dot = -1;
    plain = false;
    i++;
    const sign = s.charCodeAt(i);
    if (sign === 0x2b || sign === Ch.Minus) i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  if (dot >= 0 && s.charCodeAt(i - 1) !== Ch.Zero) {
    // A decimal fraction of at most 15 significant digits, none of them trailing zeros, reads back as itself (no
    // other decimal that short names the same double) and prints as written from 1e-6 up (below: exponent form).
    const zeroInt = intEnd - start - (s.charCodeAt(start) === Ch.Minus ? 1 : 0) === 1 && first === Ch.Zero;
    let lead = 0;
    if (zeroInt) while (s.charCodeAt(dot + 1 + lead) === Ch.Zero) lead++;
    const significant = zeroInt ? i - dot - 1 - lead : i - start - 1 - (s.charCodeAt(start) === Ch.Minus ? 1 : 0);
    if (significant <= 15 && lead <= 5) return i;
  }
  const digits = i - start - (s.charCodeAt(start) === Ch.Minus ? 1 : 0);
  // Integers of up to 15 digits print as written (-0 prints as 0); anything else is compared with its printing.
  if (plain && digits <= 15 && !(digits === 1 && first === Ch.Zero && start !== i - 1)) return i;
  const text = s.slice(start, i);
  return String(Number(text)) === text ? i : -1;
}

/**
 * Whether `s` is JSON text exactly as JSON.stringify writes the value JSON.parse reads from it, so that
 * `JSON.stringify(JSON.parse(s)) === s` and the text can be written as it is: no white space, strings escaped as
 * JSON.stringify escapes them, numbers as it prints them, no repeated keys, no key starting with a digit (V8 puts
 * array-index keys first). False also for what it does not look into (very deep or wide values): false only
 * costs the slow way.
 */
export function isStringifyForm(s: string): boolean {
  return scanForm(s, null);
}

/**
 * For text in isStringifyForm's form (null otherwise): where the value of its top-level `key` starts and ends
 * (null too when there is no such key). That part is JSON.stringify's text of that value.
 */
export function stringifyFormMember(s: string, key: string): { start: number; end: number } | null {
  member.start = -1;
  member.end = -1;
  if (!scanForm(s, key) || member.end < 0) return null;
  return { start: member.start, end: member.end };
}

const member = { start: -1, end: -1 };

function scanForm(s: string, key: string | null): boolean {
  const n = s.length;
  // 0: not looking; 1: the key was read, its value is next; 2: in its value
  let want = 0;
  let i = 0;
  let depth = 0;
  let keys = 0;
  // 0: a value is next; 1: after a value; 2: a key is next (after "{" or ",")
  let state = 0;
  for (;;) {
    if (state === 0) {
      if (want === 1) {
        member.start = i;
        want = 2;
      }
      const c = s.charCodeAt(i);
      if (c === Ch.OpenBrace || c === Ch.OpenBracket) {
        if (depth === MAX_DEPTH) return false;
        const obj = c === Ch.OpenBrace;
        frameIsObject[depth] = obj ? 1 : 0;
        frameKeyBase[depth] = keys;
        depth++;
        i++;
        if (s.charCodeAt(i) === (obj ? Ch.CloseBrace : Ch.CloseBracket)) {
          i++;
          depth--;
          state = 1;
        } else state = obj ? 2 : 0;
        continue;
      }
      if (c === Ch.Quote) i = stringEnd(s, i);
      else if (c === Ch.Minus || isDigit(c)) i = numberEnd(s, i);
      else if (c === 0x74) i = s.startsWith("true", i) ? i + 4 : -1;
      else if (c === 0x66) i = s.startsWith("false", i) ? i + 5 : -1;
      else if (c === 0x6e) i = s.startsWith("null", i) ? i + 4 : -1;
      else return false;
      if (i < 0) return false;
      state = 1;
    } else if (state === 1) {
      if (depth === 0) return i === n;
      if (want === 2 && depth === 1) {
        member.end = i;
        want = 0;
      }
      const c = s.charCodeAt(i);
      const obj = frameIsObject[depth - 1] === 1;
      if (c === Ch.Comma) {
        i++;
        state = obj ? 2 : 0;
      } else if (c === (obj ? Ch.CloseBrace : Ch.CloseBracket)) {
        i++;
        depth--;
        if (obj) keys = frameKeyBase[depth] as number;
      } else return false;
    } else {
      if (s.charCodeAt(i) !== Ch.Quote) return false;
      const from = i + 1;
      i = stringEnd(s, i);
      if (i < 0 || s.charCodeAt(i) !== Ch.Colon) return false;
      const to = i - 1;
      if (isDigit(s.charCodeAt(from))) return false;
      const base = frameKeyBase[depth - 1] as number;
      if (keys - base >= MAX_KEYS || keys >= keyStart.length) return false;
      const len = to - from;
      for (let k = base; k < keys; k++) {
        const ks = keyStart[k] as number;
        if ((keyEnd[k] as number) - ks === len && sameChars(s, ks, from, len)) return false;
      }
      if (key !== null && depth === 1 && len === key.length && s.startsWith(key, from)) want = 1;
      keyStart[keys] = from;
      keyEnd[keys] = to;
      keys++;
      i++;
      state = 0;
    }
  }
}

/**
 * A byte-level pre-pass over one JSONL line that lets the loader skip the bulk of long strings (tool outputs,
 * images, file contents) without decoding or parsing them.
 *
 * `condenseLine` lexes the line's bytes, checks every byte it is going to drop exactly as JSON.parse would (no raw
 * control characters, only valid escapes, the string really closes), and returns the line with the tail of each
 * long string cut out. JSON.parse of the result has the same shape, the same keys (duplicates resolved the same
 * way) and the same values as JSON.parse of the whole line, except that long strings are shortened to a prefix of
 * at least KEEP_UNITS UTF-16 code units. What is kept is parsed by JSON.parse itself, so everything outside the
 * dropped bytes (structure, numbers, literals, escapes in the kept prefix) is validated by it.
 *
 * Which strings may be shortened: never a key, never the value of a protected key (or anything nested under one),
 * never a string whose kept prefix could be all white space (so `trim()` tests keep their answer). The index
 * protects the keys it reads whole (FULL_KEYS in src/model/fields.ts) and reads every other string only through a
 * prefix of at most 240 characters.
 *
 * Whenever it is unsure (the line is malformed, a string never closes, a key uses escapes) it returns null and the
 * caller parses the whole line as before, which also gives the exact error message.
 */

/** Keys whose string values are kept whole (with everything nested under them), compiled by protectedKeys. */
export interface ProtectedKeys {
  readonly names: ReadonlySet<string>;
  /** Longest name: a longer key is not one of them. */
  readonly maxLength: number;
}

export function protectedKeys(names: Iterable<string>): ProtectedKeys {
  const set = new Set(names);
  return { names: set, maxLength: [...set].reduce((n, k) => Math.max(n, k.length), 0) };
}

/** Bytes of a string kept when it is cut: at least 256 UTF-16 units even if every character is a \uXXXX escape. */
const KEEP_BYTES = 1536;
/** Strings of at most this many bytes (between the quotes) are never cut. */
export const CUT_MIN_BYTES = 2048;
/** Lines shorter than this are not worth a pre-pass. */
export const CONDENSE_MIN_LINE = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// hex digit lookup: 1 for 0-9, a-f, A-F
const HEX = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) HEX[c] = 1;
for (let c = 0x41; c <= 0x46; c++) HEX[c] = 1;
for (let c = 0x61; c <= 0x66; c++) HEX[c] = 1;

let scratch: Buffer = Buffer.allocUnsafe(1 << 16);
/** Pairs [from, to) of byte ranges to drop, reused between calls. */
let drops: Int32Array = new Int32Array(256);

/**
 * Where to cut the string whose content spans [from, to): the first token boundary at least KEEP_BYTES in that
 * is not inside a UTF-8 sequence or an escape, provided a non-white-space character came before it; -1 for "do not
 * cut". The content is already known to be valid.
 */
function cutPoint(b: Uint8Array, from: number, to: number): number {
  let p = from;
  let nonWs = false;
  const want = from + KEEP_BYTES;
  while (p < to) {
    const c = b[p] as number;
    if (p >= want && (c & 0xc0) !== 0x80) return nonWs && to - p > 16 ? p : -1;
    if (c === BACKSLASH) {
      const e = b[p + 1] as number;
      if (e === 0x75 /* u */) {
        p += 6;
        // conservative: \uXXXX may be white space (U+00A0, U+2028, ...)
      } else {
        // \" \\ \/ \b are not white space; \f \n \r \t are
        if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62) nonWs = true;
        p += 2;
      }
    } else {
      // printable ASCII other than space is never white space; non-ASCII may be (U+3000, U+FEFF, ...)
      if (c > 0x20 && c < 0x7f) nonWs = true;
      p++;
    }
  }
  return -1;
}

function isProtected(keys: ProtectedKeys, b: Uint8Array, from: number, to: number): boolean {
  const len = to - from;
  if (len > keys.maxLength) return false;
  let s = "";
  for (let i = from; i < to; i++) {
    const c = b[i] as number;
    // an escaped or non-ASCII key could spell one of the names: protect its value
    if (c === BACKSLASH || c >= 0x80) return true;
    s += String.fromCharCode(c);
  }
  return keys.names.has(s);
}

/**
 * Returns the line's text with the tails of long strings removed, or null when nothing would be removed or the
 * line needs the ordinary parse (malformed, unusual). `b` holds exactly the line's content bytes, valid UTF-8.
 */
export function condenseLine(b: Uint8Array, keys: ProtectedKeys): string | null {
  const n = b.length;
  let p = 0;
  let depth = 0;
  /** Depth at which a protected container was opened; everything deeper is protected. -1: none. */
  let protAt = -1;
  let pendingProtect = false;
  let nDrops = 0;
  let dropped = 0;
  while (p < n) {
    const c = b[p] as number;
    if (c === QUOTE) {
      const from = p + 1;
      let q = from;
      // The hot loop: most bytes of a session are inside strings.
      for (;;) {
        if (q >= n) return null; // never closes: malformed or truncated
        const d = b[q] as number;
        if (d === QUOTE) break;
        if (d === BACKSLASH) {
          const e = b[q + 1];
          if (e === 0x75 /* u */) {
            if (q + 5 >= n) return null;
            const h =
              (HEX[b[q + 2] as number] as number) &
              (HEX[b[q + 3] as number] as number) &
              (HEX[b[q + 4] as number] as number) &
              (HEX[b[q + 5] as number] as number);
            if (h === 0) return null;
            q += 6;
            continue;
          }
          // " \ / b f n r t
          if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
            q += 2;
            continue;
          }
          return null;
        }
        if (d < 0x20) return null;
        q++;
      }
      // q is the closing quote. A key is followed by ':'.
      let r = q + 1;
      while (r < n) {
        const w = b[r] as number;
        if (w === 0x20 || w === 0x09 || w === 0x0a || w === 0x0d) r++;
        else break;
      }
      if (r < n && b[r] === 0x3a /* : */) {
        pendingProtect = isProtected(keys, b, from, q);
        p = r + 1;
        continue;
      }
      const keep = pendingProtect || protAt >= 0;
      pendingProtect = false;
      if (!keep && q - from > CUT_MIN_BYTES) {
        const cut = cutPoint(b, from, q);
        if (cut >= 0) {
          if (nDrops + 2 > drops.length) {
            const bigger = new Int32Array(drops.length * 2);
            bigger.set(drops);
            drops = bigger;
          }
          drops[nDrops++] = cut;
          drops[nDrops++] = q;
          dropped += q - cut;
        }
      }
      p = q + 1;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (pendingProtect && protAt < 0) protAt = depth;
      pendingProtect = false;
      depth++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      if (depth < 0) return null;
      if (depth === protAt) protAt = -1;
      pendingProtect = false;
    } else if (c !== 0x3a && c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) {
      // ',' numbers, literals, garbage: whatever follows is not the value of the last key
      pendingProtect = false;
    }
    p++;
  }
  if (nDrops === 0) return null;
  const total = n - dropped;
  if (scratch.length < total) scratch = Buffer.allocUnsafe(Math.max(total, scratch.length * 2));
  let at = 0;
  let from = 0;
  for (let i = 0; i < nDrops; i += 2) {
    const cut = drops[i] as number;
    at += copyBytes(b, from, cut, at);
    from = drops[i + 1] as number;
  }
  at += copyBytes(b, from, n, at);
  return scratch.toString("utf8", 0, at);
}

function copyBytes(b: Uint8Array, from: number, to: number, at: number): number {
  scratch.set(b.subarray(from, to), at);
  return to - from;
}

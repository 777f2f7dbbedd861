/**
 * Byte spans of JSON values inside one line, without decoding it: bloat attributes bytes, not characters, and a
 * multi-megabyte base64 string is skipped with one indexOf. The line must be valid JSON (it parsed when loaded).
 *
 * Nothing here allocates per line: bloat's pass over a multi-GB file must stay within the memory of loading it, and
 * short-lived objects per member (key strings, span objects, arrays) grow V8's young generation by 10 MB and more.
 * Members are looked up by key bytes into a reusable table (Keys), names are decoded once and interned.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Strings up to this many bytes are decoded when asked (type, role, toolName…); longer ones are not names. */
const MAX_NAME_BYTES = 512;
/** Interned names at most; a file with more distinct names decodes the rest each time. */
const MAX_INTERNED = 4096;

/**
 * The keys one call site looks for, and where `JsonBytes.pick` found their values: `start(i)`/`end(i)` for the i-th
 * key, start -1 when absent. One table per call site; a pick overwrites the previous one's results.
 */
export class Keys {
  private readonly bytes: Uint8Array[];
  readonly spans: Int32Array;
  constructor(readonly names: readonly string[]) {
    this.bytes = names.map((n) => Buffer.from(n, "utf8"));
    this.spans = new Int32Array(names.length * 2);
  }
  has(i: number): boolean {
    return (this.spans[2 * i] as number) >= 0;
  }
  start(i: number): number {
    return this.spans[2 * i] as number;
  }
  end(i: number): number {
    return this.spans[2 * i + 1] as number;
  }
  /** Which key the escape-free key bytes buf[s, e) are, or -1. */
  indexOf(buf: Buffer, s: number, e: number): number {
    outer: for (let k = 0; k < this.bytes.length; k++) {
      const want = this.bytes[k] as Uint8Array;
      if (want.length !== e - s) continue;
      for (let i = 0; i < want.length; i++) if (buf[s + i] !== want[i]) continue outer;
      return k;
    }
    return -1;
  }
  /** Which key the decoded string is, or -1 (keys written with escapes). */
  indexOfName(name: string): number {
    return this.names.indexOf(name);
  }
}

export class JsonBytes {
  private readonly interned = new Map<number, string>();
  constructor(
    public buf: Buffer,
    public limit: number,
  ) {}

  /** Points at another line (the reader's buffer may have grown since the last one). */
  reset(buf: Buffer, limit: number): void {
    this.buf = buf;
    this.limit = limit;
  }

  skipWs(p: number): number {
    const b = this.buf;
    while (p < this.limit) {
      const c = b[p] as number;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      p++;
    }
    return p;
  }

  /** End (exclusive) of the string whose opening quote is at p. */
  stringEnd(p: number): number {
    const b = this.buf;
    let q = p + 1;
    for (;;) {
      const i = b.indexOf(QUOTE, q);
      if (i === -1 || i >= this.limit) return this.limit;
      let n = 0;
      while (b[i - 1 - n] === BACKSLASH) n++;
      if (n % 2 === 0) return i + 1;
      q = i + 1;
    }
  }

  /** End (exclusive) of the value starting at p (p at its first byte). */
  valueEnd(p: number): number {
    const b = this.buf;
    const c = b[p];
    if (c === QUOTE) return this.stringEnd(p);
    if (c === OPEN_OBJ || c === OPEN_ARR) {
      let depth = 0;
      let q = p;
      while (q < this.limit) {
        const d = b[q] as number;
        if (d === QUOTE) {
          q = this.stringEnd(q);
          continue;
        }
        if (d === OPEN_OBJ || d === OPEN_ARR) depth++;
        else if (d === CLOSE_OBJ || d === CLOSE_ARR) {
          depth--;
          if (depth === 0) return q + 1;
        }
        q++;
      }
      return this.limit;
    }
    let q = p;
    while (q < this.limit) {
      const d = b[q] as number;
      if (d === COMMA || d === CLOSE_OBJ || d === CLOSE_ARR || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d) break;
      q++;
    }
    return q;
  }

  isObject(p: number): boolean {
    return this.buf[p] === OPEN_OBJ;
  }

  isArray(p: number): boolean {
    return this.buf[p] === OPEN_ARR;
  }

  isString(p: number): boolean {
    return this.buf[p] === QUOTE;
  }

  /**
   * Finds the members of the object starting at p whose keys are in `keys` and records their value spans there
   * (the last duplicate key wins, as in JSON.parse).
   */
  pick(p: number, end: number, keys: Keys): void {
    keys.spans.fill(-1);
    const b = this.buf;
    p = this.skipWs(p + 1);
    while (p < end && b[p] === QUOTE) {
      const keyEnd = this.stringEnd(p);
      let escaped = false;
      for (let i = p + 1; i < keyEnd - 1; i++)
        if (b[i] === BACKSLASH) {
          escaped = true;
          break;
        }
      const k = escaped ? keys.indexOfName(this.decode(p, keyEnd) ?? "") : keys.indexOf(b, p + 1, keyEnd - 1);
      p = this.skipWs(keyEnd);
      if (b[p] !== COLON) break;
      p = this.skipWs(p + 1);
      const vEnd = this.valueEnd(p);
      if (k >= 0) {
        keys.spans[2 * k] = p;
        keys.spans[2 * k + 1] = vEnd;
      }
      p = this.skipWs(vEnd);
      if (b[p] !== COMMA) break;
      p = this.skipWs(p + 1);
    }
  }

  /** The first element of the array starting at p, or -1 when it is empty. */
  firstElement(p: number, end: number): number {
    const q = this.skipWs(p + 1);
    return q < end && this.buf[q] !== CLOSE_ARR ? q : -1;
  }

  /** The element after the one ending at elementEnd, or -1 at the end of the array. */
  nextElement(elementEnd: number, end: number): number {
    const q = this.skipWs(elementEnd);
    if (q >= end || this.buf[q] !== COMMA) return -1;
    const r = this.skipWs(q + 1);
    return r < end && this.buf[r] !== CLOSE_ARR ? r : -1;
  }

  /** A short string value decoded (names, types, MIME types); undefined for anything else. Start -1: absent. */
  name(start: number, end: number): string | undefined {
    if (start < 0 || !this.isString(start) || end - start > MAX_NAME_BYTES) return undefined;
    const b = this.buf;
    // Plain ASCII without escapes (nearly every name): looked up by a hash of its bytes, decoded once.
    let h = 0x811c9dc5;
    for (let i = start + 1; i < end - 1; i++) {
      const c = b[i] as number;
      if (c === BACKSLASH || c >= 0x80) return this.decode(start, end);
      h = Math.imul(h ^ c, 0x01000193);
    }
    h = (h ^ (end - start)) >>> 0;
    const hit = this.interned.get(h);
    if (hit !== undefined && hit.length === end - start - 2) {
      let same = true;
      for (let i = 0; i < hit.length; i++)
        if (hit.charCodeAt(i) !== b[start + 1 + i]) {
          same = false;
          break;
        }
      if (same) return hit;
    }
    const s = this.decode(start, end);
    if (s !== undefined && hit === undefined && this.interned.size < MAX_INTERNED) this.interned.set(h, s);
    return s;
  }

  private decode(start: number, end: number): string | undefined {
    try {
      const v: unknown = JSON.parse(this.buf.toString("utf8", start, end));
      return typeof v === "string" ? v : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Decoded size of a base64 string value spanning [start, end) (quotes included), as pi's image blocks hold them. */
export function base64Decoded(buf: Buffer, start: number, end: number): number {
  const len = end - start - 2;
  if (len <= 0) return 0;
  let pad = 0;
  if (buf[end - 2] === 0x3d) pad++;
  if (buf[end - 3] === 0x3d) pad++;
  return Math.max(0, Math.floor((len * 3) / 4) - pad);
}

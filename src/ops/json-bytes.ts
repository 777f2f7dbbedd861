/**
 * Byte spans of JSON values inside one line, without decoding it: bloat attributes bytes, not characters, and a
 * multi-megabyte base64 string is skipped with one indexOf. The line must be valid JSON (it parsed when loaded).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** A value's span [start, end) in the buffer. */
export interface Span {
  start: number;
  end: number;
}

export interface Member extends Span {
  key: string;
}

/** Strings up to this many bytes are decoded when asked (type, role, toolName…); longer ones are not names. */
const MAX_NAME_BYTES = 512;

export class JsonBytes {
  constructor(
    readonly buf: Buffer,
    readonly limit: number,
  ) {}

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

  isObject(s: Span): boolean {
    return this.buf[s.start] === OPEN_OBJ;
  }

  isArray(s: Span): boolean {
    return this.buf[s.start] === OPEN_ARR;
  }

  isString(s: Span): boolean {
    return this.buf[s.start] === QUOTE;
  }

  /** The members of the object spanning s, keys decoded. */
  members(s: Span): Member[] {
    const out: Member[] = [];
    let p = this.skipWs(s.start + 1);
    while (p < s.end && this.buf[p] === QUOTE) {
      const keyEnd = this.stringEnd(p);
      const key = this.decode(p, keyEnd) ?? "";
      p = this.skipWs(keyEnd);
      if (this.buf[p] !== COLON) break;
      p = this.skipWs(p + 1);
      const end = this.valueEnd(p);
      out.push({ key, start: p, end });
      p = this.skipWs(end);
      if (this.buf[p] !== COMMA) break;
      p = this.skipWs(p + 1);
    }
    return out;
  }

  /** The elements of the array spanning s. */
  elements(s: Span): Span[] {
    const out: Span[] = [];
    let p = this.skipWs(s.start + 1);
    while (p < s.end && this.buf[p] !== CLOSE_ARR) {
      const end = this.valueEnd(p);
      out.push({ start: p, end });
      p = this.skipWs(end);
      if (this.buf[p] !== COMMA) break;
      p = this.skipWs(p + 1);
    }
    return out;
  }

  /** A short string value decoded (names, types, MIME types); undefined for anything else. */
  name(s: Span | undefined): string | undefined {
    if (!s || !this.isString(s) || s.end - s.start > MAX_NAME_BYTES) return undefined;
    return this.decode(s.start, s.end);
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

/** Decoded size of a base64 string value spanning s (quotes included), as pi's image blocks hold them. */
export function base64Decoded(buf: Buffer, s: Span): number {
  const len = s.end - s.start - 2;
  if (len <= 0) return 0;
  let pad = 0;
  if (buf[s.end - 2] === 0x3d) pad++;
  if (buf[s.end - 3] === 0x3d) pad++;
  return Math.max(0, Math.floor((len * 3) / 4) - pad);
}

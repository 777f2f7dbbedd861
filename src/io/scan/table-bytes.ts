/**
 * Table rows as CSV bytes (the intermediate DuckDB turns into Parquet: `pisess tables`, `sql`): values written into
 * one reusable buffer as String writes them, with no string per row or field. It knows bytes, not tables: the
 * fleet commands reach it through the store's row writer (src/model/row-bytes.ts) and reports/tables-text.ts,
 * which knows the tables.
 */

/** A row: its values in column order (ops/fleet-rows.ts's Row). */
type Row = readonly (string | number | boolean | null)[];

/** An escape in JSON text, with the low half after it when it is a high surrogate. */
const SURROGATE_ESCAPE = /\\(?:u([dD][89a-fA-F][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?|[^u]|u[0-9a-fA-F]{4})/g;

/**
 * JSON text with each lone surrogate escape (`\ud800` without its other half) as `\ufffd`: the text is valid JSON
 * either way, but DuckDB's JSON functions (and jq 1.6) refuse such an escape. Escapes are read in order, so an escaped
 * backslash before `ud800` is not taken for one.
 */
export function wellFormedJson(text: string): string {
  if (!text.includes("\\u")) return text;
  return text.replace(SURROGATE_ESCAPE, (m, unit: string | undefined, low: string | undefined) => {
    if (unit === undefined) return m;
    const high = /^[dD][89abAB]/.test(unit);
    if (high && low !== undefined) return m;
    return low !== undefined ? "\\ufffd\\ufffd" : "\\ufffd";
  });
}

const NEEDS_QUOTES = /[",\n\r]/;

/** A CSV string field: an empty or special string is quoted (DuckDB reads "" as the empty string). */
function csvString(v: string): string {
  return v === "" || NEEDS_QUOTES.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Spare buffers per table (its index among the tables), to fill again once their bytes are written out (giveBack). */
const spare: ArrayBuffer[][] = [];
/** Spares kept per table, and the largest kept (a huge session's buffer goes back to the GC). */
const SPARE_MAX = 4;
const SPARE_BYTES = 16 * 1024 * 1024;
const FIRST_BYTES = 64 * 1024;

const QUOTE = 0x22;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const CR = 0x0d;
/** The most bytes a number takes as text (String(-1.2345678901234567e-300) is 24 characters). */
const NUMBER_BYTES = 24;

/** Writes the digits of x (an integer in [0, 2^31)) at b[at]; returns the end. */
function digits(b: Buffer, at: number, x: number): number {
  let end = at;
  for (let y = x; y >= 10; y = (y / 10) | 0) end++;
  for (let j = end; j >= at; j--) {
    const q = (x / 10) | 0;
    b[j] = 0x30 + (x - q * 10);
    x = q;
  }
  return end + 1;
}

/** Writes v as String(v) writes it at b[at]; returns the end. Integers are written digit by digit in int32 steps. */
function numberAt(b: Buffer, at: number, v: number): number {
  // One digit (most token counts of a kind a message does not use are 0).
  if (v >= 0 && v < 10 && (v | 0) === v) {
    b[at] = 0x30 + v;
    return at + 1;
  }
  if (Number.isSafeInteger(v)) {
    // -0 is written "0", as String writes it.
    if (v < 0) {
      b[at++] = 0x2d;
      v = -v;
    }
    if (v <= 0x7fffffff) return digits(b, at, v);
    // Below 2^53: the high part is under 2^31, the low eight digits are written with their zeros.
    const hi = Math.floor(v / 1e8);
    at = digits(b, at, hi);
    let lo = v - hi * 1e8;
    for (let j = at + 7; j >= at; j--) {
      const q = (lo / 10) | 0;
      b[j] = 0x30 + (lo - q * 10);
      lo = q;
    }
    return at + 8;
  }
  const at2 = decimalAt(b, at, v);
  if (at2 >= 0) return at2;
  // Exponents, longer fractions, NaN and the infinities: as String writes them.
  return asciiAt(b, at, String(v));
}

const POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000];

/**
 * Writes v (not an integer) when it is a decimal of up to six places under 2^31 (a cost in dollars) and returns the
 * end, else -1. The text is String's: it writes the shortest decimal that reads back as v, and with the fewest places
 * d for which m / 10^d is v (a correctly rounded division of exact doubles), m·10^-d is that decimal. No shorter one
 * also reads back as v: it would lie on a grid ten times coarser, at least 10^-d away, while two decimals that read
 * back as v lie within one unit in the last place of v (under 2^31, below 10^-6).
 */
function decimalAt(b: Buffer, at: number, v: number): number {
  const a = Math.abs(v);
  if (!(a >= 1e-6 && a < 0x7fffffff)) return -1;
  for (let d = 1; d <= 6; d++) {
    const p = POW10[d] as number;
    const m = Math.round(a * p);
    if (m / p !== a) continue;
    if (v < 0) b[at++] = 0x2d;
    const whole = Math.floor(m / p);
    at = digits(b, at, whole);
    b[at++] = 0x2e; // .
    let frac = m - whole * p;
    for (let j = at + d - 1; j >= at; j--) {
      const q = Math.floor(frac / 10);
      b[j] = 0x30 + (frac - q * 10);
      frac = q;
    }
    return at + d;
  }
  return -1;
}

/** Writes `t` (ASCII) at b[at]; returns the end. */
function asciiAt(b: Buffer, at: number, t: string): number {
  for (let k = 0; k < t.length; k++) b[at + k] = t.charCodeAt(k);
  return at + t.length;
}

/**
 * One table's text for a batch, as UTF-8 bytes in a buffer that can move to another thread and come back (pool.ts
 * BufferLoan): filling memory already touched costs far less than filling fresh memory, which every new string of
 * a batch's size (and every copy of one to another thread) is. CSV rows are written into it value by value, with
 * no string per row or field.
 */
export class TableBytes {
  private buf: Buffer;
  length = 0;
  /** Bytes of the longest CSV row written (with its line break): DuckDB's reader must be told (sql.ts selectCsv). */
  longest = 0;
  constructor(
    private readonly table: number,
    /** Which columns hold JSON text (written with lone surrogate escapes as U+FFFD). */
    private readonly jsons: readonly boolean[],
  ) {
    const b = spare[table]?.pop();
    this.buf = b !== undefined ? Buffer.from(b) : Buffer.allocUnsafeSlow(FIRST_BYTES);
  }

  /** The buffer, with room for `n` bytes after `length`. */
  private room(n: number): Buffer {
    const need = this.length + n;
    if (need > this.buf.length) {
      const b = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
      this.buf.copy(b, 0, 0, this.length);
      giveBack(this.table, this.buf.buffer as ArrayBuffer);
      this.buf = b;
    }
    return this.buf;
  }

  add(text: string): void {
    // At most three bytes per UTF-16 code unit.
    this.length += this.room(text.length * 3).write(text, this.length, "utf8");
  }

  /**
   * The first field of the last row (csvRow) and its CSV bytes: the session's file, the same on all its rows. Before
   * the first row: undefined, whose bytes (an empty field) these are.
   */
  private firstValue: unknown = undefined;
  private firstBytes = Buffer.alloc(0);

  /**
   * Adds a row as a CSV line: null an empty field, numbers and booleans as String writes them, a string as csvString
   * quotes it.
   */
  csvRow(row: Row): void {
    const file = row[0];
    if (file !== this.firstValue) {
      this.firstValue = file;
      this.firstBytes = Buffer.from(typeof file === "string" ? csvString(file) : file === null || file === undefined ? "" : String(file));
    }
    const first = this.firstBytes;
    const jsons = this.jsons;
    const start = this.length;
    let b = this.room(first.length + row.length * (NUMBER_BYTES + 1) + 1);
    b.set(first, this.length);
    let at = this.length + first.length;
    for (let i = 1; i < row.length; i++) {
      b[at++] = COMMA;
      let v = row[i];
      if (v === null || v === undefined) continue;
      if (jsons[i] && typeof v === "string") v = wellFormedJson(v);
      if (typeof v === "number") at = numberAt(b, at, v);
      else if (v === true) {
        b[at] = 0x74; // t
        b[at + 1] = 0x72; // r
        b[at + 2] = 0x75; // u
        b[at + 3] = 0x65; // e
        at += 4;
      } else if (v === false) {
        b[at] = 0x66; // f
        b[at + 1] = 0x61; // a
        b[at + 2] = 0x6c; // l
        b[at + 3] = 0x73; // s
        b[at + 4] = 0x65; // e
        at += 5;
      } else {
        // A string: copied code unit by code unit while it is plain ASCII that needs no quotes.
        const n = v.length;
        let k = 0;
        if (n > 0) {
          const need = 3 * n + 2 + (row.length - i) * (NUMBER_BYTES + 1) + 1;
          if (at + need > b.length) {
            this.length = at;
            b = this.room(need);
          }
          for (; k < n; k++) {
            const c = v.charCodeAt(k);
            if (c >= 0x80 || c === QUOTE || c === COMMA || c === NEWLINE || c === CR) break;
            b[at + k] = c;
          }
        }
        if (k === n && n > 0) at += n;
        else {
          const q = csvString(v);
          this.length = at;
          b = this.room(3 * q.length + (row.length - i) * (NUMBER_BYTES + 1) + 1);
          at += b.write(q, at, "utf8");
        }
      }
    }
    b[at++] = NEWLINE;
    this.length = at;
    if (at - start > this.longest) this.longest = at - start;
  }

  /** The buffer (its first `length` bytes are the text). */
  get buffer(): ArrayBuffer {
    return this.buf.buffer as ArrayBuffer;
  }
}

/** Takes back a buffer of `table` (TableBytes.buffer) whose bytes are written out. */
export function giveBack(table: number, b: ArrayBuffer): void {
  spare[table] ??= [];
  const list = spare[table];
  if (list.length < SPARE_MAX && b.byteLength > 0 && b.byteLength <= SPARE_BYTES) list.push(b);
}

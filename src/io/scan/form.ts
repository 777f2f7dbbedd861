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
 * what JSON.stringify writes for them, and valid UTF-8 holds no lone surrogate. The escapes are searched for
 * natively here; the walk through the value is scan.wat's `form`, which leaves to this file only the numbers it
 * cannot tell are printed as written.
 */
import { formScan } from "./skeleton.js";

const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;

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

/** See the file's comment: whether line bytes b[from, to), one valid JSON value, are in JSON.stringify's form. */
export function isStringifyFormBytes(line: Buffer, from: number, to: number): boolean {
  if (!escapesAsStringify(line.subarray(from, to))) return false;
  // Without wasm nothing is known to be in the form (the caller then writes the value itself).
  const scan = formScan(line, from, to);
  if (scan === null) return false;
  // Numbers the scan could not tell print as written: compared with their printing.
  for (const [start, end] of scan.numbers) {
    const text = line.toString("latin1", from + start, from + end);
    if (String(Number(text)) !== text) return false;
  }
  return scan.form;
}

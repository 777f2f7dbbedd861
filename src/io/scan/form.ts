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
 * what JSON.stringify writes for them, and valid UTF-8 holds no lone surrogate. The walk through the value is
 * scan.wat's `form`, which leaves to this file only the numbers it cannot tell are printed as written.
 */
import { formScan } from "./skeleton.js";

/** See the file's comment: whether line bytes b[from, to), one valid JSON value, are in JSON.stringify's form. */
export function isStringifyFormBytes(line: Buffer, from: number, to: number): boolean {
  // Without wasm nothing is known to be in the form (the caller then writes the value itself).
  const scan = formScan(line, from, to);
  if (scan === null) return false;
  if (scan === false) return false;
  // Numbers the scan could not tell print as written: compared with their printing.
  for (let i = 0; i < scan.length; i += 2) {
    const text = line.toString("latin1", from + (scan[i] as number), from + (scan[i + 1] as number));
    if (String(Number(text)) !== text) return false;
  }
  return true;
}

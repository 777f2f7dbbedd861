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
import { formScan, formScanOfLine, lineLatin1 } from "./skeleton.js";

/** See the file's comment: whether line bytes b[from, to), one valid JSON value, are in JSON.stringify's form. */
export function isStringifyFormBytes(line: Buffer, from: number, to: number): boolean {
  return numbersPrintAsWritten(formScan(line, from, to), (a, b) => line.toString("latin1", from + a, from + b));
}

/**
 * isStringifyFormBytes of bytes [from, to) of the line the last scanLine read (a message whose stand-in it just
 * read), scanned where that scan left them: not copied into wasm memory a second time.
 */
export function isScannedValueInStringifyForm(from: number, to: number): boolean {
  return numbersPrintAsWritten(formScanOfLine(from, to), (a, b) => lineLatin1(from + a, from + b));
}

/** The form scan's verdict; numbers it could not tell print as written are compared with their printing. */
function numbersPrintAsWritten(scan: false | readonly number[] | null, text: (a: number, b: number) => string): boolean {
  // Without wasm nothing is known to be in the form (the caller then writes the value itself).
  if (scan === null || scan === false) return false;
  for (let i = 0; i < scan.length; i += 2) {
    const t = text(scan[i] as number, scan[i + 1] as number);
    if (String(Number(t)) !== t) return false;
  }
  return true;
}

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
  return stringifyForm(line, from, to, undefined) !== NOT_FORM;
}

/** The verdicts of stringifyFormBytes. */
export const NOT_FORM = 0;
export const FORM = 1;
/** In the form, and valid UTF-8 holding nothing the JSON output writes otherwise: the bytes go out as they are. */
export const PLAIN_FORM = 2;

const plainOut = { plain: false };

/**
 * isStringifyFormBytes, and of bytes in the form whether they are also plain: valid UTF-8 with no character the
 * JSON output writes as an escape (DEL, C1 and bidirectional controls and marks) and no escape it rewrites (a lone
 * surrogate's): render/sanitize.ts's TerminalFilter leaves their text as it is, so they can be written unread.
 */
export function stringifyFormBytes(line: Buffer, from: number, to: number): typeof NOT_FORM | typeof FORM | typeof PLAIN_FORM {
  return stringifyForm(line, from, to, plainOut);
}

function stringifyForm(
  line: Buffer,
  from: number,
  to: number,
  plain: { plain: boolean } | undefined,
): typeof NOT_FORM | typeof FORM | typeof PLAIN_FORM {
  // Without wasm nothing is known to be in the form (the caller then writes the value itself).
  const scan = formScan(line, from, to, plain);
  if (scan === null || scan === false) return NOT_FORM;
  // Numbers the scan could not tell print as written: compared with their printing.
  for (let i = 0; i < scan.length; i += 2) {
    const text = line.toString("latin1", from + (scan[i] as number), from + (scan[i + 1] as number));
    if (String(Number(text)) !== text) return NOT_FORM;
  }
  return plain?.plain === true ? PLAIN_FORM : FORM;
}

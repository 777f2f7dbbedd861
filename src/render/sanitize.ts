/**
 * The one output filter every byte to stdout and stderr passes. The sanitizers of session strings live in
 * model/sanitize.ts (reports quote session text in their error messages) and are re-exported here for the renderers.
 */
import { multiLine } from "../model/sanitize.js";

export { sanitize, sanitizeLine } from "../model/sanitize.js";

/**
 * What a piece of output is, for the one filter every byte to stdout and stderr passes (TerminalFilter):
 * - `text`: for a terminal. Every control character, the bidirectional controls and marks, and every ESC become
 *   visible escapes as `sanitize` writes them, except the colour sequences pisess's own Style writes (its palette,
 *   only where colour is on for that stream); a lone surrogate becomes U+FFFD.
 * - `json`: JSON or NDJSON text. Its value is kept: a lone surrogate's escape (`\ud800`, which jq 1.6 rejects)
 *   becomes U+FFFD, and DEL, C1 controls and the bidirectional controls and marks (legal raw in a JSON string) are
 *   written as `\u` escapes of themselves. Everything else is JSON.stringify's bytes, line separators included.
 * - `data`: a format whose bytes are the point (CSV, a page, a raw line): only a lone surrogate becomes U+FFFD.
 */
export type OutForm = "text" | "json" | "data";

// ESC with the SGR it may start; the other controls; a lone surrogate of either half.
const TEXT_UNSAFE =
  /\u001b(?:\[[0-9;]*m)?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const TEXT_TEST = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
// A backslash escape (a surrogate's, with the low half that pairs it, or any other) or a character to escape.
const JSON_UNSAFE =
  /\\(?:u([dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?|u([dD][c-fC-F][0-9a-fA-F]{2})|[\s\S])|[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * Whether JSON text may hold a surrogate's escape (`\uD8..`–`\uDF..`): found with indexOf, several times faster than
 * the same test in a regular expression on output of hundreds of megabytes.
 */
function mayHoldSurrogateEscape(s: string): boolean {
  for (let at = s.indexOf("\\u"); at >= 0; at = s.indexOf("\\u", at + 2)) {
    const d = s.charCodeAt(at + 2) | 0x20;
    const e = s.charCodeAt(at + 3) | 0x20;
    if (d === 0x64 && (e === 0x38 || e === 0x39 || (e >= 0x61 && e <= 0x66))) return true;
  }
  return false;
}
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The longest tail that may be the start of an SGR sequence or an escape cut off by the end of a chunk. */
const TAIL = 16;

interface WellFormed {
  isWellFormed(): boolean;
}

function isWellFormed(s: string): boolean {
  return (s as unknown as WellFormed).isWellFormed();
}

/**
 * The filter between pisess and a terminal (or pipe): `push` each chunk, `end` once. It holds back a tail that may be
 * cut off in the middle of something it must see whole (an SGR sequence, a surrogate pair, a JSON escape), so a
 * chunk boundary never lets one through. `replaced` counts the lone surrogates it wrote as U+FFFD.
 */
export class TerminalFilter {
  replaced = 0;
  private carry = "";
  constructor(
    private readonly form: OutForm,
    /** The exact SGR sequences let through in text (pisess's own Style's palette; empty when colour is off). */
    private readonly palette: ReadonlySet<string> = new Set(),
  ) {}

  push(chunk: string): string {
    const s = this.carry + chunk;
    this.carry = "";
    return this.form === "json" ? this.json(s, false) : this.plain(s, false);
  }

  end(): string {
    const s = this.carry;
    this.carry = "";
    if (s === "") return "";
    return this.form === "json" ? this.json(s, true) : this.plain(s, true);
  }

  private plain(s: string, final: boolean): string {
    let cut = s.length;
    if (!final) {
      const esc = s.lastIndexOf("\u001b");
      if (esc >= 0 && s.length - esc <= TAIL && /^\u001b(?:\[[0-9;]*)?$/.test(s.slice(esc))) cut = esc;
      const last = s.charCodeAt(cut - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut--;
      if (cut < s.length) {
        this.carry = s.slice(cut);
        s = s.slice(0, cut);
      }
    }
    if (this.form === "data") return isWellFormed(s) ? s : s.replace(LONE, () => this.lone());
    if (!TEXT_TEST.test(s) && !s.includes("\u001b") && isWellFormed(s)) return s;
    return s.replace(TEXT_UNSAFE, (m) => {
      if (m.length > 1 && m.charCodeAt(0) === 0x1b) return this.palette.has(m) ? m : `\\x1b${m.slice(1)}`;
      const code = m.charCodeAt(0);
      if (code >= 0xd800 && code <= 0xdfff) return this.lone();
      return multiLine(m);
    });
  }

  private json(s: string, final: boolean): string {
    const backslashNearEnd = !final && s.lastIndexOf("\\") >= s.length - TAIL;
    if (!backslashNearEnd && !JSON_RAW.test(s) && !mayHoldSurrogateEscape(s)) return s;
    let out = "";
    let last = 0;
    JSON_UNSAFE.lastIndex = 0;
    for (let m = JSON_UNSAFE.exec(s); m !== null; m = JSON_UNSAFE.exec(s)) {
      const text = m[0];
      if (!final && text.charCodeAt(0) === 0x5c && m.index >= s.length - TAIL) {
        this.carry = s.slice(m.index);
        return out + s.slice(last, m.index);
      }
      out += s.slice(last, m.index);
      last = JSON_UNSAFE.lastIndex;
      if (text.charCodeAt(0) !== 0x5c) out += `\\u${text.charCodeAt(0).toString(16).padStart(4, "0")}`;
      else if ((m[1] !== undefined && m[2] === undefined) || m[3] !== undefined) out += this.lone();
      else out += text;
    }
    // A backslash no escape followed: the chunk ends inside an escape.
    if (!final && s.endsWith("\\") && last < s.length) {
      this.carry = s.slice(s.length - 1);
      return out + s.slice(last, s.length - 1);
    }
    return out + s.slice(last);
  }

  private lone(): string {
    this.replaced++;
    return "\ufffd";
  }
}

/** One piece of text for a terminal, whole (a stderr line): as TerminalFilter's `text` form writes it. */
export function terminalText(text: string, palette?: ReadonlySet<string>): string {
  const f = new TerminalFilter("text", palette);
  return f.push(text) + f.end();
}

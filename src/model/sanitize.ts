/**
 * Session content is untrusted: an escape sequence inside a tool output could move the cursor, retitle the
 * terminal or hide text. Every string from a session passes through here before it reaches a terminal. Here, below
 * the reports, because a report's error message quotes session text too (render/sanitize.ts re-exports these and
 * holds the output filter).
 */

// C0 controls except tab and newline, DEL, C1 controls, the bidirectional controls (Trojan Source) and marks
// (U+200E, U+200F, U+061C: they reorder what follows them too), and the Unicode line and paragraph separators
// (terminals disagree on what they do).
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
const UNSAFE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

function escapeOf(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

function oneLine(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code === 0x0a || code === 0x0d || code === 0x09 || code === 0x2028 || code === 0x2029) return " ";
  return escapeOf(ch);
}

/** The visible form of one unsafe character in multi-line text (sanitize; the output filter shares it). */
export function multiLine(ch: string): string {
  const code = ch.charCodeAt(0);
  // A carriage return (CRLF output) would move the cursor back over the line: a space shows where it was.
  if (code === 0x0d) return " ";
  if (code === 0x2028 || code === 0x2029) return "\n";
  return escapeOf(ch);
}

/**
 * Multi-line text: keeps newlines and tabs, turns a carriage return into a space and the Unicode line separators
 * into newlines, shows every other control character as a visible escape.
 */
export function sanitize(text: string): string {
  return text.replace(UNSAFE, multiLine);
}

/** One-line text: line breaks and tabs become spaces, runs of white space collapse, controls become escapes. */
export function sanitizeLine(text: string): string {
  return text.replace(UNSAFE_ONE_LINE, oneLine).replace(/ {2,}/g, " ").trim();
}

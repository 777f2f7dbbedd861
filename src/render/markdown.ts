import { sanitize, sanitizeLine } from "./sanitize.js";

/**
 * The one Markdown writer of pisess (context --format markdown, export --format markdown). Session text is data:
 * rendered, it must never become HTML, a link or an image. Multi-line text goes into fences (raw HTML, links and
 * emphasis stay text there); one-line text is escaped for where it stands: in Markdown (`cell`), in a code span
 * (`inlineCode`) or inside an HTML block such as `<summary>`, where backslash escapes do not count (`htmlText`).
 */

/** A code fence longer than any backtick run inside, so session text cannot close it early. */
export function fence(text: string, info = ""): string {
  const t = sanitize(text);
  let longest = 2;
  for (const m of t.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = "`".repeat(longest + 1);
  return `${f}${info}\n${t}\n${f}`;
}

/** One line as a code span, its delimiters longer than any backtick run inside. */
export function inlineCode(text: string): string {
  const t = sanitizeLine(text);
  let longest = 0;
  for (const m of t.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = "`".repeat(longest + 1);
  return longest > 0 || t.startsWith("`") || t.endsWith("`") ? `${f} ${t} ${f}` : `${f}${t}${f}`;
}

/**
 * One line of Markdown text (a table cell, a heading, a title): every character that could start markup (HTML,
 * a link or image, emphasis, a code span, an entity, a table's pipe, a heading) is backslash-escaped. "!" needs
 * none: an image needs the "[" after it.
 */
export function cell(text: string): string {
  return sanitizeLine(text).replace(/[\\|*_`<>[\]#&~]/g, (c) => `\\${c}`);
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** One line inside an HTML block (`<summary>…</summary>`), where Markdown's escapes do not apply: entities. */
export function htmlText(text: string): string {
  return sanitizeLine(text).replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

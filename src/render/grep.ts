import type { GrepHit } from "../ops/grep.js";
import { sanitize } from "./sanitize.js";
import type { Style } from "./style.js";

/** One-line form of session text for a terminal: controls escaped, line breaks and tabs shown as spaces. */
function oneLine(s: string): string {
  return sanitize(s).replace(/[\n\r\t\u2028\u2029]/g, " ");
}

/** `file:line:id: snippet`, the match highlighted when colour is on. */
export function grepTextLine(file: string, hit: GrepHit, style: Style): string {
  const pre = hit.snippet.slice(0, hit.matchStart);
  const match = hit.snippet.slice(hit.matchStart, hit.matchEnd);
  const post = hit.snippet.slice(hit.matchEnd);
  return `${style.accent(oneLine(file))}:${style.dim(String(hit.line))}:${hit.id === null ? "(no id)" : oneLine(hit.id)}:${editNote(hit, style)} ${oneLine(pre)}${style.error(style.bold(oneLine(match)))}${oneLine(post)}\n`;
}

/** Which version of the content matched, where edits are involved: " (edit of @12)", " (edited by @14, @20)". */
function editNote(hit: GrepHit, style: Style): string {
  if (hit.version === "edited") return style.dim(` (edit of ${hit.target ? `@${hit.target.line}` : "a missing entry"})`);
  if (hit.editedBy)
    return style.dim(` (recorded; edited by ${hit.editedBy.map((e) => `@${e.line}${e.removes ? " (removed)" : ""}`).join(", ")})`);
  return "";
}

/** The `--ndjson` object (and the items of `--json`'s "hits"). */
export function grepHitObject(file: string, hit: GrepHit): Record<string, unknown> {
  const o: Record<string, unknown> = { file, line: hit.line, id: hit.id, role: hit.role, type: hit.type, field: hit.field, path: hit.path };
  o.version = hit.version;
  if (hit.target !== undefined) o.target = hit.target;
  if (hit.editedBy) o.editedBy = hit.editedBy;
  o.snippet = hit.snippet;
  return o;
}

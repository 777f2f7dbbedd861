import type { GrepHit } from "../ops/grep.js";
import { sanitize } from "./sanitize.js";
import type { Style } from "./style.js";

/** One-line form of session text for a terminal: controls escaped, line breaks and tabs shown as spaces. */
function oneLine(s: string): string {
  return sanitize(s).replace(/[\n\r\t\u2028\u2029]/g, " ");
}

/** `file:line:id: snippet`, the match highlighted when colour is on. */
function grepTextLine(file: string, hit: GrepHit, style: Style): string {
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

/** One `grep --ndjson` line (and one item of `grep --json`'s "hits"). */
export interface GrepHitJson {
  file: string;
  line: number;
  id: string | null;
  role: string | null;
  type: string;
  field: GrepHit["field"];
  path: number;
  version: GrepHit["version"];
  target?: GrepHit["target"];
  editedBy?: GrepHit["editedBy"];
  snippet: string;
}

/** `grep --json`. */
export interface GrepJson {
  hits: GrepHitJson[];
}

/** The `--ndjson` object (and the items of `--json`'s "hits"). */
function grepHitObject(file: string, hit: GrepHit): GrepHitJson {
  // Key order is the output's: target and editedBy (when there are) come before the snippet.
  return {
    file,
    line: hit.line,
    id: hit.id,
    role: hit.role,
    type: hit.type,
    field: hit.field,
    path: hit.path,
    version: hit.version,
    ...(hit.target !== undefined ? { target: hit.target } : {}),
    ...(hit.editedBy ? { editedBy: hit.editedBy } : {}),
    snippet: hit.snippet,
  };
}

/**
 * grep's stdout, written file by file as the report gives them: `head`, one chunk per file, `tail`. Text is one
 * `file:line:id: snippet` line per hit; `--json` one document {"hits":[…]}; `--ndjson` one hit object per line.
 */
export class GrepOutput {
  private first = true;

  constructor(
    private readonly format: "text" | "json" | "ndjson",
    private readonly style: Style,
  ) {}

  head(): string {
    return this.format === "json" ? '{"hits":[' : "";
  }

  file(file: string, hits: readonly GrepHit[]): string {
    let out = "";
    for (const hit of hits) {
      if (this.format === "json") {
        out += (this.first ? "" : ",") + JSON.stringify(grepHitObject(file, hit));
        this.first = false;
      } else if (this.format === "ndjson") out += `${JSON.stringify(grepHitObject(file, hit))}\n`;
      else out += grepTextLine(file, hit, this.style);
    }
    return out;
  }

  tail(): string {
    return this.format === "json" ? "]}\n" : "";
  }
}

import type { FileResult, ValidateSummary } from "../check/summary.js";
import type { Diagnostic } from "../model/types.js";
import { formatMessage } from "./diagnostics.js";
import { openArrayMember } from "./json.js";
import { CHUNK_CHARS } from "./chunks.js";

/** A finding as JSON: fixed key order, optional keys left out. Messages are plain text, not sanitized. */
function diagJson(d: Diagnostic, withFile: boolean): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (withFile) o.file = d.file;
  o.code = d.code;
  o.severity = d.severity;
  o.line = d.line;
  if (d.column !== undefined) o.column = d.column;
  if (d.entryId !== undefined) o.entryId = d.entryId;
  o.message = formatMessage(d);
  o.args = d.args;
  return o;
}

/** `--format json`: one document {"files":[{"file","diagnostics":[…]}],"summary":{…}}, written in chunks. */
export function* validateJson(results: readonly FileResult[], summary: ValidateSummary): Generator<string> {
  let s = '{"files":[';
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as FileResult;
    const head: Record<string, unknown> = { file: r.file };
    if (r.ioError !== undefined) head.error = r.ioError;
    s += (i > 0 ? "," : "") + openArrayMember(JSON.stringify(head), "diagnostics");
    for (let j = 0; j < r.diagnostics.length; j++) {
      s += (j > 0 ? "," : "") + JSON.stringify(diagJson(r.diagnostics[j] as Diagnostic, false));
      if (s.length > CHUNK_CHARS) {
        yield s;
        s = "";
      }
    }
    s += "]}";
  }
  yield `${s}],"summary":${JSON.stringify(summary)}}\n`;
}

/** `--format ndjson`: one finding per line, each with its file. */
export function* validateNdjson(results: readonly FileResult[]): Generator<string> {
  for (const r of results) {
    let s = "";
    for (const d of r.diagnostics) {
      s += `${JSON.stringify(diagJson(d, true))}\n`;
      if (s.length > CHUNK_CHARS) {
        yield s;
        s = "";
      }
    }
    if (s) yield s;
  }
}

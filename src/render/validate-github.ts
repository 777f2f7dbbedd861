import type { FileResult } from "../check/summary.js";
import type { Diagnostic, Severity } from "../model/types.js";
import { formatMessage } from "./diagnostics.js";

const COMMAND: Record<Severity, string> = { error: "error", warning: "warning", info: "notice" };

/** Workflow command data: %, CR and LF are escaped (GitHub Actions' escapeData). */
function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Workflow command property values: as data, plus ":" and "," (escapeProperty). */
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

function annotation(file: string, d: Diagnostic): string {
  const props = [`file=${escapeProperty(file)}`];
  if (d.line !== null) props.push(`line=${d.line}`);
  if (d.line !== null && d.column !== undefined) props.push(`col=${d.column}`);
  props.push(`title=${escapeProperty(d.code)}`);
  return `::${COMMAND[d.severity]} ${props.join(",")}::${escapeData(formatMessage(d))}\n`;
}

/** `--format github`: one GitHub Actions annotation per finding (info becomes a notice). */
export function* validateGithub(results: readonly FileResult[]): Generator<string> {
  for (const r of results) {
    let s = "";
    for (const d of r.diagnostics) s += annotation(r.file, d);
    if (s) yield s;
  }
}

import { createRequire } from "node:module";
import type Table from "cli-table3";
import type { FileResult, ValidateSummary } from "../check/summary.js";
import type { Diagnostic, Severity } from "../model/types.js";
import { formatMessage } from "./diagnostics.js";
import { problemWords } from "./problems.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

function location(file: string, d: Diagnostic): string {
  if (d.line === null) return file;
  return d.column === undefined ? `${file}:${d.line}` : `${file}:${d.line}:${d.column}`;
}

function paint(style: Style, severity: Severity, s: string): string {
  return severity === "error" ? style.error(s) : severity === "warning" ? style.warning(s) : style.info(s);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `path:line:col  severity  CODE  message`, one line per finding, files separated by a blank line. */
export function* validateFindingLines(results: readonly FileResult[], style: Style): Generator<string> {
  let first = true;
  for (const r of results) {
    if (r.diagnostics.length === 0) continue;
    if (!first) yield "";
    first = false;
    const file = sanitizeLine(r.file);
    const locs = r.diagnostics.map((d) => location(file, d));
    // Widths by reduce: a file's findings can be more than a spread's arguments fit on the stack.
    const locWidth = locs.reduce((w, l) => Math.max(w, l.length), 0);
    const codeWidth = r.diagnostics.reduce((w, d) => Math.max(w, d.code.length), 0);
    for (let i = 0; i < r.diagnostics.length; i++) {
      const d = r.diagnostics[i] as Diagnostic;
      const loc = (locs[i] as string).padEnd(locWidth);
      const sev = paint(style, d.severity, d.severity.padEnd(7));
      yield `${loc}  ${sev}  ${style.bold(d.code.padEnd(codeWidth))}  ${formatMessage(d)}`;
    }
  }
}

// cli-table3 loads when a summary table is drawn: the JSON, SARIF and GitHub formats never draw one.
const load = createRequire(import.meta.url);

const PLAIN_TABLE = { head: [] as string[], border: [] as string[], compact: true };

/** The closing summary: counts per code and per file (cli-table3), then one line of totals. */
export function* validateSummaryLines(
  summary: ValidateSummary,
  style: Style,
  hidden: { warning: number; info: number } = { warning: 0, info: 0 },
): Generator<string> {
  const total = summary.error + summary.warning + summary.info;
  const checked = plural(summary.files, "file");
  // --quiet: the findings left out are counted, never passed off as "no problems".
  const left = [...(hidden.warning > 0 ? [plural(hidden.warning, "warning")] : []), ...(hidden.info > 0 ? [`${hidden.info} info`] : [])];
  const quiet = left.length > 0 ? ` (${left.join(", ")} not shown: --quiet)` : "";
  if (total === 0 && quiet) {
    yield summary.ioErrors > 0 ? `no errors in the files read${quiet}` : `${checked} checked: no errors${quiet}`;
    return;
  }
  if (total === 0) {
    const read = summary.files - summary.ioErrors;
    const unread = `${plural(summary.ioErrors, "input")} could not be read`;
    if (summary.ioErrors === 0) yield `${checked} checked: no problems`;
    else if (read === 0) yield `no session file was read (${unread})`;
    else yield `${plural(read, "file")} read: no problems found (${unread})`;
    return;
  }
  const byCode = new (load("cli-table3") as typeof Table)({
    head: ["code", "severity", "count", "files"].map((h) => style.bold(h)),
    style: PLAIN_TABLE,
    colAligns: ["left", "left", "right", "right"],
  });
  for (const c of summary.byCode) byCode.push([c.code, paint(style, c.severity, c.severity), String(c.count), String(c.files)]);
  yield "";
  yield* byCode.toString().split("\n");
  const byFile = new (load("cli-table3") as typeof Table)({
    head: ["file", "errors", "warnings", "info"].map((h) => style.bold(h)),
    style: PLAIN_TABLE,
    colAligns: ["left", "right", "right", "right"],
  });
  for (const f of summary.byFile) {
    if (f.ioError !== undefined) byFile.push([sanitizeLine(f.file), { colSpan: 3, content: style.error(sanitizeLine(f.ioError)) }]);
    else byFile.push([sanitizeLine(f.file), String(f.error), String(f.warning), String(f.info)]);
  }
  yield "";
  yield* byFile.toString().split("\n");
  yield "";
  const words = problemWords(summary, (severity, s) => paint(style, severity, s));
  yield `${words} in ${summary.filesWithFindings} of ${checked}${quiet}`;
}

/** `validate`'s text output: the findings, then the summary. */
export function validateText(
  results: readonly FileResult[],
  summary: ValidateSummary,
  style: Style,
  hidden: { warning: number; info: number } = { warning: 0, info: 0 },
): string {
  return `${[...validateFindingLines(results, style), ...validateSummaryLines(summary, style, hidden)].join("\n")}\n`;
}

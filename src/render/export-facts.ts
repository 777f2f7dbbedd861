import type { ExportFacts } from "../reports/export.js";
import type { RedactFacts } from "../reports/redact.js";
import { fmtCost, fmtInt, fmtTime, fmtTotals, kindLabel } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";

/** The header facts of an export, as label/value pairs (sanitized, one line each): Markdown and HTML show the same. */
export function factRows(f: ExportFacts): [string, string][] {
  const i = f.info;
  const rows: [string, string][] = [];
  rows.push(["file", sanitizeLine(i.file)]);
  rows.push(["name", i.name === null ? "(none)" : sanitizeLine(i.name)]);
  rows.push(["id", sanitizeLine(i.header?.id ?? "?")]);
  rows.push(["cwd", sanitizeLine(i.header?.cwd ?? "?")]);
  if (i.header?.parentSession) rows.push(["parent session", sanitizeLine(i.header.parentSession)]);
  rows.push(["created", i.header?.created ? fmtTime(i.header.created) : "?"]);
  rows.push(["modified", f.modified === null ? "?" : fmtTime(f.modified)]);
  rows.push(["features seen", f.features.map(sanitizeLine).join(", ")]);
  rows.push(["models", i.modelsUsed.map((m) => sanitizeLine(`${m.provider}/${m.model}`)).join(", ") || "(none)"]);
  rows.push(["tokens", fmtTotals(i.totals)]);
  for (const k of i.byKind) rows.push([`  ${kindLabel(k)}`, `${fmtInt(k.entries)} × ${fmtTotals(k)}`]);
  rows.push(["cost", fmtCost(i.totals.cost)]);
  rows.push(["entries", fmtInt(i.entries)]);
  rows.push(["leaves", fmtInt(i.leaves.length)]);
  rows.push(["compactions", fmtInt(i.compactions.length)]);
  rows.push(["problems", f.problems.length === 0 ? "none" : f.problems.map((p) => `${p.code} ×${p.count} (${p.severity})`).join(", ")]);
  return rows;
}

/**
 * The HTML page's note on what it left out: strings longer than `limit` characters were cut, in up to `entries`
 * entries (those with lines that long). None when nothing can have been cut.
 */
export function bodyLimitRows(entries: number, limit: number): [string, string][] {
  if (entries === 0 || limit <= 0) return [];
  const kib = `${fmtInt(limit / 1024)} KiB`;
  return [
    [
      "not embedded",
      `strings over ${kib} cut to ${kib} (in up to ${fmtInt(entries)} ${entries === 1 ? "entry" : "entries"}); ` +
        "pisess export --body-limit 0 embeds everything, pisess show FILE @LINE prints one entry whole",
    ],
  ];
}

/** `export --redact`: how many values were masked, by which rules. */
export function redactRows(r: RedactFacts): [string, string][] {
  const by = r.byRule.map((x) => `${sanitizeLine(x.rule)} ×${fmtInt(x.count)}`).join(", ");
  return [["redacted", r.masked === 0 ? "nothing found to mask" : `${fmtInt(r.masked)} masked as [REDACTED:rule] (${by})`]];
}

import type { LabelChange, LabelRow } from "../reports/labels.js";
import { fmtTime, makeTable, tableText } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

export function labelsJson(file: string, key: "labels" | "history", rows: unknown[]): string {
  return `${JSON.stringify({ file, [key]: rows })}\n`;
}

export function labelsNdjson(rows: unknown[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join("");
}

export function labelsText(rows: LabelRow[], style: Style): string {
  if (rows.length === 0) return `${style.dim("no labels")}\n`;
  const t = makeTable(
    ["label", "target", "line", "type", "set on line", "set at"].map((h) => style.bold(h)),
    ["left", "left", "right", "left", "right", "left"],
  );
  for (const r of rows) {
    t.push([
      style.label(sanitizeLine(r.label)),
      sanitizeLine(r.targetId),
      r.targetLine === null ? style.warning("missing") : String(r.targetLine),
      r.targetType === null ? "-" : sanitizeLine(r.targetType + (r.targetRole !== null ? `/${r.targetRole}` : "")),
      r.setBy ? String(r.setBy.line) : "-",
      r.setBy ? fmtTime(r.setBy.timestamp) : "-",
    ]);
  }
  return `${tableText(t)}\n`;
}

export function labelHistoryText(rows: LabelChange[], style: Style): string {
  if (rows.length === 0) return `${style.dim("no label entries")}\n`;
  const t = makeTable(
    ["line", "time", "target", "target line", "change", ""].map((h) => style.bold(h)),
    ["right", "left", "left", "right", "left", "left"],
  );
  for (const r of rows) {
    t.push([
      String(r.line),
      fmtTime(r.timestamp),
      r.targetId === null ? style.warning("(none)") : sanitizeLine(r.targetId),
      r.targetLine === null ? style.warning("missing") : String(r.targetLine),
      r.label === null ? style.dim("cleared") : style.label(sanitizeLine(r.label)),
      r.current ? "current" : "",
    ]);
  }
  return `${tableText(t)}\n`;
}

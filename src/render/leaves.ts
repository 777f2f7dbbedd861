import type { LeafRow } from "../reports/leaves.js";
import { fmtCost, fmtInt, fmtOtherKinds, fmtTime, hasOtherKinds, makeTable, tableText } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { fitWidth } from "./width.js";

export function leavesJson(file: string, rows: LeafRow[]): string {
  return `${JSON.stringify({ file, leaves: rows })}\n`;
}

export function leavesNdjson(rows: LeafRow[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join("");
}

export function leavesText(rows: LeafRow[], style: Style, promptWidth = 50): string {
  const other = rows.some((r) => hasOtherKinds(r.ownByKind));
  const t = makeTable(
    [
      "leaf",
      "line",
      "depth",
      "last activity",
      "labels",
      "own in/out",
      "own cost",
      ...(other ? ["own cost outside turns"] : []),
      "last prompt",
    ].map((h) => style.bold(h)),
    ["left", "right", "right", "left", "left", "right", "right", ...(other ? ["left" as const] : []), "left"],
  );
  for (const r of rows) {
    t.push([
      (r.id === null ? "(no id)" : sanitizeLine(r.id)) + (r.isDefault ? style.accent(" ◆") : "") + (r.cycle ? style.error(" [cycle]") : ""),
      String(r.line),
      String(r.depth),
      fmtTime(r.timestamp),
      r.labels.map((l) => style.label(fitWidth(sanitizeLine(l.label), 24))).join(", "),
      `${fmtInt(r.ownTotals.input)} / ${fmtInt(r.ownTotals.output)}`,
      fmtCost(r.ownTotals.cost),
      ...(other ? [fmtOtherKinds(r.ownByKind)] : []),
      r.lastUserPrompt ? fitWidth(sanitizeLine(r.lastUserPrompt.text), promptWidth) : style.dim("-"),
    ]);
  }
  return (
    tableText(t) +
    "\n" +
    style.dim(`${rows.length} lea${rows.length === 1 ? "f" : "ves"}; ◆ = default leaf (pi opens it); own = after the last fork point`) +
    "\n"
  );
}

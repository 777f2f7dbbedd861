import type { TableName } from "../ops/fleet-tables.js";
import { fmtInt, makeTable, tableText } from "./info-format.js";
import type { Style } from "./style.js";

/** What `pisess tables` wrote: each file and its row count. */
export function tablesText(files: readonly string[], rows: Record<TableName, number>, style: Style): string {
  const t = makeTable([style.bold("file"), style.bold("rows")], ["left", "right"]);
  const counts = Object.values(rows);
  files.forEach((f, i) => {
    t.push([f, fmtInt(counts[i] ?? 0)]);
  });
  return `${tableText(t)}\n`;
}

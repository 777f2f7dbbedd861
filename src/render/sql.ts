import type { SqlValue } from "../ops/fleet-tables.js";
import { makeTable, tableText } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

function cell(v: SqlValue): string {
  if (v === null) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

function rowObject(columns: readonly string[], row: readonly SqlValue[]): Record<string, SqlValue> {
  const o: Record<string, SqlValue> = {};
  columns.forEach((c, i) => {
    o[c] = row[i] ?? null;
  });
  return o;
}

export function sqlText(columns: readonly string[], types: readonly string[], rows: readonly SqlValue[][], style: Style): string {
  const numeric = types.map((t) => /INT|DOUBLE|FLOAT|DECIMAL|REAL/.test(t));
  const t = makeTable(
    columns.map((c) => style.bold(sanitizeLine(c))),
    numeric.map((n) => (n ? "right" : "left")),
  );
  for (const r of rows) t.push(r.map((v) => sanitizeLine(cell(v))));
  return `${tableText(t)}\n`;
}

export function sqlJson(columns: readonly string[], rows: readonly SqlValue[][]): string {
  return `${JSON.stringify({ columns, rows: rows.map((r) => rowObject(columns, r)) }, null, 2)}\n`;
}

export function sqlNdjson(columns: readonly string[], rows: readonly SqlValue[][]): string {
  return rows.map((r) => `${JSON.stringify(rowObject(columns, r))}\n`).join("");
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled; NULL is an empty field. */
function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function sqlCsv(columns: readonly string[], rows: readonly SqlValue[][]): string {
  const lines = [columns.map(csvField).join(","), ...rows.map((r) => r.map((v) => csvField(cell(v))).join(","))];
  return `${lines.join("\r\n")}\r\n`;
}

import type { SqlValue } from "../ops/fleet-tables.js";
import { makeTable, tableText } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { alignedLines, columnWidths } from "./text-table.js";

/**
 * `pisess sql`'s outputs, written as the rows come (reports/sql.ts sqlStream): `start` before the first rows, `rows`
 * for each chunk, `end` after the last. Each returns the text to write then (possibly empty).
 */
export interface SqlWriter {
  start(): string;
  rows(rows: readonly SqlValue[][]): string;
  end(): string;
}

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

/**
 * Rows the text table holds before it writes any: a result of up to this many rows is laid out whole, as before; a
 * longer one keeps the column widths of its first rows (a later, wider cell pushes the rest of its line right), so
 * memory stays bounded whatever the result's length. --csv, --ndjson and --json stream exactly.
 */
export const SQL_TEXT_ROWS = 10_000;

/** A table of text; see SQL_TEXT_ROWS. */
export function sqlTextWriter(columns: readonly string[], types: readonly string[], style: Style): SqlWriter {
  const aligns = types.map((t) => (/INT|DOUBLE|FLOAT|DECIMAL|REAL/.test(t) ? "right" : "left") as "right" | "left");
  const head = columns.map((c) => style.bold(sanitizeLine(c)));
  let held: string[][] | undefined = [];
  let widths: number[] = [];
  const cells = (rows: readonly SqlValue[][]) => rows.map((r) => r.map((v) => sanitizeLine(cell(v))));
  return {
    start: () => "",
    rows(rows) {
      if (held === undefined) return `${alignedLines(aligns, cells(rows), widths).join("\n")}\n`;
      for (const r of cells(rows)) held.push(r);
      if (held.length <= SQL_TEXT_ROWS) return "";
      // Too many to hold: the widths of what is held, from here on.
      const all = [head, ...held];
      held = undefined;
      widths = columnWidths(all);
      return `${alignedLines(aligns, all, widths).join("\n")}\n`;
    },
    end() {
      if (held === undefined) return "";
      const t = makeTable(head, aligns);
      for (const r of held) t.push(r);
      return `${tableText(t)}\n`;
    },
  };
}

/**
 * How each row object is laid out: its keys in the order JSON.stringify takes them from rowObject (integer-like
 * names first, a repeated name where it first appears, with its last value), each with its value's column.
 */
function objectLayout(columns: readonly string[]): { key: string; at: number }[] {
  const index = new Map<string, number>();
  columns.forEach((c, i) => {
    index.set(c, i);
  });
  return Object.keys(rowObject(columns, [])).map((key) => ({ key, at: index.get(key) as number }));
}

/**
 * `{"columns":[…],"rows":[{…}]}`, byte for byte as JSON.stringify(…, null, 2) writes it, a row at a time: each row
 * object is written at its depth, and a nested value indented by its own (JSON text holds no raw line break but
 * those of its layout).
 */
export function sqlJsonWriter(columns: readonly string[]): SqlWriter {
  let first = true;
  const cols = JSON.stringify({ columns }, null, 2);
  const layout = objectLayout(columns);
  const prefixes = layout.map((k, j) => `${j === 0 ? "" : ","}\n      ${JSON.stringify(k.key)}: `);
  const value = (v: SqlValue | undefined): string =>
    v === null || v === undefined
      ? "null"
      : typeof v === "object"
        ? JSON.stringify(v, null, 2).replace(/\n/g, "\n      ")
        : JSON.stringify(v);
  return {
    // Without its closing "\n}": the rows follow.
    start: () => `${cols.slice(0, -2)},\n  "rows": [`,
    rows(rows) {
      const out: string[] = [];
      for (const r of rows) {
        out.push(first ? "\n    {" : ",\n    {");
        first = false;
        if (layout.length === 0) {
          out.push("}");
          continue;
        }
        for (let j = 0; j < layout.length; j++) out.push(prefixes[j] as string, value(r[(layout[j] as { at: number }).at]));
        out.push("\n    }");
      }
      return out.join("");
    },
    end: () => (first ? "]\n}\n" : "\n  ]\n}\n"),
  };
}

export function sqlNdjsonWriter(columns: readonly string[]): SqlWriter {
  return {
    start: () => "",
    rows: (rows) => rows.map((r) => `${JSON.stringify(rowObject(columns, r))}\n`).join(""),
    end: () => "",
  };
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled; NULL is an empty field. */
function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV with a header line, CRLF line ends. */
export function sqlCsvWriter(columns: readonly string[]): SqlWriter {
  return {
    start: () => `${columns.map(csvField).join(",")}\r\n`,
    rows: (rows) => rows.map((r) => `${r.map((v) => csvField(cell(v))).join(",")}\r\n`).join(""),
    end: () => "",
  };
}

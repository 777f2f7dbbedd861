import type { LsRow } from "../reports/ls.js";
import { basename, relative } from "node:path";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { fmtBytes, fmtCost, fmtInt, fmtTime, makeTable, tableText } from "./info-format.js";
import { fitSegments, fitWidth, type Segment, stringWidth } from "./width.js";

export function lsJson(rows: LsRow[]): string {
  return `${JSON.stringify({ sessions: rows })}\n`;
}

export function lsNdjson(rows: LsRow[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join("");
}

export interface LsTextOptions {
  showCwd: boolean;
  nameWidth?: number;
  relativeTo?: string;
  /** Columns to fit the table in (a terminal's width); undefined: no limit. */
  width?: number;
}

/** One cell: its plain text, its colour, and (the title) a suffix that is never cut. */
interface Cell {
  text: string;
  color: (s: string) => string;
  suffix?: [text: string, color: (s: string) => string];
}

/** Columns between cells, as the table draws them. */
const GAP = 2;

/**
 * The columns that give way, in this order, when the table is wider than the terminal, and how narrow each may
 * get: the file path and the fork parent's name (each keeping its end, where names differ), then the title, then the
 * cwd (keeping its end).
 */
const SHRINK: readonly [head: string, min: number, keep: "start" | "end"][] = [
  ["file", 12, "end"],
  ["fork of", 8, "end"],
  ["name / first prompt", 16, "start"],
  ["cwd", 12, "end"],
];

export function lsText(rows: LsRow[], style: Style, opts: LsTextOptions): string {
  if (rows.length === 0) return "";
  const head = ["modified", "name / first prompt", "entries", "leaves", "cost", "size", "ver", "fork of", "file"];
  if (opts.showCwd) head.splice(1, 0, "cwd");
  const aligns: ("left" | "right")[] = ["left", "left", "right", "right", "right", "right", "right", "left", "left"];
  if (opts.showCwd) aligns.splice(1, 0, "left");
  const width = opts.nameWidth ?? 48;
  const plain = (text: string): Cell => ({ text, color: (x) => x });
  const cells = rows.map((r) => {
    const title: Cell =
      r.name !== undefined
        ? plain(fitWidth(sanitizeLine(r.name), width))
        : r.firstMessage !== undefined
          ? { text: fitWidth(sanitizeLine(r.firstMessage), width), color: style.dim }
          : { text: "(no prompt)", color: style.dim };
    if (r.problems > 0) title.suffix = [` !${r.problems}`, style.warning];
    const row: Cell[] = [
      plain(fmtTime(Date.parse(r.modified))),
      title,
      plain(fmtInt(r.entries)),
      plain(fmtInt(r.leaves)),
      plain(fmtCost(r.totals.cost)),
      plain(fmtBytes(r.bytes)),
      plain(String(r.version)),
      plain(r.parentSession !== undefined ? sanitizeLine(basename(r.parentSession)) : ""),
      plain(sanitizeLine(opts.relativeTo !== undefined ? relative(opts.relativeTo, r.path) : r.path)),
    ];
    if (opts.showCwd) row.splice(1, 0, plain(sanitizeLine(r.cwd ?? "?")));
    return row;
  });
  const widths = columnWidths(head, cells);
  if (opts.width === undefined || tableWidth(widths) <= opts.width) {
    const t = makeTable(
      head.map((h) => style.bold(h)),
      aligns,
    );
    for (const row of cells) t.push(row.map((c) => c.color(c.text) + (c.suffix ? c.suffix[1](c.suffix[0]) : "")));
    return `${tableText(t)}\n`;
  }
  shrinkColumns(head, cells, widths, opts.width);
  const lines = [head.map((h): Cell => ({ text: h, color: style.bold })), ...cells].map((row) =>
    fitSegments(lineSegments(row, widths, aligns), opts.width).replace(/\s+$/, ""),
  );
  return `${lines.join("\n")}\n`;
}

function cellWidth(c: Cell): number {
  return stringWidth(c.text) + (c.suffix ? stringWidth(c.suffix[0]) : 0);
}

function columnWidths(head: readonly string[], cells: readonly Cell[][]): number[] {
  const widths = head.map((h) => stringWidth(h));
  for (const row of cells) for (let i = 0; i < row.length; i++) widths[i] = Math.max(widths[i] as number, cellWidth(row[i] as Cell));
  return widths;
}

function tableWidth(widths: readonly number[]): number {
  return widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
}

/** Narrows the SHRINK columns, in order, until the table fits `max` columns or each is at its least. */
function shrinkColumns(head: readonly string[], cells: Cell[][], widths: number[], max: number): void {
  for (const [name, min, keep] of SHRINK) {
    const excess = tableWidth(widths) - max;
    if (excess <= 0) return;
    const i = head.indexOf(name);
    if (i < 0) continue;
    const w = Math.max(min, stringWidth(name), (widths[i] as number) - excess);
    if (w >= (widths[i] as number)) continue;
    widths[i] = w;
    for (const row of cells) {
      const c = row[i] as Cell;
      const room = w - (c.suffix ? stringWidth(c.suffix[0]) : 0);
      c.text = keep === "end" ? fitEnd(c.text, room) : fitWidth(c.text, room);
    }
  }
}

/** Cuts plain text to `max` columns keeping its end, "…" first when cut: a path's file name, a name's suffix. */
function fitEnd(text: string, max: number): string {
  if (stringWidth(text) <= max) return text;
  if (max <= 0) return "";
  const parts = [...new Intl.Segmenter().segment(text)].map((s) => s.segment);
  let out = "";
  let used = 0;
  for (let j = parts.length - 1; j >= 0; j--) {
    const w = stringWidth(parts[j] as string);
    if (used + w > max - 1) break;
    out = (parts[j] as string) + out;
    used += w;
  }
  return `…${out}`;
}

/** A row as the segments of one line: each cell padded to its column's width, GAP columns between cells. */
function lineSegments(row: readonly Cell[], widths: readonly number[], aligns: readonly ("left" | "right")[]): Segment[] {
  const none = (x: string): string => x;
  const out: Segment[] = [];
  for (let i = 0; i < row.length; i++) {
    const c = row[i] as Cell;
    const pad = " ".repeat(Math.max(0, (widths[i] as number) - cellWidth(c)));
    if (i > 0) out.push([" ".repeat(GAP), none]);
    if (aligns[i] === "right") out.push([pad, none]);
    out.push([c.text, c.color]);
    if (c.suffix) out.push([c.suffix[0], c.suffix[1]]);
    if (aligns[i] !== "right") out.push([pad, none]);
  }
  return out;
}

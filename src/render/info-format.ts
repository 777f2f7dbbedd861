import { createRequire } from "node:module";
import type Table from "cli-table3";
import type { KindTotals, SpendKind, Totals } from "../ops/totals.js";
import { sanitizeLine } from "./sanitize.js";

/** Shared formatting for the "at a glance" commands (ls, info, leaves, labels, lineage). UTC everywhere. */

/** "2025-01-02 09:37:18Z" from an ISO string or ms; "?" for anything unparsable. */
export function fmtTime(t: unknown): string {
  const ms = typeof t === "number" ? t : typeof t === "string" ? new Date(t).getTime() : NaN;
  if (!Number.isFinite(ms)) return typeof t === "string" ? `? (${t.slice(0, 40)})` : "?";
  return new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
}

/** Integer with thousands separators (",", locale independent). */
export function fmtInt(n: number): string {
  const s = String(Math.round(n));
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function fmtCost(x: number): string {
  return `$${x.toFixed(4)}`;
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

export function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m ${String(sec).padStart(2, "0")}s`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}

/** "in 1,234 · out 567 · cache r 8,900 / w 12 · $0.1234"; "w 12 (1h 12)" where some cache write was one-hour. */
export function fmtTotals(t: Totals): string {
  const w1h = t.cacheWrite1h > 0 ? ` (1h ${fmtInt(t.cacheWrite1h)})` : "";
  return `in ${fmtInt(t.input)} · out ${fmtInt(t.output)} · cache r ${fmtInt(t.cacheRead)} / w ${fmtInt(t.cacheWrite)}${w1h} · ${fmtCost(t.cost)}`;
}

/** A kind of spend as the tables name it: the source as in --json, a usage entry as "usage:KIND". Sanitized. */
export function kindLabel(k: SpendKind): string {
  if (k.source !== "usage") return k.source;
  return k.kind === null ? "usage" : `usage:${sanitizeLine(k.kind)}`;
}

/** The spend other than assistant turns, for one table cell: "compaction $0.0560, usage:cache_warm $0.0034". */
export function fmtOtherKinds(rows: KindTotals[]): string {
  return rows
    .filter((r) => r.source !== "assistant")
    .map((r) => `${kindLabel(r)} ${fmtCost(r.cost)}`)
    .join(", ");
}

/** Whether any row records spend other than assistant turns. */
export function hasOtherKinds(rows: KindTotals[]): boolean {
  return rows.some((r) => r.source !== "assistant");
}

const load = createRequire(import.meta.url);

/** A table of text cells, filled row by row and turned into text by `tableText`. */
export interface TextTable {
  push(...rows: string[][]): number;
  toString(): string;
}

/**
 * Past this many rows a table is laid out here rather than by cli-table3, whose layout takes time quadratic in the
 * rows (20,000 leaves: minutes). Below it cli-table3 draws the table as it always has; above it the same layout is
 * computed with cli-table3's own width and padding rules, column widths once (test/tables-big.test.ts compares both).
 */
export const BIG_TABLE_ROWS = 1000;

type Align = "left" | "right";

class BorderlessTable implements TextTable {
  private readonly rows: string[][] = [];
  constructor(
    private readonly head: string[],
    private readonly aligns: Align[] | undefined,
  ) {}

  push(...rows: string[][]): number {
    for (const r of rows) this.rows.push(r);
    return this.rows.length;
  }

  toString(): string {
    return this.rows.length > BIG_TABLE_ROWS && plainShape(this.head, this.rows)
      ? alignedLayout(this.head, this.aligns, this.rows)
      : cliTable3Layout(this.head, this.aligns, this.rows);
  }
}

/** One line per cell, as many cells as headings: the only shape the plain layout takes on. */
function plainShape(head: readonly string[], rows: readonly (readonly string[])[]): boolean {
  const oneLine = (c: unknown) => typeof c === "string" && !c.includes("\n");
  return head.every(oneLine) && rows.every((r) => r.length === head.length && r.every(oneLine));
}

/** The table drawn by cli-table3: no borders, left padding 0, right padding 2. */
export function cliTable3Layout(head: string[], aligns: Align[] | undefined, rows: readonly string[][]): string {
  // Loaded on first use: JSON output never draws a table.
  const Cli3 = load("cli-table3") as typeof Table;
  const t = new Cli3({
    head,
    style: { head: [], border: [], "padding-left": 0, "padding-right": 2, compact: true },
    chars: {
      top: "",
      "top-mid": "",
      "top-left": "",
      "top-right": "",
      bottom: "",
      "bottom-mid": "",
      "bottom-left": "",
      "bottom-right": "",
      left: "",
      "left-mid": "",
      mid: "",
      "mid-mid": "",
      right: "",
      "right-mid": "",
      middle: "",
    },
    ...(aligns ? { colAligns: aligns } : {}),
  });
  for (const r of rows) t.push(r);
  return t.toString();
}

/**
 * cliTable3Layout's output for a table of one-line cells, in time linear in the cells: widths measured once with
 * cli-table3's own measure (colour codes left out, wide characters counted twice), each cell padded to its column.
 */
export function alignedLayout(head: readonly string[], aligns: readonly Align[] | undefined, rows: readonly (readonly string[])[]): string {
  const { strlen } = load("cli-table3/src/utils") as { strlen(s: string): number };
  const all = [head, ...rows];
  const widths = head.map(() => 0);
  const lens = all.map((r) =>
    r.map((c, i) => {
      const w = strlen(c);
      if (w > (widths[i] as number)) widths[i] = w;
      return w;
    }),
  );
  const out: string[] = [];
  for (let j = 0; j < all.length; j++) {
    const r = all[j] as readonly string[];
    const l = lens[j] as number[];
    let line = "";
    for (let i = 0; i < r.length; i++) {
      const gap = " ".repeat((widths[i] as number) - (l[i] as number));
      line += aligns?.[i] === "right" ? `${gap}${r[i]}  ` : `${r[i]}${gap}  `;
    }
    out.push(line);
  }
  return out.join("\n");
}

/** A borderless-looking table without colour codes of its own (colour comes from the Style). */
export function makeTable(head: string[], aligns?: Align[]): TextTable {
  return new BorderlessTable(head, aligns);
}

/** Table text without trailing spaces on each line. */
export function tableText(t: TextTable): string {
  return t
    .toString()
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n");
}

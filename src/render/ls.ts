import { basename, relative } from "node:path";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import type { KindTotals, Totals } from "../ops/totals.js";
import { fmtBytes, fmtCost, fmtInt, fmtTime, makeTable, tableText } from "./info-format.js";
import { fitWidth } from "./width.js";

/** One row of `pisess ls`, exactly as `--json` / `--ndjson` print it (optional keys left out when absent). */
export interface LsRow {
  path: string;
  id: string;
  cwd: string | null;
  name?: string;
  firstMessage?: string;
  /** Header timestamp as found (ISO), or null. */
  created: string | null;
  /** File mtime, ISO in UTC. */
  modified: string;
  entries: number;
  leaves: number;
  bytes: number;
  version: number;
  parentSession?: string;
  /** Loader findings of severity warning or error (run `pisess validate` for details). */
  problems: number;
  /** Tokens and cost of every entry that records spend, as `info` counts them (fork copies left out). */
  totals: Totals;
  /** totals by kind of spend. */
  byKind: KindTotals[];
}

export function lsJson(rows: LsRow[]): string {
  return `${JSON.stringify({ sessions: rows })}\n`;
}

export function lsNdjson(rows: LsRow[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join("");
}

export function lsText(rows: LsRow[], style: Style, opts: { showCwd: boolean; nameWidth?: number; relativeTo?: string }): string {
  if (rows.length === 0) return "";
  const head = ["modified", "name / first prompt", "entries", "leaves", "cost", "size", "ver", "fork of", "file"];
  if (opts.showCwd) head.splice(1, 0, "cwd");
  const aligns: ("left" | "right")[] = ["left", "left", "right", "right", "right", "right", "right", "left", "left"];
  if (opts.showCwd) aligns.splice(1, 0, "left");
  const t = makeTable(
    head.map((h) => style.bold(h)),
    aligns,
  );
  const width = opts.nameWidth ?? 48;
  for (const r of rows) {
    const title =
      r.name !== undefined
        ? sanitizeLine(r.name)
        : r.firstMessage !== undefined
          ? style.dim(fitWidth(sanitizeLine(r.firstMessage), width))
          : style.dim("(no prompt)");
    const problems = r.problems > 0 ? style.warning(` !${r.problems}`) : "";
    const row: string[] = [
      fmtTime(Date.parse(r.modified)),
      (r.name !== undefined ? fitWidth(title, width) : title) + problems,
      fmtInt(r.entries),
      fmtInt(r.leaves),
      fmtCost(r.totals.cost),
      fmtBytes(r.bytes),
      String(r.version),
      r.parentSession !== undefined ? sanitizeLine(basename(r.parentSession)) : "",
      sanitizeLine(opts.relativeTo !== undefined ? relative(opts.relativeTo, r.path) : r.path),
    ];
    if (opts.showCwd) row.splice(1, 0, sanitizeLine(r.cwd ?? "?"));
    t.push(row);
  }
  return `${tableText(t)}\n`;
}

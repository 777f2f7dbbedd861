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

export { makeTable, tableText } from "./text-table.js";

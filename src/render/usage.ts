import type { DamageNote } from "../ops/fleet-files.js";
import type { GroupKey, UsageRow, UsageSums } from "../ops/fleet-usage.js";
import { fmtCost, fmtInt, makeTable, tableText } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

const NUMS: readonly (keyof UsageSums)[] = [
  "input",
  "output",
  "cacheRead",
  "cacheWrite",
  "cacheWrite1h",
  "totalTokens",
  "cost",
  "summaryCost",
  "sessions",
  "turns",
];

function sums(s: UsageSums): Record<string, number> {
  const o: Record<string, number> = {};
  for (const k of NUMS) o[k] = s[k];
  return o;
}

/** A row as --json and --ndjson write it: the group keys named as in --by, then the sums, then the breakdown. */
function usageRowObject(by: readonly GroupKey[], row: UsageRow): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const k of by) o[k] = row.keys[k] ?? null;
  Object.assign(o, sums(row));
  if (row.models) o.models = row.models.map((m) => ({ model: m.model, ...sums(m) }));
  return o;
}

export function usageJson(by: readonly GroupKey[], rows: UsageRow[], totals: UsageSums): string {
  return `${JSON.stringify({ by, rows: rows.map((r) => usageRowObject(by, r)), totals: sums(totals) }, null, 2)}\n`;
}

export function usageNdjson(by: readonly GroupKey[], rows: UsageRow[]): string {
  return rows.map((r) => `${JSON.stringify(usageRowObject(by, r))}\n`).join("");
}

const HEAD = ["input", "output", "cache read", "cache write", "total", "cost", "of it summaries", "sessions", "turns"];

function cells(s: UsageSums, with1h: boolean): string[] {
  const w = with1h && s.cacheWrite1h > 0 ? `${fmtInt(s.cacheWrite)} (1h ${fmtInt(s.cacheWrite1h)})` : fmtInt(s.cacheWrite);
  return [
    fmtInt(s.input),
    fmtInt(s.output),
    fmtInt(s.cacheRead),
    w,
    fmtInt(s.totalTokens),
    fmtCost(s.cost),
    fmtCost(s.summaryCost),
    String(s.sessions),
    String(s.turns),
  ];
}

/** The table: one line per row (its models indented below it with --breakdown), then the totals. */
export function usageText(by: readonly GroupKey[], rows: UsageRow[], totals: UsageSums, style: Style): string {
  const with1h = totals.cacheWrite1h > 0;
  const keyHead = by.length > 0 ? by : ["all"];
  const t = makeTable(
    [...keyHead, ...HEAD].map((h) => style.bold(h)),
    [...keyHead.map(() => "left" as const), ...HEAD.map(() => "right" as const)],
  );
  const last = keyHead.length - 1;
  for (const r of rows) {
    t.push([...(by.length > 0 ? by.map((k) => sanitizeLine(r.keys[k] ?? "?")) : ["all"]), ...cells(r, with1h)]);
    for (const m of r.models ?? [])
      t.push([...keyHead.map((_, i) => (i === last ? style.dim(`  ${sanitizeLine(m.model)}`) : "")), ...cells(m, with1h)]);
  }
  if (by.length > 0) t.push([style.bold("total"), ...by.slice(1).map(() => ""), ...cells(totals, with1h)]);
  return `${tableText(t)}\n`;
}

/**
 * The stderr notes of a fleet run (usage, tables, sql): a missing sessions folder, unreadable files, damaged files,
 * files skipped as ones pisess does not read (model/readable.ts). Session paths are escaped: they reach a terminal.
 */
export function fleetNoteLines(d: {
  missingRoot?: string | undefined;
  failures: readonly { path: string; reason: string }[];
  damage: readonly DamageNote[];
  skipped?: readonly string[];
}): string[] {
  const out: string[] = [];
  if (d.missingRoot !== undefined) out.push(`pisess: no sessions folder ${sanitizeLine(d.missingRoot)}\n`);
  for (const f of d.failures) out.push(`pisess: ${sanitizeLine(f.path)}: ${sanitizeLine(f.reason)}\n`);
  for (const n of d.damage) out.push(damageLine(n));
  const skipped = d.skipped?.length ?? 0;
  if (skipped > 0)
    out.push(
      `pisess: skipped ${skipped} file${skipped === 1 ? "" : "s"} pisess does not read (not a pi session, another format or a newer version; pisess validate says which)\n`,
    );
  return out;
}

/** One stderr line per damaged file and code. */
function damageLine(n: DamageNote): string {
  const at = n.firstLine !== null ? ` (first at line ${n.firstLine})` : "";
  return `pisess: ${sanitizeLine(n.file)}: ${n.count}× ${n.code}${at}; counted every readable line\n`;
}

import type { BudgetCompactNow, BudgetPathRow, BudgetReport } from "../reports/budget.js";
import { partLabel } from "./budget-labels.js";
import { makeTable, tableText } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

const BAR = 24;

function bar(fraction: number): string {
  const eighths = Math.round(Math.max(0, Math.min(1, fraction)) * BAR * 8);
  const rest = eighths % 8;
  return "█".repeat(Math.floor(eighths / 8)) + (rest > 0 ? (" ▏▎▍▌▋▊▉"[rest] ?? "") : "");
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

function table(title: string, head: string[], rows: string[][], aligns: ("left" | "right")[], style: Style): string {
  const t = makeTable(
    head.map((h) => style.bold(h)),
    aligns,
  );
  for (const r of rows) t.push(r);
  return `${style.bold(title)}\n${tableText(t)}\n`;
}

const ref = (r: { line: number; id: string | null }) => `line ${r.line}${r.id === null ? "" : ` (${sanitizeLine(r.id)})`}`;

function billedText(d: BudgetReport): string {
  const b = d.billed;
  if (b === null) return "  No assistant turn with usage follows the leaf (--path compares every turn on the path with its bill).\n";
  const others = b.others > 0 ? ` (${b.others} more on other branches)` : "";
  return (
    `  The request made at the leaf: the assistant turn at ${ref(b.turn)}, its first child by file order${others}.\n` +
    `  billed ${b.billed} (input ${b.input} + cacheRead ${b.cacheRead} + cacheWrite ${b.cacheWrite}), estimated ${b.estimate}: ` +
    `ratio ${b.ratio === null ? "-" : b.ratio.toFixed(3)}\n`
  );
}

const WHY_NOT: Record<Extract<BudgetCompactNow, { possible: false }>["reason"], string> = {
  "leaf-is-compaction": "the leaf is a compaction: pi compacts nothing right after one",
  "nothing-to-summarize": "nothing before the cut to summarise",
  "first-kept-without-id": "the entry the cut falls on has no id",
  empty: "the session has no entries",
};

function compactText(d: BudgetReport): string {
  const k = d.keepRecentTokens;
  const from = k.from === "default" ? "pi's default" : k.from === "--keep-recent" ? "--keep-recent" : `from ${sanitizeLine(k.from)}`;
  const c = d.compactNow;
  const head = `  keepRecentTokens ${k.value} (${from}).\n`;
  if (!c.possible) return `${head}  Compacting here would do nothing: ${WHY_NOT[c.reason]}.\n`;
  const split = c.turnStart === null ? "" : ` (cutting the turn that starts at ${ref(c.turnStart)} in two)`;
  return (
    head +
    `  A compaction now would keep ${c.keptTokens} tokens from ${ref(c.firstKept)} on${split}, ` +
    `and summarise ${c.summarizedTokens}.\n`
  );
}

function pathTable(rows: BudgetPathRow[], style: Style): string {
  const out = rows.map((r) =>
    r.kind === "turn"
      ? [
          String(r.line),
          "assistant",
          r.parentLine === null ? "-" : String(r.parentLine),
          String(r.estimate),
          r.billed === null ? "-" : String(r.billed),
          r.ratio === null ? "-" : r.ratio.toFixed(3),
        ]
      : [String(r.line), "compaction", "", String(r.estimate), r.tokensBefore === null ? "-" : `(before ${r.tokensBefore})`, ""],
  );
  return table(
    "Along the path (estimate of the context each request held, beside its bill)",
    ["line", "entry", "at", "estimate", "billed", "ratio"],
    out,
    ["right", "left", "right", "right", "right", "right"],
    style,
  );
}

/** `pisess budget` as text: the parts with bars, the largest entries, the bill, what a compaction now would keep. */
export function budgetText(d: BudgetReport, style: Style): string {
  const out: string[] = [];
  const at = d.leaf === null ? "no entries" : `leaf ${ref(d.leaf)}`;
  out.push(`${sanitizeLine(d.file)}: ${at}: ${d.total} tokens in ${d.messages} messages (pi's estimate: characters/4)\n`);
  if (d.parts.length > 0)
    out.push(
      table(
        "By part",
        ["part", "tokens", "share", "messages", ""],
        d.parts.map((p) => [partLabel(p), String(p.tokens), pct(p.share), String(p.messages), bar(p.share)]),
        ["left", "right", "right", "right", "left"],
        style,
      ),
    );
  if (d.top.length > 0)
    out.push(
      table(
        `Largest ${d.top.length} entries`,
        ["line", "kind", "tool", "tokens", "share"],
        d.top.map((e) => [String(e.line), e.kind, sanitizeLine(e.tool ?? ""), String(e.tokens), pct(e.share)]),
        ["right", "left", "left", "right", "right"],
        style,
      ),
    );
  out.push(`${style.bold("Billed")}\n${billedText(d)}`);
  out.push(`${style.bold("Compact now")}\n${compactText(d)}`);
  if (d.path !== null) out.push(pathTable(d.path, style));
  return out.join("\n");
}

/** `pisess budget --json`. */
export function budgetJson(d: BudgetReport): string {
  return `${JSON.stringify(d, null, 2)}\n`;
}

import type { InfoReport } from "../reports/info.js";
import type { KindTotals, Totals } from "../ops/totals.js";
import {
  fmtCost,
  fmtDuration,
  fmtInt,
  fmtOtherKinds,
  fmtTime,
  fmtTotals,
  hasOtherKinds,
  kindLabel,
  makeTable,
  tableText,
} from "./info-format.js";
import { problemWords } from "./problems.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

type Ref = InfoReport["roots"][number];

const ref = (r: Ref): string => `${r.id === null ? "(no id)" : sanitizeLine(r.id)} @${r.line}`;

export function infoJson(r: InfoReport): string {
  return `${JSON.stringify(r)}\n`;
}

export function infoText(r: InfoReport, style: Style): string {
  const out: string[] = [];
  const kv = (k: string, v: string) => out.push(`${style.bold(k.padEnd(12))}${v}`);
  kv("file", sanitizeLine(r.file));
  if (r.header) {
    kv("session", `${sanitizeLine(r.header.id ?? "(no id)")}  (version ${r.header.version})`);
    kv("cwd", sanitizeLine(r.header.cwd ?? "?"));
    kv("created", r.header.created === null ? "?" : fmtTime(r.header.created));
    if (r.header.parentSession !== null) {
      const state =
        (r.header.parentExists ? "exists" : style.warning("missing")) +
        (r.header.forkCycle ? `; ${style.warning("the fork chain loops back to this file")}, nothing counted as copied` : "");
      kv("fork of", `${sanitizeLine(r.header.parentSession)} (${state}${r.header.legacyBranchedFrom ? ", legacy branchedFrom" : ""})`);
    }
  } else kv("session", style.error("no valid header"));
  if (r.name !== null) kv("name", sanitizeLine(r.name));
  if (r.duration) kv("duration", `${fmtDuration(r.duration.ms)}  (${fmtTime(r.duration.start)} → ${fmtTime(r.duration.end)})`);
  out.push("");

  const types = Object.entries(r.byType).map(([t, n]) => {
    if (t === "message" && Object.keys(r.byRole).length > 0) {
      return `message ${fmtInt(n)} (${Object.entries(r.byRole)
        .map(([role, k]) => `${sanitizeLine(role)} ${fmtInt(k)}`)
        .join(", ")})`;
    }
    return `${sanitizeLine(t)} ${fmtInt(n)}`;
  });
  kv("entries", `${fmtInt(r.entries)}${types.length ? `: ${types.join(", ")}` : ""}`);
  kv("roots", r.roots.length === 0 ? "none" : r.roots.map(ref).join(", "));
  kv("leaves", `${r.leaves.length}${r.defaultLeaf ? ` (default ${ref(r.defaultLeaf)})` : ""}`);
  kv("branches", r.branchPoints.length === 0 ? "none" : r.branchPoints.map((b) => `${ref(b)} ×${b.children}`).join(", "));
  kv("max depth", r.maxDepth === null ? "- (no entries)" : String(r.maxDepth));
  if (r.compactions.length > 0) {
    kv(
      "compactions",
      r.compactions.map((c) => `${ref(c)} (${c.tokensBefore === null ? "?" : fmtInt(c.tokensBefore)} tokens before)`).join(", "),
    );
  }
  if (r.labels.length > 0) {
    kv(
      "labels",
      r.labels
        .map(
          (l) =>
            `${style.label(sanitizeLine(l.label))} → ${sanitizeLine(l.targetId)}${l.targetLine === null ? " (missing)" : ` @${l.targetLine}`}`,
        )
        .join(", "),
    );
  }
  if (r.modelsUsed.length > 0) kv("models", r.modelsUsed.map((m) => sanitizeLine(`${m.provider}/${m.model}`)).join(", "));
  if (r.copied) {
    const c = r.copied;
    const span = c.firstLine === null ? "" : ` (lines ${c.firstLine}–${c.lastLine})`;
    kv(
      "copied",
      `${fmtInt(c.entries)} entries${span} from the parent, ${fmtInt(c.assistantMessages)} assistant messages, ${fmtTotals(c.totals)}; ${
        c.included ? "included in the totals" : "left out of the totals (--include-copied counts them)"
      }`,
    );
  }
  if (r.problems > 0)
    kv("problems", style.warning(`${problemWords(r.problemsBySeverity)} found while reading; pisess validate checks more`));
  out.push("");

  out.push(modelTable(r, style));
  out.push("");
  if (hasOtherKinds(r.byKind)) {
    out.push(kindTable(r.byKind, r.totals, style));
    out.push("");
  }

  out.push(leavesTable(r.leaves, style));
  return `${out.join("\n")}\n`;
}

/** Columns shown only where some row has them: one-hour cache writes and reasoning tokens (pi 1.6). */
function extraColumns(t: Totals): { head: string[]; cells: (x: Totals) => string[] } {
  const head: string[] = [];
  if (t.cacheWrite1h > 0) head.push("of which 1h");
  if (t.reasoning > 0) head.push("reasoning");
  return {
    head,
    cells: (x) => [...(t.cacheWrite1h > 0 ? [fmtInt(x.cacheWrite1h)] : []), ...(t.reasoning > 0 ? [fmtInt(x.reasoning)] : [])],
  };
}

/** Per provider/model; an "other" column (summaries, usage entries, tool results with usage) where there are any. */
function modelTable(r: InfoReport, style: Style): string {
  const other = r.models.some((m) => hasOtherKinds(m.byKind));
  const otherOf = (rows: KindTotals[]) => rows.reduce((s, k) => s + (k.source === "assistant" ? 0 : k.entries), 0);
  const extra = extraColumns(r.totals);
  const head = ["model", "msgs", ...(other ? ["other"] : []), "input", "output", "cache read", "cache write", ...extra.head, "cost"];
  const mt = makeTable(
    head.map((h) => style.bold(h)),
    head.map((_, i) => (i === 0 ? "left" : "right")),
  );
  const row = (name: string, msgs: number, others: number, t: Totals, cost: string) => [
    name,
    fmtInt(msgs),
    ...(other ? [fmtInt(others)] : []),
    fmtInt(t.input),
    fmtInt(t.output),
    fmtInt(t.cacheRead),
    fmtInt(t.cacheWrite),
    ...extra.cells(t),
    cost,
  ];
  for (const m of r.models)
    mt.push(row(sanitizeLine(`${m.provider}/${m.model}`), m.assistantMessages, otherOf(m.byKind), m, fmtCost(m.cost)));
  const msgs = r.models.reduce((s, m) => s + m.assistantMessages, 0);
  mt.push(row(style.bold("total"), msgs, otherOf(r.byKind), r.totals, style.bold(fmtCost(r.totals.cost))));
  return tableText(mt);
}

/** The same totals by kind of spend: assistant turns, tool results, compactions, branch summaries, usage entries. */
function kindTable(rows: KindTotals[], totals: Totals, style: Style): string {
  const extra = extraColumns(totals);
  const head = ["spent on", "entries", "input", "output", "cache read", "cache write", ...extra.head, "cost"];
  const kt = makeTable(
    head.map((h) => style.bold(h)),
    head.map((_, i) => (i === 0 ? "left" : "right")),
  );
  for (const k of rows) {
    kt.push([
      kindLabel(k),
      fmtInt(k.entries),
      fmtInt(k.input),
      fmtInt(k.output),
      fmtInt(k.cacheRead),
      fmtInt(k.cacheWrite),
      ...extra.cells(k),
      fmtCost(k.cost),
    ]);
  }
  return tableText(kt);
}

function leavesTable(leaves: InfoReport["leaves"], style: Style): string {
  const other = leaves.some((l) => hasOtherKinds(l.ownByKind));
  const head = [
    "leaf",
    "line",
    "depth",
    "fork point",
    "path tokens (in/out)",
    "path cost",
    "own tokens (in/out)",
    "own cost",
    ...(other ? ["own cost outside turns"] : []),
  ];
  const lt = makeTable(
    head.map((h) => style.bold(h)),
    ["left", "right", "right", "left", "right", "right", "right", "right", "left"],
  );
  for (const l of leaves) {
    lt.push([
      (l.id === null ? "(no id)" : sanitizeLine(l.id)) + (l.isDefault ? style.accent(" ◆") : "") + (l.cycle ? style.error(" [cycle]") : ""),
      String(l.line),
      String(l.depth),
      l.forkPoint ? ref(l.forkPoint) : "-",
      `${fmtInt(l.totals.input)} / ${fmtInt(l.totals.output)}`,
      fmtCost(l.totals.cost),
      `${fmtInt(l.ownTotals.input)} / ${fmtInt(l.ownTotals.output)}`,
      fmtCost(l.ownTotals.cost),
      ...(other ? [fmtOtherKinds(l.ownByKind)] : []),
    ]);
  }
  return tableText(lt);
}

import type { Totals } from "../ops/totals.js";
import { fmtCost, fmtDuration, fmtInt, fmtTime, fmtTotals, makeTable, tableText } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

export interface Ref {
  id: string | null;
  line: number;
}

/** `pisess info --json`, exactly; the text form is rendered from the same object. */
export interface InfoReport {
  file: string;
  header: {
    version: number;
    id: string | null;
    cwd: string | null;
    created: string | null;
    /** parentSession, else the legacy branchedFrom; null for a session that is not a fork. */
    parentSession: string | null;
    legacyBranchedFrom: boolean;
    /** Whether the parent file exists; null without a parent. */
    parentExists: boolean | null;
  } | null;
  name: string | null;
  entries: number;
  byType: Record<string, number>;
  byRole: Record<string, number>;
  roots: Ref[];
  defaultLeaf: Ref | null;
  branchPoints: (Ref & { children: number })[];
  maxDepth: number;
  compactions: (Ref & { tokensBefore: number | null; timestamp: unknown })[];
  labels: { targetId: string; targetLine: number | null; label: string }[];
  modelsUsed: { provider: string; model: string }[];
  totals: Totals;
  models: { provider: string; model: string; assistantMessages: number; input: number; output: number; cacheRead: number; cacheWrite: number; cost: number }[];
  /** Entries copied from the parent file by /fork; null when the file is not a fork or the parent is unreadable. */
  copied: { parent: string; entries: number; assistantMessages: number; firstLine: number | null; lastLine: number | null; totals: Totals; included: boolean } | null;
  leaves: (Ref & { depth: number; isDefault: boolean; forkPoint: Ref | null; cycle: boolean; totals: Totals; ownTotals: Totals })[];
  duration: { start: string; end: string; ms: number } | null;
  problems: number;
}

const ref = (r: Ref): string => `${r.id === null ? "(no id)" : sanitizeLine(r.id)} @${r.line}`;

export function infoJson(r: InfoReport): string {
  return JSON.stringify(r) + "\n";
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
      const state = r.header.parentExists ? "exists" : style.warning("missing");
      kv("fork of", `${sanitizeLine(r.header.parentSession)} (${state}${r.header.legacyBranchedFrom ? ", legacy branchedFrom" : ""})`);
    }
  } else kv("session", style.error("no valid header"));
  if (r.name !== null) kv("name", sanitizeLine(r.name));
  if (r.duration) kv("duration", `${fmtDuration(r.duration.ms)}  (${fmtTime(r.duration.start)} → ${fmtTime(r.duration.end)})`);
  out.push("");

  const types = Object.entries(r.byType).map(([t, n]) => {
    if (t === "message" && Object.keys(r.byRole).length > 0) {
      return `message ${fmtInt(n)} (${Object.entries(r.byRole).map(([role, k]) => `${sanitizeLine(role)} ${fmtInt(k)}`).join(", ")})`;
    }
    return `${sanitizeLine(t)} ${fmtInt(n)}`;
  });
  kv("entries", `${fmtInt(r.entries)}${types.length ? ": " + types.join(", ") : ""}`);
  kv("roots", r.roots.length === 0 ? "none" : r.roots.map(ref).join(", "));
  kv("leaves", `${r.leaves.length}${r.defaultLeaf ? ` (default ${ref(r.defaultLeaf)})` : ""}`);
  kv("branches", r.branchPoints.length === 0 ? "none" : r.branchPoints.map((b) => `${ref(b)} ×${b.children}`).join(", "));
  kv("max depth", String(r.maxDepth));
  if (r.compactions.length > 0) {
    kv("compactions", r.compactions.map((c) => `${ref(c)} (${c.tokensBefore === null ? "?" : fmtInt(c.tokensBefore)} tokens before)`).join(", "));
  }
  if (r.labels.length > 0) {
    kv("labels", r.labels.map((l) => `${style.label(sanitizeLine(l.label))} → ${sanitizeLine(l.targetId)}${l.targetLine === null ? " (missing)" : ` @${l.targetLine}`}`).join(", "));
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
  if (r.problems > 0) kv("problems", style.warning(`${r.problems} (run pisess validate)`));
  out.push("");

  const mt = makeTable(["model", "msgs", "input", "output", "cache read", "cache write", "cost"].map((h) => style.bold(h)), ["left", "right", "right", "right", "right", "right", "right"]);
  for (const m of r.models) {
    mt.push([sanitizeLine(`${m.provider}/${m.model}`), fmtInt(m.assistantMessages), fmtInt(m.input), fmtInt(m.output), fmtInt(m.cacheRead), fmtInt(m.cacheWrite), fmtCost(m.cost)]);
  }
  const t = r.totals;
  mt.push([style.bold("total"), fmtInt(r.models.reduce((s, m) => s + m.assistantMessages, 0)), fmtInt(t.input), fmtInt(t.output), fmtInt(t.cacheRead), fmtInt(t.cacheWrite), style.bold(fmtCost(t.cost))]);
  out.push(tableText(mt));
  out.push("");

  out.push(leavesTable(r.leaves, style));
  return out.join("\n") + "\n";
}

function leavesTable(leaves: InfoReport["leaves"], style: Style): string {
  const lt = makeTable(
    ["leaf", "line", "depth", "fork point", "path tokens (in/out)", "path cost", "own tokens (in/out)", "own cost"].map((h) => style.bold(h)),
    ["left", "right", "right", "left", "right", "right", "right", "right"],
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
    ]);
  }
  return tableText(lt);
}

import type { Session } from "../model/session.js";
import type { EntryRec, Usage } from "../model/types.js";

/**
 * Token and cost aggregation. Every physical assistant message entry is counted once, however many leaves share
 * it; per-leaf sums live in src/ops/leaves.ts. Entries a fork copied from its parent file can be left out.
 */

export interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** usage.cost.total, in the provider's currency (USD for pi's built-in models). */
  cost: number;
}

export interface ModelTotals extends Totals {
  provider: string;
  model: string;
  /** Assistant messages of this model (with or without usage). */
  assistantMessages: number;
}

export interface CopiedSummary {
  /** Entries of the fork whose id and timestamp also occur in the parent file. */
  entries: number;
  assistantMessages: number;
  totals: Totals;
  /** Line range the copied entries span (first and last), or null when none. */
  firstLine: number | null;
  lastLine: number | null;
}

export interface SessionTotals {
  totals: Totals;
  models: ModelTotals[];
  assistantMessages: number;
  /** Present when a copied-entry mask was given. */
  copied?: CopiedSummary;
}

export function emptyTotals(): Totals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
}

export function addUsage(t: Totals, u: Usage | Totals): void {
  t.input += u.input;
  t.output += u.output;
  t.cacheRead += u.cacheRead;
  t.cacheWrite += u.cacheWrite;
  t.cost += u.cost;
}

/** Cost sums carry binary-float noise; 10 decimals is far below any price granularity. */
export function roundCost(x: number): number {
  return Math.round(x * 1e10) / 1e10;
}

export function finishTotals(t: Totals): Totals {
  return { input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite, cost: roundCost(t.cost) };
}

/** The assistant messages that carry usage: these are what tokens and cost are summed over. */
export function isAssistant(rec: EntryRec): boolean {
  return rec.type === "message" && rec.role === "assistant";
}

function copyKey(id: string, timestamp: unknown): string {
  return `${id}\u0000${typeof timestamp === "string" ? timestamp : JSON.stringify(timestamp)}`;
}

/**
 * Which entries of `fork` were copied from `parent` by pi's /fork: same id and same timestamp in both files.
 * Returns a mask by entry index (1 = copied).
 */
export function copiedMask(fork: Session, parent: Session): Uint8Array {
  const keys = new Set<string>();
  for (const rec of parent.entries) if (rec.id !== undefined) keys.add(copyKey(rec.id, rec.timestamp));
  const mask = new Uint8Array(fork.entries.length);
  for (const rec of fork.entries) {
    if (rec.id !== undefined && keys.has(copyKey(rec.id, rec.timestamp))) mask[rec.index] = 1;
  }
  return mask;
}

/**
 * Tokens and cost of a whole session, in total and per provider/model. With `copied`, entries so marked are
 * summed apart and, unless `includeCopied`, left out of the totals and the per-model rows.
 */
export function sessionTotals(session: Session, copied?: Uint8Array, includeCopied = false): SessionTotals {
  const totals = emptyTotals();
  const byModel = new Map<string, ModelTotals>();
  let assistantMessages = 0;
  const copiedSum: CopiedSummary = { entries: 0, assistantMessages: 0, totals: emptyTotals(), firstLine: null, lastLine: null };
  for (const rec of session.entries) {
    const isCopied = copied !== undefined && copied[rec.index] === 1;
    if (isCopied) {
      copiedSum.entries++;
      copiedSum.firstLine ??= rec.line;
      copiedSum.lastLine = rec.line;
    }
    if (!isAssistant(rec)) continue;
    if (isCopied) {
      copiedSum.assistantMessages++;
      if (rec.usage) addUsage(copiedSum.totals, rec.usage);
      if (!includeCopied) continue;
    }
    assistantMessages++;
    const provider = rec.provider ?? "?";
    const model = rec.model ?? "?";
    const key = `${provider}\u0000${model}`;
    let m = byModel.get(key);
    if (!m) {
      m = { provider, model, assistantMessages: 0, ...emptyTotals() };
      byModel.set(key, m);
    }
    m.assistantMessages++;
    if (rec.usage) {
      addUsage(m, rec.usage);
      addUsage(totals, rec.usage);
    }
  }
  const models = [...byModel.values()]
    .map((m) => ({ ...m, cost: roundCost(m.cost) }))
    .sort((a, b) => b.cost - a.cost || cmp(a.provider, b.provider) || cmp(a.model, b.model));
  const out: SessionTotals = { totals: finishTotals(totals), models, assistantMessages };
  if (copied !== undefined) out.copied = { ...copiedSum, totals: finishTotals(copiedSum.totals) };
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface SessionFacts {
  entries: number;
  byType: Record<string, number>;
  byRole: Record<string, number>;
  compactions: { id: string | null; line: number; tokensBefore: number | null; timestamp: unknown }[];
  /** Every provider/model the session switched to or answered with, in order of first appearance. */
  modelsUsed: { provider: string; model: string; firstLine: number }[];
  /** First and last valid entry timestamp (ms), null without any. */
  start: number | null;
  end: number | null;
}

/** Counts and facts of a session that need no tree. */
export function sessionFacts(session: Session): SessionFacts {
  const byType: Record<string, number> = {};
  const byRole: Record<string, number> = {};
  const compactions: SessionFacts["compactions"] = [];
  const seenModels = new Map<string, SessionFacts["modelsUsed"][number]>();
  let start: number | null = null;
  let end: number | null = null;
  for (const rec of session.entries) {
    const type = rec.type || "(none)";
    byType[type] = (byType[type] ?? 0) + 1;
    if (rec.type === "message") {
      const role = rec.role ?? "(none)";
      byRole[role] = (byRole[role] ?? 0) + 1;
    }
    if (rec.type === "compaction") {
      compactions.push({
        id: rec.id ?? null,
        line: rec.line,
        tokensBefore: typeof rec.tokensBefore === "number" && Number.isFinite(rec.tokensBefore) ? rec.tokensBefore : null,
        timestamp: rec.timestamp ?? null,
      });
    }
    if ((rec.type === "model_change" || isAssistant(rec)) && (rec.provider !== undefined || rec.model !== undefined)) {
      const provider = rec.provider ?? "?";
      const model = rec.model ?? "?";
      const key = `${provider}\u0000${model}`;
      if (!seenModels.has(key)) seenModels.set(key, { provider, model, firstLine: rec.line });
    }
    if (!Number.isNaN(rec.time)) {
      if (start === null || rec.time < start) start = rec.time;
      if (end === null || rec.time > end) end = rec.time;
    }
  }
  return { entries: session.entries.length, byType: sortKeys(byType), byRole: sortKeys(byRole), compactions, modelsUsed: [...seenModels.values()], start, end };
}

function sortKeys(o: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k] as number;
  return out;
}

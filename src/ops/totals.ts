import type { Session, SessionHaving } from "../model/session.js";
import type { Usage } from "../model/types.js";
import type { EntryRec, RecHaving } from "../model/detail.js";
import { resolveParent } from "./tree.js";

/**
 * Token and cost aggregation. Every physical entry that records spend is counted once, however many leaves share
 * it; per-leaf sums live in src/ops/leaves.ts. Entries a fork copied from its parent file can be left out.
 *
 * What counts as spend, as pi 1.6's own session statistics count it: assistant messages (`message.usage`), tool
 * results with `message.usage` (nested model work a tool did), compactions and branch summaries with `usage` (the
 * summary call, since pi 0.81), and `usage` entries (pi 0.86+: `kind` "cache_warm" from pi, any string from
 * extensions). Each is one *kind* of spend (source, plus the usage entry's kind).
 */

export interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** usage.cost.total, in the provider's currency (USD for pi's built-in models). */
  cost: number;
  /** Of cacheWrite, what was written with one-hour retention (`usage.cacheWrite1h`, pi 1.6). */
  cacheWrite1h: number;
  /** Of output, what was spent on reasoning (`usage.reasoning`, pi 1.6). */
  reasoning: number;
}

/** Where spend is recorded. */
type SpendSource = "assistant" | "toolResult" | "compaction" | "branch_summary" | "usage";

export interface SpendKind {
  source: SpendSource;
  /** A `usage` entry's `kind`; null for the other sources (and for a usage entry without a string kind). */
  kind: string | null;
}

/** The spend of one kind: how many entries recorded it, and their sums. */
export interface KindTotals extends SpendKind, Totals {
  /** Entries of this kind counted (for "assistant": every assistant message, with or without usage). */
  entries: number;
}

interface ModelTotals extends Totals {
  provider: string;
  model: string;
  /** Assistant messages of this model (with or without usage). */
  assistantMessages: number;
  /** The same sums by kind of spend. */
  byKind: KindTotals[];
}

interface CopiedSummary {
  /** Entries of the fork that are copies of its parent (src/ops/fork-copy.ts). */
  entries: number;
  assistantMessages: number;
  totals: Totals;
  byKind: KindTotals[];
  /** Line range the copied entries span (first and last), or null when none. */
  firstLine: number | null;
  lastLine: number | null;
}

export interface SessionTotals {
  totals: Totals;
  models: ModelTotals[];
  assistantMessages: number;
  /** totals by kind of spend: assistant, toolResult, compaction, branch_summary, then usage entries by kind. */
  byKind: KindTotals[];
  /** Present when a copied-entry mask was given. */
  copied?: CopiedSummary;
}

function emptyTotals(): Totals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, cacheWrite1h: 0, reasoning: 0 };
}

function addUsage(t: Totals, u: Usage | Totals): void {
  t.input += u.input;
  t.output += u.output;
  t.cacheRead += u.cacheRead;
  t.cacheWrite += u.cacheWrite;
  t.cost += u.cost;
  t.cacheWrite1h += u.cacheWrite1h;
  t.reasoning += u.reasoning;
}

/** Cost sums carry binary-float noise; 10 decimals is far below any price granularity. */
export function roundCost(x: number): number {
  return Math.round(x * 1e10) / 1e10;
}

export function finishTotals(t: Totals): Totals {
  return {
    input: t.input,
    output: t.output,
    cacheRead: t.cacheRead,
    cacheWrite: t.cacheWrite,
    cost: roundCost(t.cost),
    cacheWrite1h: t.cacheWrite1h,
    reasoning: t.reasoning,
  };
}

/** What spend counting reads of a record (the spend, tables and full loads fill it). */
export type SpendRec = RecHaving<"usage" | "usageKind">;
/** A session whose records spend counting can read. */
export type SpendSession = SessionHaving<"usage" | "usageKind">;

/** The assistant messages: every one is a model call, counted whether or not it carries usage. */
export function isAssistant(rec: EntryRec): boolean {
  return rec.type === "message" && rec.role === "assistant";
}

const ASSISTANT: SpendKind = { source: "assistant", kind: null };
const TOOL_RESULT: SpendKind = { source: "toolResult", kind: null };
const COMPACTION: SpendKind = { source: "compaction", kind: null };
const BRANCH_SUMMARY: SpendKind = { source: "branch_summary", kind: null };

/** The kind of spend an entry records, or undefined for one that records none. */
export function spendOf(rec: SpendRec): SpendKind | undefined {
  if (rec.type === "message") {
    if (rec.role === "assistant") return ASSISTANT;
    return rec.role === "toolResult" && rec.usage ? TOOL_RESULT : undefined;
  }
  if (!rec.usage) return undefined;
  switch (rec.type) {
    case "compaction":
      return COMPACTION;
    case "branch_summary":
      return BRANCH_SUMMARY;
    case "usage":
      return { source: "usage", kind: rec.usageKind ?? null };
    default:
      return undefined;
  }
}

const SOURCE_ORDER: Record<SpendSource, number> = { assistant: 0, toolResult: 1, compaction: 2, branch_summary: 3, usage: 4 };

function kindKey(k: SpendKind): string {
  return `${k.source}\u0000${k.kind === null ? "" : `\u0001${k.kind}`}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareKinds(a: SpendKind, b: SpendKind): number {
  return (
    SOURCE_ORDER[a.source] - SOURCE_ORDER[b.source] ||
    (a.kind === null ? (b.kind === null ? 0 : -1) : b.kind === null ? 1 : cmp(a.kind, b.kind))
  );
}

/** Sums by kind of spend; `rows()` gives them in the documented order, costs rounded. */
class KindSums {
  // source → kind → row: no key string is built per entry.
  private readonly map = new Map<SpendSource, Map<string | null, KindTotals>>();

  add(kind: SpendKind, usage: Usage | Totals | undefined, entries = 1): void {
    let bySource = this.map.get(kind.source);
    if (!bySource) {
      bySource = new Map();
      this.map.set(kind.source, bySource);
    }
    let row = bySource.get(kind.kind);
    if (!row) {
      row = { source: kind.source, kind: kind.kind, entries: 0, ...emptyTotals() };
      bySource.set(kind.kind, row);
    }
    row.entries += entries;
    if (usage) addUsage(row, usage);
  }

  rows(): KindTotals[] {
    const all: KindTotals[] = [];
    for (const bySource of this.map.values()) for (const v of bySource.values()) all.push(v);
    return all.sort(compareKinds).map((r) => kindRow(r, r.entries, r));
  }
}

/**
 * A KindTotals row: the kind and its count, then the sums as finishTotals gives them, written out as one literal (a
 * spread of the sums into the literal costs several times more per object, and rows are made per leaf of a session).
 */
export function kindRow(kind: SpendKind, entries: number, t: Totals): KindTotals {
  return {
    source: kind.source,
    kind: kind.kind,
    entries,
    input: t.input,
    output: t.output,
    cacheRead: t.cacheRead,
    cacheWrite: t.cacheWrite,
    cost: roundCost(t.cost),
    cacheWrite1h: t.cacheWrite1h,
    reasoning: t.reasoning,
  };
}

/** A KindTotals row less another (the part of a leaf's path after its fork point); rows with no entries left out. */
export function subtractKinds(path: KindTotals[], base: KindTotals[]): KindTotals[] {
  const byKey = new Map(base.map((r) => [kindKey(r), r]));
  const out: KindTotals[] = [];
  for (const r of path) {
    const b = byKey.get(kindKey(r));
    if (!b) {
      out.push(r);
      continue;
    }
    if (r.entries === b.entries) continue;
    out.push(kindRow(r, r.entries - b.entries, subtractTotals(r, b)));
  }
  return out;
}

export function subtractTotals(a: Totals, b: Totals): Totals {
  return {
    input: a.input - b.input,
    output: a.output - b.output,
    cacheRead: a.cacheRead - b.cacheRead,
    cacheWrite: a.cacheWrite - b.cacheWrite,
    cost: a.cost - b.cost,
    cacheWrite1h: a.cacheWrite1h - b.cacheWrite1h,
    reasoning: a.reasoning - b.reasoning,
  };
}

/** Whether an entry sets the model in effect below it: pi's buildSessionContext rule (model_change, assistant). */
function setsModel(rec: EntryRec): boolean {
  return rec.type === "model_change" || isAssistant(rec);
}

/**
 * The entry that set the model in effect at an entry, itself included: the last model_change or assistant message
 * on its path; null when there is none or the path runs into a parent cycle. Walks up only as far as needed and
 * remembers every entry it passed, so asking for every entry is still linear.
 */
function modelSetter(session: Session): (rec: EntryRec) => EntryRec | null {
  const UNKNOWN = -2;
  const ON_WALK = -3;
  const at = new Int32Array(session.entries.length).fill(UNKNOWN);
  const walk: number[] = [];
  return (start) => {
    let found = -1;
    let rec: EntryRec | null = start;
    walk.length = 0;
    while (rec !== null) {
      const known = at[rec.index] as number;
      if (known !== UNKNOWN) {
        found = known === ON_WALK ? -1 : known;
        break;
      }
      if (setsModel(rec)) {
        found = rec.index;
        at[rec.index] = found;
        break;
      }
      at[rec.index] = ON_WALK;
      walk.push(rec.index);
      const p: EntryRec | null = resolveParent(session, rec);
      rec = p === rec ? null : p;
    }
    for (const i of walk) at[i] = found;
    return found < 0 ? null : (session.entries[found] as EntryRec);
  };
}

interface ModelRef {
  provider: string;
  model: string;
}

/**
 * The provider/model an entry's spend is counted under. Assistant messages and `usage` entries record their own
 * ("?" for a missing part). Compactions, branch summaries and tool results record none (pi's Usage has no model):
 * they are counted under the model in effect where the call was made. For a compaction and a tool result that is
 * the model in effect at the entry (on its own path). For a branch summary it is the model in effect at `fromId`
 * when that entry exists: pi makes the summary with the session's current model while leaving the branch, and
 * since pi 0.84 `fromId` is the leaf that was left (before, it was the entry branched to, which sits on the
 * summary's own path); otherwise at the summary itself. No model anywhere above: "?"/"?".
 */
export function spendModels(session: Session): (rec: EntryRec) => ModelRef {
  let setterOf: ((rec: EntryRec) => EntryRec | null) | undefined;
  const unknown: ModelRef = { provider: "?", model: "?" };
  return (rec) => {
    if (isAssistant(rec) || (rec.type === "usage" && (rec.provider !== undefined || rec.model !== undefined))) {
      return { provider: rec.provider ?? "?", model: rec.model ?? "?" };
    }
    setterOf ??= modelSetter(session);
    let at = rec;
    if (rec.type === "branch_summary" && rec.fromId !== undefined) at = session.byId.get(rec.fromId) ?? rec;
    const m = setterOf(at);
    return m === null ? unknown : { provider: m.provider ?? "?", model: m.model ?? "?" };
  };
}

/**
 * Tokens and cost of a whole session, in total, per kind of spend and per provider/model (see spendModels). With
 * `copied`, entries so marked are summed apart and, unless `includeCopied`, left out of the totals and the rows.
 */
export function sessionTotals(session: SpendSession, copied?: Uint8Array, includeCopied = false): SessionTotals {
  const totals = emptyTotals();
  const kinds = new KindSums();
  const byModel = new Map<string, { row: ModelTotals; kinds: KindSums }>();
  const modelOf = spendModels(session);
  let assistantMessages = 0;
  const copiedSum: CopiedSummary = { entries: 0, assistantMessages: 0, totals: emptyTotals(), byKind: [], firstLine: null, lastLine: null };
  const copiedKinds = new KindSums();
  for (const rec of session.entries) {
    const isCopied = copied !== undefined && copied[rec.index] === 1;
    if (isCopied) {
      copiedSum.entries++;
      copiedSum.firstLine ??= rec.line;
      copiedSum.lastLine = rec.line;
    }
    const kind = spendOf(rec);
    if (kind === undefined) continue;
    const assistant = kind.source === "assistant";
    if (isCopied) {
      if (assistant) copiedSum.assistantMessages++;
      if (rec.usage) addUsage(copiedSum.totals, rec.usage);
      copiedKinds.add(kind, rec.usage);
      if (!includeCopied) continue;
    }
    if (assistant) assistantMessages++;
    const { provider, model } = modelOf(rec);
    const key = `${provider}\u0000${model}`;
    let m = byModel.get(key);
    if (!m) {
      m = { row: { provider, model, assistantMessages: 0, ...emptyTotals(), byKind: [] }, kinds: new KindSums() };
      byModel.set(key, m);
    }
    if (assistant) m.row.assistantMessages++;
    m.kinds.add(kind, rec.usage);
    kinds.add(kind, rec.usage);
    if (rec.usage) {
      addUsage(m.row, rec.usage);
      addUsage(totals, rec.usage);
    }
  }
  const models = [...byModel.values()]
    .map(({ row, kinds: k }) => ({ ...row, ...finishTotals(row), byKind: k.rows() }))
    .sort((a, b) => b.cost - a.cost || cmp(a.provider, b.provider) || cmp(a.model, b.model));
  const out: SessionTotals = { totals: finishTotals(totals), models, assistantMessages, byKind: kinds.rows() };
  if (copied !== undefined) out.copied = { ...copiedSum, totals: finishTotals(copiedSum.totals), byKind: copiedKinds.rows() };
  return out;
}

interface SessionFacts {
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
  return {
    entries: session.entries.length,
    byType: sortKeys(byType),
    byRole: sortKeys(byRole),
    compactions,
    modelsUsed: [...seenModels.values()],
    start,
    end,
  };
}

function sortKeys(o: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k] as number;
  return out;
}

import { isObject } from "../model/json.js";
import { readEntry, type Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import { type BudgetPart, budgetParts, estimateTokens } from "../ops/budget.js";
import { billedTurnAfter, pathRows } from "../ops/budget-path.js";
import { givesMessages, type SessionContext } from "../ops/context.js";
import { planCompaction, resolveKeepRecent, type CutEntry } from "../ops/cut-point.js";
import type { CompactionSettingsFile } from "../io/pi-settings.js";
import { contextReport } from "./context.js";
import { ReportError, type Report } from "./report.js";

interface Ref {
  line: number;
  id: string | null;
}

/** One entry of the context with the tokens of the messages it gives. */
export interface BudgetEntry extends Ref {
  /** The message role (message entries), else the entry type. */
  kind: string;
  /** A tool result's tool; an assistant turn's tool calls, comma-separated; else null. */
  tool: string | null;
  tokens: number;
  share: number;
}

/** The assistant turn that followed the leaf, and what its request was billed, beside the estimate. */
export interface BudgetBilled {
  turn: Ref;
  estimate: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** input + cacheRead + cacheWrite. */
  billed: number;
  /** billed / estimate (3 decimals); null for an estimate of 0. */
  ratio: number | null;
  /** Other assistant children of the leaf with usage (other branches): the first by file order is shown. */
  others: number;
}

/** What a compaction at this leaf would keep, by pi's cut-point rule; or why pi would not compact here. */
export type BudgetCompactNow =
  | {
      possible: true;
      firstKept: Ref;
      /** The split turn's start, when the cut falls inside a turn. */
      turnStart: Ref | null;
      keptTokens: number;
      summarizedTokens: number;
    }
  | { possible: false; reason: "leaf-is-compaction" | "nothing-to-summarize" | "first-kept-without-id" | "empty" };

/** `budget --path`: one row per assistant turn on the path, and one per compaction. */
export type BudgetPathRow =
  | {
      kind: "turn";
      line: number;
      id: string | null;
      /** The entry the request was made at (the turn's parent). */
      parentLine: number | null;
      estimate: number;
      /** input + cacheRead + cacheWrite; null where the turn recorded no input (aborted, failed, no usage). */
      billed: number | null;
      ratio: number | null;
    }
  | { kind: "compaction"; line: number; id: string | null; tokensBefore: number | null; estimate: number };

/** `pisess budget --json`, exactly; the text form is rendered from it. */
export interface BudgetReport {
  file: string;
  /** null for a session without entries. */
  leaf: Ref | null;
  /** Estimated tokens of the context at the leaf (pi's estimateTokens summed over its messages). */
  total: number;
  messages: number;
  parts: BudgetPart[];
  top: BudgetEntry[];
  billed: BudgetBilled | null;
  /** The number the cut point keeps; `from`: the settings file it was read from, "--keep-recent" or "default". */
  keepRecentTokens: { value: number; from: string };
  compactNow: BudgetCompactNow;
  /** With --path; null otherwise. */
  path: BudgetPathRow[] | null;
}

export interface BudgetOptions {
  leaf?: string;
  path?: boolean;
  /** pi's compaction.keepRecentTokens as given (`from`: where), or pi's settings files to find it in for the leaf's model. */
  keepRecent: { value: number; from: string } | { files: readonly CompactionSettingsFile[] };
  /** Entries in the top list (default 10). */
  top?: number;
}

export type { BudgetPart };

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;
const share = (part: number, whole: number) => (whole > 0 ? round(part / whole, 4) : 0);
const refOf = (r: EntryRec): Ref => ({ line: r.line, id: r.id ?? null });

/** `pisess budget`: what the context at a leaf is made of, in pi's token estimate, checked against the bill. */
export function budgetReport(session: Session, opts: BudgetOptions): Report<BudgetReport | null> {
  // The JSON form: the path's messages are held as stand-ins, and only the context's own are parsed back from
  // their JSON text (the values pi holds; a long path's other messages are never parsed whole).
  const r = contextReport(session, { ...(opts.leaf === undefined ? {} : { leaf: opts.leaf }), output: "json" });
  const { leaf, context: c } = r.data;
  if (c === null) return { data: null, diagnostics: r.diagnostics, exitCode: r.exitCode };
  const messages: unknown[] = c.messages.map((_, i) => JSON.parse(c.messageJson(i) ?? "null") as unknown);
  const keep = "files" in opts.keepRecent ? resolveKeepRecent(opts.keepRecent.files, c.context.model) : opts.keepRecent;
  if ("error" in keep) throw new ReportError(keep.error);
  const perMessage = messages.map((m) => estimateTokens(m));
  let total = 0;
  for (const t of perMessage) total += t;
  const parts = budgetParts(messages, total);
  const data: BudgetReport = {
    file: session.file,
    leaf: leaf ? refOf(leaf) : null,
    total,
    messages: messages.length,
    parts,
    top: topEntries(messages, c.sources, perMessage, total, opts.top ?? 10),
    billed: leaf ? billedAfter(session, leaf, total) : null,
    keepRecentTokens: keep,
    compactNow: leaf ? compactNow(c.path, c.context, messages, perMessage, keep.value) : { possible: false, reason: "empty" },
    path: opts.path ? budgetPath(session, c.path) : null,
  };
  return { data, diagnostics: r.diagnostics, exitCode: r.exitCode };
}

/** The tools an assistant message calls (in order, once each), or a tool result's tool. */
function toolOf(m: unknown): string | null {
  if (!isObject(m)) return null;
  if (m.role === "toolResult") return typeof m.toolName === "string" ? m.toolName : null;
  if (m.role !== "assistant" || !Array.isArray(m.content)) return null;
  const names: string[] = [];
  for (const b of m.content)
    if (isObject(b) && b.type === "toolCall" && typeof b.name === "string" && !names.includes(b.name)) names.push(b.name);
  return names.length > 0 ? names.join(", ") : null;
}

function topEntries(
  messages: readonly unknown[],
  sources: readonly EntryRec[],
  perMessage: readonly number[],
  total: number,
  n: number,
): BudgetEntry[] {
  const byRec = new Map<EntryRec, BudgetEntry>();
  messages.forEach((m, i) => {
    const rec = sources[i] as EntryRec;
    let row = byRec.get(rec);
    if (!row) {
      const role = isObject(m) && typeof m.role === "string" ? m.role : null;
      row = { ...refOf(rec), kind: rec.type === "message" && role !== null ? role : rec.type, tool: toolOf(m), tokens: 0, share: 0 };
      byRec.set(rec, row);
    }
    row.tokens += perMessage[i] ?? 0;
  });
  const rows = [...byRec.values()].sort((a, b) => b.tokens - a.tokens || a.line - b.line).slice(0, n);
  for (const row of rows) row.share = share(row.tokens, total);
  return rows;
}

/** The assistant turn after the leaf, beside the estimate. */
function billedAfter(session: Session, leaf: EntryRec, estimate: number): BudgetBilled | null {
  const found = billedTurnAfter(session, leaf, (rec) => readEntry(session, rec));
  if (!found) return null;
  const b = found.billed;
  return {
    turn: refOf(found.rec),
    estimate,
    input: b.input,
    cacheRead: b.cacheRead,
    cacheWrite: b.cacheWrite,
    billed: b.total,
    ratio: estimate > 0 ? round(b.total / estimate, 3) : null,
    others: found.others,
  };
}

/** The context's entries as pi projects them (buildContextEntries), each with the messages it gives here. */
/** What the cut point reads of a context (its messages are passed as values apart). */
type Held = Pick<SessionContext, "compaction" | "keptFrom" | "sources" | "edits">;

function projected(path: readonly EntryRec[], ctx: Held, messages: readonly unknown[], perMessage: readonly number[]) {
  let list: EntryRec[] = path as EntryRec[];
  const c = ctx.compaction;
  if (c) {
    const cIdx = path.findIndex((e) => e.id === c.id);
    list = [c];
    let kept = false;
    for (let i = 0; i < cIdx; i++) {
      const rec = path[i] as EntryRec;
      if (rec === ctx.keptFrom) kept = true;
      if (kept && !(rec.type === "message" && rec.role === "system")) list.push(rec);
    }
    for (let i = cIdx + 1; i < path.length; i++) list.push(path[i] as EntryRec);
  }
  const messagesOf = new Map<EntryRec, number[]>();
  ctx.sources.forEach((rec, i) => {
    const l = messagesOf.get(rec);
    if (l) l.push(i);
    else messagesOf.set(rec, [i]);
  });
  const replaces = new Map(ctx.edits.map((e) => [e.edit, !e.removes]));
  const entries: CutEntry[] = [];
  const nonSystem: number[] = [];
  list.forEach((rec, position) => {
    const idx = rec.type === "compaction" && position > 0 ? [] : (messagesOf.get(rec) ?? []);
    const roles = idx.map((i) => {
      const m = messages[i];
      return isObject(m) && typeof m.role === "string" ? m.role : "";
    });
    let tokens = 0;
    let ns = 0;
    idx.forEach((i, k) => {
      tokens += perMessage[i] ?? 0;
      if (roles[k] !== "system") ns += perMessage[i] ?? 0;
    });
    entries.push({
      type: rec.type,
      role: rec.role,
      roles,
      tokens,
      visible: givesMessages(rec),
      targetId: rec.targetId,
      replaces: replaces.get(rec) ?? false,
      id: rec.id,
    });
    nonSystem.push(ns);
  });
  return { list, entries, nonSystem };
}

function compactNow(
  path: readonly EntryRec[],
  ctx: Held,
  messages: readonly unknown[],
  perMessage: readonly number[],
  keep: number,
): BudgetCompactNow {
  const p = projected(path, ctx, messages, perMessage);
  const plan = planCompaction(p.entries, path[path.length - 1]?.type, keep, (i) => p.nonSystem[i] ?? 0);
  if (!plan.ok) return { possible: false, reason: plan.reason };
  return {
    possible: true,
    firstKept: refOf(p.list[plan.firstKept] as EntryRec),
    turnStart: plan.turnStart === null ? null : refOf(p.list[plan.turnStart] as EntryRec),
    keptTokens: plan.keptTokens,
    summarizedTokens: plan.summarizedTokens,
  };
}

function budgetPath(session: Session, path: readonly EntryRec[]): BudgetPathRow[] {
  return pathRows(path, (rec) => readEntry(session, rec)).map((row) => {
    const ref = refOf(row.rec);
    if (row.kind === "compaction") {
      const tb = row.rec.tokensBefore;
      return { kind: "compaction", ...ref, tokensBefore: typeof tb === "number" ? tb : null, estimate: row.estimate };
    }
    const billed = row.billed?.total ?? null;
    return {
      kind: "turn",
      ...ref,
      parentLine: row.parent?.line ?? null,
      estimate: row.estimate,
      billed,
      ratio: billed !== null && row.estimate > 0 ? round(billed / row.estimate, 3) : null,
    };
  });
}

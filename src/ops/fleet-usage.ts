import type { Usage } from "../model/types.js";
import type { SpendSession } from "./totals.js";
import type { EntryRec } from "../model/detail.js";
import { ownerLeaves } from "./fleet-leaf.js";
import { type Buckets, type calendar, QUARTER_MS } from "./fleet-time.js";
import { roundCost, spendModels, spendOf } from "./totals.js";
import { buildTree } from "./tree.js";
import { addExact, addFixed, addSum, type ExactSum, exactValue, exactZero } from "./exact-sum.js";

/**
 * Spend across many sessions, grouped by calendar bucket, model, project, session or leaf. The rule for what is
 * spend is the one of src/ops/totals.ts (spendOf, spendModels); entries a fork copied from its parent are left out
 * unless asked for, so each model call counts in the file that first wrote it.
 */

export const GROUP_KEYS = ["day", "week", "month", "model", "project", "session", "leaf"] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

export interface UsageSums {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Of cacheWrite, written with one-hour retention. */
  cacheWrite1h: number;
  /** input + output + cacheRead + cacheWrite. */
  totalTokens: number;
  /** usage.cost.total as pi recorded it, summaryCost included. */
  cost: number;
  /** Of cost, what was not an assistant turn: compactions, branch summaries, usage entries, tool results with usage. */
  summaryCost: number;
  /** Sessions with at least one counted entry in the row. */
  sessions: number;
  /** Assistant messages (model calls), with or without usage. */
  turns: number;
}

export type UsageKeys = Partial<Record<GroupKey, string | null>>;

export interface UsageRow extends UsageSums {
  keys: UsageKeys;
  /** With breakdown: the same sums per "provider/model", most expensive first. */
  models?: (UsageSums & { model: string })[];
}

/** UsageSums as they are counted: costs summed exactly (so the order of the count does not matter, to the bit). */
export interface ExactSums extends Omit<UsageSums, "cost" | "summaryCost"> {
  cost: ExactSum;
  summaryCost: ExactSum;
}

function emptySums(): ExactSums {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cacheWrite1h: 0,
    totalTokens: 0,
    cost: exactZero(),
    summaryCost: exactZero(),
    sessions: 0,
    turns: 0,
  };
}

interface Acc {
  sums: ExactSums;
  /** The last session (by ordinal) counted in `sessions`. */
  lastSession: number;
}

interface RowAcc extends Acc {
  keys: UsageKeys;
  models: Map<string, Acc>;
}

/** A record of spend as the index's usage table holds it (the fields usage counts). */
export interface SpendRecord {
  /** Milliseconds since the epoch, NaN without a valid timestamp. */
  time: number;
  assistant: boolean;
  /** "provider/model" as spendModels names it. */
  model: string;
  usage: Usage | undefined;
  copied: boolean;
  /** Line of the leaf it counts under (ownerLeaves). */
  leafLine: number;
}

/**
 * What one record or group adds; `cost` a double (added exactly) or a sum of fixed units. A record's Usage is one
 * as it is (`records` absent: one).
 */
export interface Amounts {
  records?: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  cost: number | bigint;
}

/**
 * Records of spend of one session summed by the index (src/reports/usage-index.ts): those of one quarter hour of
 * UTC (the calendar's unit), source kind, model, leaf and copy state, so that they count as the records would.
 */
export interface SpendGroup extends Amounts {
  /** The quarter hour (quarterOf), null for records without a valid timestamp. */
  quarter: number | null;
  assistant: boolean;
  model: string;
  copied: boolean;
  leafLine: number;
  records: number;
  /** Cost in units of 2^-80 (exact-sum.ts fixedUnits, summed). */
  cost: bigint;
}

const NO_USAGE: Amounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, cost: 0 };

export interface SessionScope {
  /** Whole days "YYYY-MM-DD" in the zone, both ends included; entries without a valid timestamp are then left out. */
  since?: string;
  until?: string;
  /** Project of the session (its header cwd). */
  project: string | null;
  /** How the session is named in rows (its path). */
  name: string;
  /** Entries (by index) copied from the fork parent. */
  copied?: Uint8Array;
  includeCopied?: boolean;
}

/** Sums spend into rows keyed by `by`; sessions are added one at a time and can be dropped after. */
export class UsageAggregator {
  private readonly rows = new Map<string, RowAcc>();
  private readonly total: Acc = { sums: emptySums(), lastSession: -1 };
  private ordinal = 0;

  constructor(
    readonly by: readonly GroupKey[],
    readonly cal: ReturnType<typeof calendar>,
    readonly breakdown = false,
  ) {}

  addSession(session: SpendSession, scope: SessionScope): void {
    const ord = this.ordinal++;
    const modelOf = spendModels(session);
    const needLeaf = this.by.includes("leaf");
    let owner: Int32Array | undefined;
    for (const rec of session.entries) {
      const kind = spendOf(rec);
      if (kind === undefined) continue;
      const copied = scope.copied?.[rec.index] === 1;
      // Left out before its model is looked up (the model setter walk is the costly part).
      if (copied && !scope.includeCopied) continue;
      const m = modelOf(rec);
      let leafLine = -1;
      if (needLeaf) {
        owner ??= ownerLeaves(session, buildTree(session));
        leafLine = (session.entries[owner[rec.index] as number] as EntryRec).line;
      }
      this.count(scope, ord, rec.time, kind.source === "assistant", `${m.provider}/${m.model}`, rec.usage ?? NO_USAGE, copied, leafLine);
    }
  }

  /**
   * Adds one session's records of spend as the index holds them (the usage table's rows, in file order): the same
   * count as addSession of the session they were made from.
   */
  addRecords(records: readonly SpendRecord[], scope: SessionScope, groups: readonly SpendGroup[] = []): void {
    const ord = this.ordinal++;
    for (const r of records) this.count(scope, ord, r.time, r.assistant, r.model, r.usage ?? NO_USAGE, r.copied, r.leafLine);
    for (const g of groups)
      this.count(scope, ord, g.quarter === null ? Number.NaN : g.quarter * QUARTER_MS, g.assistant, g.model, g, g.copied, g.leafLine);
  }

  /** Counts one record of spend of the session numbered `ord`: the one rule for what a row adds. */
  private count(
    scope: SessionScope,
    ord: number,
    time: number,
    assistant: boolean,
    model: string,
    amounts: Amounts,
    copied: boolean,
    leafLine: number,
  ): void {
    if (!scope.includeCopied && copied) return;
    const bucket = Number.isFinite(time) ? this.cal(time) : null;
    if (scope.since !== undefined || scope.until !== undefined) {
      if (bucket === null) return;
      if (scope.since !== undefined && bucket.day < scope.since) return;
      if (scope.until !== undefined && bucket.day > scope.until) return;
    }
    const keys: UsageKeys = {};
    for (const k of this.by) keys[k] = keyOf(k, bucket, model, scope, leafLine);
    const row = this.row(rowKey(this.by, keys), keys);
    add(row, amounts, assistant, ord);
    add(this.total, amounts, assistant, ord);
    if (this.breakdown) add(modelAcc(row, model), amounts, assistant, ord);
  }

  /** The row of `key` (its group keys joined), made on first use: the one place rows are made, counted or merged. */
  private row(key: string, keys: UsageKeys): RowAcc {
    let row = this.rows.get(key);
    if (!row) {
      row = { keys, sums: emptySums(), lastSession: -1, models: new Map() };
      this.rows.set(key, row);
    }
    return row;
  }

  /** The unrounded sums so far, to hand to another aggregator (worker threads count parts of a fleet). */
  snapshot(): UsageSnapshot {
    return {
      rows: [...this.rows.entries()].map(([key, r]) => ({
        key,
        keys: r.keys,
        sums: r.sums,
        models: [...r.models.entries()].map(([model, a]) => ({ model, sums: a.sums })),
      })),
      total: this.total.sums,
    };
  }

  /**
   * Adds another aggregator's snapshot. Each session is counted by one aggregator only, so `sessions` adds up;
   * merging snapshots in a fixed order keeps the cost sums' rounding the same run after run.
   */
  merge(snap: UsageSnapshot): void {
    for (const r of snap.rows) {
      const row = this.row(r.key, r.keys);
      addSums(row.sums, r.sums);
      for (const m of r.models) addSums(modelAcc(row, m.model).sums, m.sums);
    }
    addSums(this.total.sums, snap.total);
  }

  /** Rows sorted by their keys in `by` order (unknown keys last), costs rounded; and the grand totals. */
  result(): { rows: UsageRow[]; totals: UsageSums } {
    const rows: UsageRow[] = [...this.rows.values()].map((r) => {
      const row: UsageRow = { keys: r.keys, ...finish(r.sums) };
      if (this.breakdown) {
        row.models = [...r.models.entries()]
          .map(([model, a]) => ({ model, ...finish(a.sums) }))
          .sort((a, b) => b.cost - a.cost || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
      }
      return row;
    });
    rows.sort((a, b) => {
      for (const k of this.by) {
        const x = a.keys[k] ?? null;
        const y = b.keys[k] ?? null;
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        return x < y ? -1 : 1;
      }
      return 0;
    });
    return { rows, totals: finish(this.total.sums) };
  }
}

/** The key of the row `keys` names, as the aggregator files it (and a snapshot hands it over). */
export function rowKey(by: readonly GroupKey[], keys: UsageKeys): string {
  return by.map((k) => keys[k] ?? "\u0001").join("\u0000");
}

/** A record's value of one group key. */
function keyOf(k: GroupKey, bucket: Buckets | null, model: string, scope: SessionScope, leafLine: number): string | null {
  if (k === "day" || k === "week" || k === "month") return bucket === null ? null : bucket[k];
  if (k === "model") return model;
  if (k === "project") return scope.project;
  if (k === "session") return scope.name;
  return `${scope.name}@${leafLine}`;
}

/** What UsageAggregator.snapshot hands over: plain data (it crosses a worker thread's message channel). */
export interface UsageSnapshot {
  rows: { key: string; keys: UsageKeys; sums: ExactSums; models: { model: string; sums: ExactSums }[] }[];
  total: ExactSums;
}

/** A row's sums for one model (--breakdown), made on first use. */
function modelAcc(row: RowAcc, model: string): Acc {
  let sub = row.models.get(model);
  if (!sub) {
    sub = { sums: emptySums(), lastSession: -1 };
    row.models.set(model, sub);
  }
  return sub;
}

function addSums(s: ExactSums, o: ExactSums): void {
  s.input += o.input;
  s.output += o.output;
  s.cacheRead += o.cacheRead;
  s.cacheWrite += o.cacheWrite;
  s.cacheWrite1h += o.cacheWrite1h;
  s.totalTokens += o.totalTokens;
  s.sessions += o.sessions;
  s.turns += o.turns;
  addSum(s.cost, o.cost);
  addSum(s.summaryCost, o.summaryCost);
}

function addCost(s: ExactSum, cost: number | bigint): void {
  if (typeof cost === "bigint") addFixed(s, cost);
  else addExact(s, cost);
}

function add(acc: Acc, a: Amounts, assistant: boolean, ord: number): void {
  const s = acc.sums;
  if (acc.lastSession !== ord) {
    acc.lastSession = ord;
    s.sessions++;
  }
  if (assistant) s.turns += a.records ?? 1;
  s.input += a.input;
  s.output += a.output;
  s.cacheRead += a.cacheRead;
  s.cacheWrite += a.cacheWrite;
  s.cacheWrite1h += a.cacheWrite1h;
  s.totalTokens += a.input + a.output + a.cacheRead + a.cacheWrite;
  addCost(s.cost, a.cost);
  if (!assistant) addCost(s.summaryCost, a.cost);
}

function finish(s: ExactSums): UsageSums {
  return { ...s, cost: roundCost(exactValue(s.cost)), summaryCost: roundCost(exactValue(s.summaryCost)) };
}

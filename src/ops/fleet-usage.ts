import type { Usage } from "../model/types.js";
import type { SpendSession } from "./totals.js";
import type { EntryRec } from "../model/detail.js";
import { ownerLeaves } from "./fleet-leaf.js";
import type { calendar } from "./fleet-time.js";
import { roundCost, spendModels, spendOf } from "./totals.js";
import { buildTree } from "./tree.js";

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

function emptySums(): UsageSums {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cacheWrite1h: 0,
    totalTokens: 0,
    cost: 0,
    summaryCost: 0,
    sessions: 0,
    turns: 0,
  };
}

interface Acc {
  sums: UsageSums;
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
    private readonly cal: ReturnType<typeof calendar>,
    private readonly breakdown = false,
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
      this.count(scope, ord, rec.time, kind.source === "assistant", `${m.provider}/${m.model}`, rec.usage, copied, leafLine);
    }
  }

  /**
   * Adds one session's records of spend as the index holds them (the usage table's rows, in file order): the same
   * count as addSession of the session they were made from.
   */
  addRecords(records: readonly SpendRecord[], scope: SessionScope): void {
    const ord = this.ordinal++;
    for (const r of records) this.count(scope, ord, r.time, r.assistant, r.model, r.usage, r.copied, r.leafLine);
  }

  /** Counts one record of spend of the session numbered `ord`: the one rule for what a row adds. */
  private count(
    scope: SessionScope,
    ord: number,
    time: number,
    assistant: boolean,
    model: string,
    usage: Usage | undefined,
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
    for (const k of this.by) {
      if (k === "day" || k === "week" || k === "month") keys[k] = bucket === null ? null : bucket[k];
      else if (k === "model") keys[k] = model;
      else if (k === "project") keys[k] = scope.project;
      else if (k === "session") keys[k] = scope.name;
      else keys[k] = `${scope.name}@${leafLine}`;
    }
    const row = this.row(this.by.map((k) => keys[k] ?? "\u0001").join("\u0000"), keys);
    add(row, usage, assistant, ord);
    add(this.total, usage, assistant, ord);
    if (this.breakdown) add(modelAcc(row, model), usage, assistant, ord);
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

/** What UsageAggregator.snapshot hands over: plain data (it crosses a worker thread's message channel). */
export interface UsageSnapshot {
  rows: { key: string; keys: UsageKeys; sums: UsageSums; models: { model: string; sums: UsageSums }[] }[];
  total: UsageSums;
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

function addSums(s: UsageSums, o: UsageSums): void {
  for (const k of Object.keys(s) as (keyof UsageSums)[]) s[k] += o[k];
}

function add(acc: Acc, u: Usage | undefined, assistant: boolean, ord: number): void {
  const s = acc.sums;
  if (acc.lastSession !== ord) {
    acc.lastSession = ord;
    s.sessions++;
  }
  if (assistant) s.turns++;
  if (!u) return;
  s.input += u.input;
  s.output += u.output;
  s.cacheRead += u.cacheRead;
  s.cacheWrite += u.cacheWrite;
  s.cacheWrite1h += u.cacheWrite1h;
  s.totalTokens += u.input + u.output + u.cacheRead + u.cacheWrite;
  s.cost += u.cost;
  if (!assistant) s.summaryCost += u.cost;
}

function finish(s: UsageSums): UsageSums {
  return { ...s, cost: roundCost(s.cost), summaryCost: roundCost(s.summaryCost) };
}

import type { PiEnv } from "../io/discover.js";
import { type DamageNote, type FleetFailure, fleetFiles } from "../ops/fleet-files.js";
import { ParentCache } from "../ops/fleet-parents.js";
import { calendar, isTimeZone } from "../ops/fleet-time.js";
import { GROUP_KEYS, type GroupKey, UsageAggregator, type UsageRow, type UsageSums } from "../ops/fleet-usage.js";
import { type CountNotes, type CountSettings, countFiles } from "./usage-count.js";
import { BATCH, batchesOf, runOnThreads, threadCount, workerModule } from "./pool.js";
import type { UsageBatchResult, WorkerInit } from "./usage-worker.js";
import { ReportError, type Report } from "./report.js";

export interface UsageOptions {
  /** Unreadable folders and files are still reported, but do not make the exit status 2 (--allow-unreadable). */
  allowUnreadable?: boolean;
  /** Folders (searched recursively) or files; none: the whole sessions dir. */
  targets?: string[];
  by?: GroupKey[];
  /** "YYYY-MM-DD" (or YYYYMMDD), days in the zone, both ends included. */
  since?: string;
  until?: string;
  /** IANA zone; undefined: the local zone. */
  timezone?: string;
  /** Only sessions whose header cwd contains this text. */
  project?: string;
  /** Count entries a fork copied from its parent as well (naive counting). */
  includeCopied?: boolean;
  /** Sums per model inside each row. */
  breakdown?: boolean;
  env: PiEnv;
  cwd: string;
  onProgress?: (done: number, total: number) => void;
  /**
   * Threads that count (1: this one only). Default: the cores available, at most 4, once there are 64 files or
   * more. Workers need the compiled usage-worker.js beside this module; without it the count stays in this thread.
   */
  threads?: number;
  /** Answer from this index database, brought up to date first (src/reports/index-db.ts); undefined: read the files. */
  db?: string;
  /** How long to wait for another run's update of the index (ms). */
  waitMs?: number;
  /** Test hook: awaited inside the index update's transaction. */
  inTransaction?: () => Promise<void>;
}

export interface UsageData {
  by: GroupKey[];
  rows: UsageRow[];
  totals: UsageSums;
  /** The sessions dir read when no targets were given. */
  root?: string;
  missingRoot?: string;
  failures: FleetFailure[];
  damage: DamageNote[];
  /** Files left out: no session header, or another program's format. */
  skipped: string[];
}

/** A day as the option's message asks for it, YYYY-MM-DD, and one that is on the calendar (no 2025-13-45). */
function day(opt: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) throw new ReportError(`${opt} wants a date YYYY-MM-DD, not ${JSON.stringify(v)}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // An impossible month or day rolls over into the next; a real date comes back as it went in. (setUTCFullYear,
  // not Date.UTC, which reads years 0–99 as 1900–1999.)
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d)
    throw new ReportError(`${opt}: ${JSON.stringify(v)} is not a date on the calendar`);
  return v;
}

/** Checks options that need no files. */
function usageSettings(opts: UsageOptions): { by: GroupKey[]; since?: string; until?: string } {
  const by = opts.by ?? [];
  for (const k of by)
    if (!GROUP_KEYS.includes(k)) throw new ReportError(`--by: unknown key ${JSON.stringify(k)} (one of ${GROUP_KEYS.join(", ")})`);
  if (new Set(by).size !== by.length) throw new ReportError("--by names a key twice");
  if (opts.timezone !== undefined && !isTimeZone(opts.timezone))
    throw new ReportError(`--timezone: unknown time zone ${JSON.stringify(opts.timezone)}`);
  const since = day("--since", opts.since);
  const until = day("--until", opts.until);
  // Both are YYYY-MM-DD, so they compare as strings; a range that ends before it starts would select nothing.
  if (since !== undefined && until !== undefined && since > until)
    throw new ReportError(`--since ${since} is after --until ${until}: no day is in that range`);
  return { by, ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}

/** `pisess usage`: tokens and cost across sessions, each model call counted once (fork copies left out). */
export async function usageReport(opts: UsageOptions): Promise<Report<UsageData>> {
  const { by, since, until } = usageSettings(opts);
  if (opts.db !== undefined) return usageIndexed(opts, by, { since, until });
  const found = await fleetFiles(opts.targets ?? [], opts.env, opts.cwd);
  const breakdown = opts.breakdown === true;
  const agg = new UsageAggregator(by, calendar(opts.timezone), breakdown);
  const settings: CountSettings = {
    includeCopied: opts.includeCopied === true,
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(opts.project !== undefined ? { project: opts.project } : {}),
  };
  const notes: CountNotes = { failures: [...found.failures], damage: [], skipped: [] };
  const total = found.files.length;
  const n = threadCount(opts.threads, total);
  const url = n > 1 ? await workerModule("usage-worker.js") : undefined;
  opts.onProgress?.(0, total);
  if (url !== undefined) {
    const init: WorkerInit = { by, breakdown, settings, ...(opts.timezone !== undefined ? { timezone: opts.timezone } : {}) };
    let done = 0;
    const batches = batchesOf(found.files);
    await runOnThreads<UsageBatchResult>(url, n, init, batches, (r, b) => {
      agg.merge(r.snapshot);
      for (const v of r.notes.failures) notes.failures.push(v);
      for (const v of r.notes.damage) notes.damage.push(v);
      for (const v of r.notes.skipped) notes.skipped.push(v);
      done += batches[b]?.length ?? 0;
      opts.onProgress?.(done, total);
    });
  } else {
    // Batch by batch as the workers do, so that costs are summed in the same order and come out the same to the bit.
    const parents = new ParentCache();
    const cal = calendar(opts.timezone);
    let done = 0;
    for (let i = 0; i < total; i += BATCH) {
      const part = new UsageAggregator(by, cal, breakdown);
      await countFiles(found.files.slice(i, i + BATCH), settings, part, parents, notes, () => opts.onProgress?.(done++, total));
      agg.merge(part.snapshot());
    }
  }
  opts.onProgress?.(total, total);
  const { rows, totals } = agg.result();
  const data: UsageData = { by, rows, totals, failures: notes.failures, damage: notes.damage, skipped: notes.skipped };
  if (found.root !== undefined) data.root = found.root;
  if (found.missingRoot !== undefined) data.missingRoot = found.missingRoot;
  return { data, diagnostics: [], exitCode: notes.failures.length > 0 && opts.allowUnreadable !== true ? 2 : 0 };
}

/** usageReport answered from the index: the same count over the rows the index holds (usage-index.ts). */
async function usageIndexed(
  opts: UsageOptions,
  by: GroupKey[],
  days: { since?: string | undefined; until?: string | undefined },
): Promise<Report<UsageData>> {
  const breakdown = opts.breakdown === true;
  const cal = calendar(opts.timezone);
  const agg = new UsageAggregator(by, cal, breakdown);
  const settings: CountSettings = {
    includeCopied: opts.includeCopied === true,
    ...(days.since !== undefined ? { since: days.since } : {}),
    ...(days.until !== undefined ? { until: days.until } : {}),
    ...(opts.project !== undefined ? { project: opts.project } : {}),
  };
  const { indexOptionsOf, withIndex } = await import("./fleet-index.js");
  const { countFromIndex } = await import("./usage-index.js");
  return withIndex(indexOptionsOf(opts), async (duck, state) => {
    const notes: CountNotes = { failures: state.failures, damage: [], skipped: [] };
    const need = {
      time: by.some((k) => k === "day" || k === "week" || k === "month") || days.since !== undefined || days.until !== undefined,
      model: breakdown || by.includes("model"),
      leaf: by.includes("leaf"),
      copied: settings.includeCopied,
      project: by.includes("project") || settings.project !== undefined,
      timeZone: opts.timezone,
    };
    await countFromIndex(duck, state, settings, agg, notes, need);
    const { rows, totals } = agg.result();
    const data: UsageData = { by, rows, totals, failures: notes.failures, damage: notes.damage, skipped: notes.skipped };
    if (state.root !== undefined) data.root = state.root;
    if (state.missingRoot !== undefined) data.missingRoot = state.missingRoot;
    return { data, diagnostics: [], exitCode: notes.failures.length > 0 && opts.allowUnreadable !== true ? 2 : 0 };
  });
}

import type { PiEnv } from "../io/discover.js";
import { ioReason } from "../io/errors.js";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { damageNotes, type DamageNote, type FleetFailure, fleetFiles } from "../ops/fleet-files.js";
import { ParentCache } from "../ops/fleet-parents.js";
import { calendar, isTimeZone } from "../ops/fleet-time.js";
import { GROUP_KEYS, type GroupKey, UsageAggregator, type UsageRow, type UsageSums } from "../ops/fleet-usage.js";
import { ReportError, type Report } from "./report.js";

export interface UsageOptions {
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

function day(opt: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(v);
  if (!m) throw new ReportError(`${opt} wants a date YYYY-MM-DD, not ${JSON.stringify(v)}`);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** Checks options that need no files. */
export function usageSettings(opts: UsageOptions): { by: GroupKey[]; since?: string; until?: string } {
  const by = opts.by ?? [];
  for (const k of by)
    if (!GROUP_KEYS.includes(k)) throw new ReportError(`--by: unknown key ${JSON.stringify(k)} (one of ${GROUP_KEYS.join(", ")})`);
  if (new Set(by).size !== by.length) throw new ReportError("--by names a key twice");
  if (opts.timezone !== undefined && !isTimeZone(opts.timezone))
    throw new ReportError(`--timezone: unknown time zone ${JSON.stringify(opts.timezone)}`);
  const since = day("--since", opts.since);
  const until = day("--until", opts.until);
  return { by, ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}

/** `pisess usage`: tokens and cost across sessions, each model call counted once (fork copies left out). */
export async function usageReport(opts: UsageOptions): Promise<Report<UsageData>> {
  const { by, since, until } = usageSettings(opts);
  const found = await fleetFiles(opts.targets ?? [], opts.env, opts.cwd);
  const agg = new UsageAggregator(by, calendar(opts.timezone), opts.breakdown === true);
  const parents = new ParentCache();
  const damage: DamageNote[] = [];
  const skipped: string[] = [];
  const failures = [...found.failures];
  let done = 0;
  for (const path of found.files) {
    opts.onProgress?.(done++, found.files.length);
    let session: Session;
    try {
      session = await loadSession({ kind: "file", path });
    } catch (err) {
      failures.push({ path, reason: ioReason(err) });
      continue;
    }
    try {
      if (session.diagnostics.some((d) => d.code === "foreign-format") || session.header === null) {
        skipped.push(path);
        continue;
      }
      const project = typeof session.header.cwd === "string" ? session.header.cwd : null;
      if (opts.project !== undefined && (project === null || !project.includes(opts.project))) continue;
      damage.push(...damageNotes(path, session.diagnostics));
      const { mask } = await parents.copied(session);
      agg.addSession(session, {
        project,
        name: path,
        ...(mask !== undefined ? { copied: mask } : {}),
        includeCopied: opts.includeCopied === true,
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
      });
    } finally {
      session.store.close();
    }
  }
  opts.onProgress?.(done, found.files.length);
  const { rows, totals } = agg.result();
  const data: UsageData = { by, rows, totals, failures, damage, skipped };
  if (found.root !== undefined) data.root = found.root;
  if (found.missingRoot !== undefined) data.missingRoot = found.missingRoot;
  return { data, diagnostics: [], exitCode: failures.length > 0 ? 2 : 0 };
}

import { ioReason } from "../io/errors.js";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { notReadFinding } from "../model/readable.js";
import { damageNotes, type DamageNote, type FleetFailure } from "../ops/fleet-files.js";
import type { ParentCache } from "../ops/fleet-parents.js";
import type { UsageAggregator } from "../ops/fleet-usage.js";

/** The settings a count of sessions needs, as plain data (they are sent to worker threads). */
export interface CountSettings {
  since?: string;
  until?: string;
  project?: string;
  includeCopied: boolean;
}

/** What a count found besides the sums. */
export interface CountNotes {
  failures: FleetFailure[];
  damage: DamageNote[];
  skipped: string[];
}

/**
 * Counts the spend of `files` into `agg`, one session at a time (each loaded, counted, dropped). The same code runs
 * in the calling thread and in each worker thread (usage-worker.ts). Sessions are loaded in the spend detail, whose
 * reads are synchronous: reading ahead would overlap nothing, so there is none.
 */
export async function countFiles(
  files: readonly string[],
  s: CountSettings,
  agg: UsageAggregator,
  parents: ParentCache,
  notes: CountNotes,
  onFile?: () => void,
): Promise<void> {
  for (const path of files) {
    let session: Session<"spend">;
    try {
      session = await loadSession({ kind: "file", path }, { detail: "spend" });
    } catch (error) {
      onFile?.();
      notes.failures.push({ path, reason: ioReason(error) });
      continue;
    }
    onFile?.();
    try {
      if (notReadFinding(session) !== undefined) {
        notes.skipped.push(path);
        continue;
      }
      const project = typeof session.header?.cwd === "string" ? session.header.cwd : null;
      if (s.project !== undefined && (project === null || !project.includes(s.project))) continue;
      for (const v of damageNotes(path, session.diagnostics)) notes.damage.push(v);
      const { mask } = await parents.copied(session);
      agg.addSession(session, {
        project,
        name: path,
        ...(mask !== undefined ? { copied: mask } : {}),
        includeCopied: s.includeCopied,
        ...(s.since !== undefined ? { since: s.since } : {}),
        ...(s.until !== undefined ? { until: s.until } : {}),
      });
    } finally {
      session.store.close();
    }
  }
}

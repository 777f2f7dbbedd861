import type { Stats } from "node:fs";
import { readFileSync, statSync } from "node:fs";
import { ioReason } from "../io/errors.js";
import { loadSession } from "../model/load.js";
import { parseEntry, type Session } from "../model/session.js";
import { damageNotes } from "../ops/fleet-files.js";
import type { ParentCache } from "../ops/fleet-parents.js";
import { type EntryReader, sessionRows } from "../ops/fleet-rows.js";
import { TABLE_NAMES } from "../ops/fleet-tables.js";
import { type RowText, rowsText } from "./tables-text.js";
import type { CountNotes } from "./usage-count.js";

/**
 * Files up to this size are read back whole once for the message bodies, instead of one read per message (a
 * system call each: most of the time of a fleet of small sessions). Larger ones are read entry by entry.
 */
const WHOLE_FILE_BYTES = 64 * 1024 * 1024;

/** The rows of a batch of sessions as text (tables-text.ts), per table in TABLE_NAMES order. */
export interface TablesBatchResult {
  text: string[];
  rows: number[];
  notes: CountNotes;
}

/**
 * Turns `files` into table rows, one session at a time (each loaded, turned to rows, dropped). The same code runs in
 * the calling thread and in each worker thread (tables-worker.ts).
 */
export async function tablesBatch(files: readonly string[], parents: ParentCache, as: RowText): Promise<TablesBatchResult> {
  const lines: string[][] = TABLE_NAMES.map(() => []);
  const rows = TABLE_NAMES.map(() => 0);
  const notes: CountNotes = { failures: [], damage: [], skipped: [] };
  // Everything here reads synchronously (the spend-detail load, the stat and the whole-file read): through
  // promises, opening, stating and closing ten thousand files cost more CPU than reading them, and reading ahead
  // would overlap nothing.
  for (const path of files) {
    let session: Session;
    let st: Stats;
    let bytes: Buffer | undefined;
    try {
      st = statSync(path);
      // The spend detail: message bodies are parsed below anyway, so the index need not parse them as well.
      session = await loadSession({ kind: "file", path }, { detail: "spend" });
      const whole = st.size <= WHOLE_FILE_BYTES && session.header !== null;
      bytes = whole ? readFileSync(path) : undefined;
    } catch (error) {
      notes.failures.push({ path, reason: ioReason(error) });
      continue;
    }
    try {
      if (session.header === null || session.diagnostics.some((d) => d.code === "foreign-format")) {
        notes.skipped.push(path);
        continue;
      }
      notes.damage.push(...damageNotes(path, session.diagnostics));
      const fork = await parents.copied(session);
      const read: EntryReader | undefined = bytes
        ? (rec) => parseEntry(session, rec, bytes.toString("utf8", rec.offset, rec.offset + rec.length))
        : undefined;
      const r = sessionRows(
        session,
        {
          file: path,
          bytes: st.size,
          mtimeMs: st.mtimeMs,
          ...(fork.parent !== undefined ? { parent: fork.parent, parentExists: fork.exists } : {}),
          ...(fork.mask !== undefined ? { copied: fork.mask } : {}),
        },
        read,
      );
      for (const [i, t] of TABLE_NAMES.entries()) {
        if (r[t].length === 0) continue;
        rows[i] = (rows[i] ?? 0) + r[t].length;
        // Joined per session: one string per table outlives the session instead of one per row (less to collect).
        const own: string[] = [];
        rowsText(t, r[t], as, own);
        (lines[i] as string[]).push(own.join("\n"));
      }
    } finally {
      session.store.close();
    }
  }
  return { text: lines.map((l) => (l.length > 0 ? `${l.join("\n")}\n` : "")), rows, notes };
}

import { readFileSync } from "node:fs";
import { ioReason } from "../io/errors.js";
import type { FileStat } from "../model/store-text.js";
import { loadSession } from "../model/load.js";
import { parseEntry, type Session } from "../model/session.js";
import { notReadFinding } from "../model/readable.js";
import { damageNotes } from "../ops/fleet-files.js";
import type { ParentCache } from "../ops/fleet-parents.js";
import { type EntryReader, emitSessionRows, loadedBodies, type RowSink } from "../ops/fleet-rows.js";
import { TABLE_NAMES, type TableName } from "../ops/fleet-tables.js";
import { giveBack, jsonColumns, ndjsonRow, type RowText, TableBytes } from "./tables-text.js";
import type { CountNotes } from "./usage-count.js";

/**
 * A file whose messages the load left without body facts (lines its scanner was unsure of) is read back whole once
 * for them, when there are several and it is no larger than this; else they are read one by one (a system call
 * each).
 */
const WHOLE_FILE_BYTES = 64 * 1024 * 1024;

/** How the messages the load read no body for are read back: by their lines in the file read whole, or one by one. */
function readBack(session: Session<"tables">, path: string, size: number): EntryReader | undefined {
  let missing = 0;
  for (const rec of session.entries) if (rec.type === "message" && rec.body === undefined && ++missing > 1) break;
  if (missing < 2 || size > WHOLE_FILE_BYTES) return undefined;
  const bytes = readFileSync(path);
  return (rec) => parseEntry(session, rec, bytes.toString("utf8", rec.offset, rec.offset + rec.length));
}

/** Each table's index in TABLE_NAMES (the order of a batch's buffers). */
const TABLE_INDEX = Object.fromEntries(TABLE_NAMES.map((t, i) => [t, i])) as Record<TableName, number>;

/**
 * The rows of a batch of sessions as text (tables-text.ts), per table in TABLE_NAMES order: UTF-8 in the first
 * `lengths[i]` bytes of `buffers[i]` (moved to the writing thread and back: TableBytes).
 */
export interface TablesBatchResult {
  buffers: ArrayBuffer[];
  lengths: number[];
  /** Bytes of each table's longest CSV row. */
  longest: number[];
  rows: number[];
  notes: CountNotes;
}

/** A written batch's buffers (TablesBatchResult.buffers) go back to be filled again, in the thread that made them. */
export function recycle(buffers: readonly ArrayBuffer[]): void {
  for (const [i, b] of buffers.entries()) giveBack(i, b);
}

/**
 * Turns `files` into table rows, one session at a time (each loaded, turned to rows, dropped). The same code runs in
 * the calling thread and in each worker thread (tables-worker.ts).
 */
export async function tablesBatch(files: readonly string[], parents: ParentCache, as: RowText): Promise<TablesBatchResult> {
  const out = TABLE_NAMES.map((_, i) => new TableBytes(i, jsonColumns(i)));
  const rows = TABLE_NAMES.map(() => 0);
  const notes: CountNotes = { failures: [], damage: [], skipped: [] };
  // NDJSON lines of the session being read, per table.
  const lines = as === "ndjson" ? TABLE_NAMES.map((): string[] => []) : undefined;
  const sink: RowSink =
    lines === undefined
      ? (t, row) => {
          const i = TABLE_INDEX[t];
          rows[i] = (rows[i] ?? 0) + 1;
          (out[i] as TableBytes).csvRow(row);
        }
      : (t, row) => {
          const i = TABLE_INDEX[t];
          rows[i] = (rows[i] ?? 0) + 1;
          (lines[i] as string[]).push(ndjsonRow(t, row));
        };
  // Everything here reads synchronously (the tables-detail load and any whole-file read): through
  // promises, opening, stating and closing ten thousand files cost more CPU than reading them, and reading ahead
  // would overlap nothing.
  for (const path of files) {
    let session: Session<"tables">;
    let st: FileStat;
    let read: EntryReader | undefined;
    try {
      // The tables detail: the spend detail's index, and the message body facts the rows need, read from the bytes.
      session = await loadSession({ kind: "file", path }, { detail: "tables" });
      // Its size and mtime as the load opened it (a file's load always has them: io/scan/lines.ts).
      st = session.facts.stat as FileStat;
      read = notReadFinding(session) === undefined ? readBack(session, path, st.size) : undefined;
    } catch (error) {
      notes.failures.push({ path, reason: ioReason(error) });
      continue;
    }
    try {
      if (notReadFinding(session) !== undefined) {
        notes.skipped.push(path);
        continue;
      }
      for (const v of damageNotes(path, session.diagnostics)) notes.damage.push(v);
      const fork = await parents.copied(session);
      emitSessionRows(
        session,
        {
          file: path,
          bytes: st.size,
          mtimeMs: st.mtimeMs,
          ...(fork.parent !== undefined ? { parent: fork.parent, parentExists: fork.exists } : {}),
          ...(fork.mask !== undefined ? { copied: fork.mask } : {}),
        },
        sink,
        loadedBodies(session, read),
      );
      if (lines !== undefined)
        for (const [i, l] of lines.entries()) {
          if (l.length === 0) continue;
          // One string per table and session to turn into bytes.
          l.push("");
          (out[i] as TableBytes).add(l.join("\n"));
          l.length = 0;
        }
    } finally {
      session.store.close();
    }
  }
  return { buffers: out.map((o) => o.buffer), lengths: out.map((o) => o.length), longest: out.map((o) => o.longest), rows, notes };
}

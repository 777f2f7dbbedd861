import { readFileSync } from "node:fs";
import { ioReason } from "../io/errors.js";
import { type FileMarks, fileMarks } from "../io/index-file.js";
import type { FileStat } from "../model/store-text.js";
import { type IndexerState, loadResumable, loadSession, restoredSession, resumeSession } from "../model/load.js";
import type { MessageBody } from "../model/types.js";
import { parseEntry, type Session } from "../model/session.js";
import { notReadFinding } from "../model/readable.js";
import { damageNotes } from "../ops/fleet-files.js";
import type { ParentCache } from "../ops/fleet-parents.js";
import { type BodyReader, type EntryReader, emitSessionRows, loadedBodies, type Row, type RowSink } from "../ops/fleet-rows.js";
import { encodeState, type KeptState, keepsState } from "./index-state.js";
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
  /** Asked for by the index: what each file read leaves to go on from. */
  states?: ReadState[];
}

/** A written batch's buffers (TablesBatchResult.buffers) go back to be filled again, in the thread that made them. */
export function recycle(buffers: readonly ArrayBuffer[]): void {
  for (const [i, b] of buffers.entries()) giveBack(i, b);
}

/** What a worker thread is started with: the rows' text, and whether the index wants each file's state. */
export interface TablesWorkerInit {
  as: RowText;
  states: boolean;
}

/** A session file read for the index: the state to go on from next time (undefined: read it whole next time). */
export interface ReadState {
  path: string;
  state: Uint8Array | undefined;
  /** Where the state goes on from (its line end). */
  at: number | undefined;
  /** Bytes of the file read (from the start, or from where the state went on). */
  bytes: number;
  /** The fork parent its sessions row names (null: not a fork, or not read). */
  parent: string | null;
  /** Its unterminated last line was held back (the snapshot rule: modified in the last seconds), not read. */
  held: boolean;
  /** Of a file read whole: its marks, taken by the reader just before it read it (the files row's values). */
  marks?: FileMarks;
}

/** Whether the load held back the file's unterminated last line (the loader reports it as incomplete-last-line). */
const heldBack = (session: Session): boolean => session.diagnostics.some((d) => d.code === "incomplete-last-line");

/** How a batch writes rows: a sink per table, and the bytes and counts they fill. */
function batchOut(as: RowText) {
  const out = TABLE_NAMES.map((_, i) => new TableBytes(i, jsonColumns(i)));
  const rows = TABLE_NAMES.map(() => 0);
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
  /** Ends a session: its NDJSON lines become bytes (one string per table and session). */
  const flush = (): void => {
    if (lines === undefined) return;
    for (const [i, l] of lines.entries()) {
      if (l.length === 0) continue;
      l.push("");
      (out[i] as TableBytes).add(l.join("\n"));
      l.length = 0;
    }
  };
  const result = (notes: CountNotes): TablesBatchResult => ({
    buffers: out.map((o) => o.buffer),
    lengths: out.map((o) => o.length),
    longest: out.map((o) => o.longest),
    rows,
    notes,
  });
  return { sink, flush, result };
}

/** A session's rows into `sink`, with its fork's copies; returns the copied-entry count when there is a mask, and the parent. */
async function sessionRows(
  session: Session<"tables">,
  path: string,
  parents: ParentCache,
  sink: RowSink,
  body: BodyReader,
  grown?: { before: number; copies: number | undefined },
): Promise<{ copies: number | undefined; parent: string | null }> {
  const st = session.facts.stat as FileStat;
  const fork = grown === undefined ? await parents.copied(session) : await parents.copiedGrown(session, grown.before, grown.copies);
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
    body,
  );
  const parent = fork.parent ?? null;
  if (fork.mask === undefined) return { copies: undefined, parent };
  let n = 0;
  while (n < fork.mask.length && fork.mask[n] === 1) n++;
  return { copies: n, parent };
}

/** A body reader that remembers each message's body facts by entry index (the state keeps them). */
function remembered(read: BodyReader): { body: BodyReader; seen: (MessageBody | undefined)[] } {
  const seen: (MessageBody | undefined)[] = [];
  return {
    seen,
    body: (rec) => {
      const b = read(rec);
      seen[rec.index] = b;
      return b;
    },
  };
}

/**
 * Turns `files` into table rows, one session at a time (each loaded, turned to rows, dropped). The same code runs in
 * the calling thread and in each worker thread (tables-worker.ts). With `states` (the index), each file's loader
 * state to go on from comes back too (`TablesBatchResult.states`).
 */
export async function tablesBatch(files: readonly string[], parents: ParentCache, as: RowText, states = false): Promise<TablesBatchResult> {
  const { sink, flush, result } = batchOut(as);
  const notes: CountNotes = { failures: [], damage: [], skipped: [] };
  const kept: ReadState[] = [];
  // Everything here reads synchronously (the tables-detail load and any whole-file read): through
  // promises, opening, stating and closing ten thousand files cost more CPU than reading them, and reading ahead
  // would overlap nothing.
  for (const path of files) {
    let session: Session<"tables">;
    let state: IndexerState | undefined;
    let read: EntryReader | undefined;
    let marks: FileMarks | undefined;
    try {
      // The index's marks of the file, taken where it is read (a worker), just before: taken on the main thread, a
      // first build's 10,000 files waited for their marks one file at a time before any worker started (out of the
      // page cache, 1.3 s of 14). An unreadable file, or one that is not a regular file, fails here, unopened by a load.
      if (states) marks = fileMarks(path);
      // The tables detail: the spend detail's index, and the message body facts the rows need, read from the bytes.
      if (states) ({ session, state } = await loadResumable(path, { detail: "tables" }));
      else session = await loadSession({ kind: "file", path }, { detail: "tables" });
      // Its size as the load opened it (a file's load always has it: io/scan/lines.ts).
      const size = (session.facts.stat as FileStat).size;
      read = notReadFinding(session) === undefined ? readBack(session, path, size) : undefined;
    } catch (error) {
      notes.failures.push({ path, reason: ioReason(error) });
      continue;
    }
    try {
      if (notReadFinding(session) !== undefined) {
        notes.skipped.push(path);
        if (states)
          kept.push({
            path,
            state: undefined,
            at: undefined,
            bytes: session.facts.bytes,
            parent: null,
            held: heldBack(session),
            ...(marks ? { marks } : {}),
          });
        continue;
      }
      for (const v of damageNotes(path, session.diagnostics)) notes.damage.push(v);
      const r = remembered(loadedBodies(session, read));
      const { copies, parent } = await sessionRows(session, path, parents, sink, r.body);
      flush();
      if (states) {
        const keep = state !== undefined && keepsState((session.facts.stat as FileStat).mtimeMs) ? state : undefined;
        kept.push({
          path,
          state: keep && encodeState({ state: keep, copied: copies }, (rec) => r.seen[rec.index]),
          at: keep?.start.offset,
          bytes: session.facts.bytes,
          parent,
          held: heldBack(session),
          ...(marks ? { marks } : {}),
        });
      }
    } finally {
      session.store.close();
    }
  }
  const out = result(notes);
  if (states) out.states = kept;
  return out;
}

/** A file the index goes on reading from its state: the state, decoded. */
export interface GrownFile {
  path: string;
  kept: KeptState;
}

/** The rows of the lines before `firstNew` (every table but leaves and sessions), copied, in the order made. */
function earlierRows(session: Session<"tables">, path: string, copies: number | undefined, firstNew: number): Map<TableName, Row[]> {
  const out = new Map<TableName, Row[]>();
  const copied = copies === undefined ? undefined : new Uint8Array(session.entries.length).fill(1, 0, copies);
  const sink: RowSink = (t, row) => {
    if ((row[1] as number) >= firstNew) return;
    const list = out.get(t) ?? [];
    if (list.length === 0) out.set(t, list);
    list.push([...row]);
  };
  emitSessionRows(session, { file: path, bytes: 0, mtimeMs: 0, ...(copied ? { copied } : {}) }, sink, loadedBodies(session), true);
  return out;
}

const sameRow = (a: Row | undefined, b: Row): boolean => a !== undefined && a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * The rows of sessions that grew, each read from its state on (only the bytes appended since): the new lines' rows
 * and every leaves and sessions row into `fresh`; into `patch`, the rows of the lines read before whose values
 * changed (leaf, default path, depth, label, owner leaf, model, tool results, copies: the tree's), found by making
 * them from the state as it was and from the grown session alike. Their message bodies are the state's (without
 * text, names or arguments), so only their other values count. A file whose reading cannot go on is in `fallback`.
 */
export async function grownBatch(
  files: readonly GrownFile[],
  parents: ParentCache,
): Promise<{ fresh: TablesBatchResult; patch: TablesBatchResult; grown: ReadState[]; fallback: string[] }> {
  const fresh = batchOut("csv");
  const patch = batchOut("csv");
  const notes: CountNotes = { failures: [], damage: [], skipped: [] };
  const grown: ReadState[] = [];
  const fallback: string[] = [];
  for (const { path, kept } of files) {
    const before = kept.state.entries.length;
    const firstNew = kept.state.start.line + 1;
    const from = kept.state.start.offset;
    let session: Session<"tables">;
    let state: IndexerState | undefined;
    let earlier: Map<TableName, Row[]>;
    try {
      const old = restoredSession(path, kept.state, { detail: "tables" });
      earlier = earlierRows(old, path, kept.copied, firstNew);
      old.store.close();
      ({ session, state } = await resumeSession(path, kept.state, { detail: "tables" }));
    } catch {
      // Shrunk meanwhile, gone, or a state that does not restore: read whole, where a failure is reported as for any file.
      fallback.push(path);
      continue;
    }
    try {
      const r = remembered(loadedBodies(session));
      const at = new Map<TableName, number>();
      const rows: { t: TableName; row: Row; fresh: boolean }[] = [];
      const { copies, parent } = await sessionRows(
        session,
        path,
        parents,
        (t, row) => {
          if (t === "leaves" || t === "sessions" || (row[1] as number) >= firstNew) return rows.push({ t, row: [...row], fresh: true });
          const k = at.get(t) ?? 0;
          at.set(t, k + 1);
          const was = earlier.get(t)?.[k];
          // The same line's row (and call), made from the same records: only a tree-dependent value can differ.
          if (was === undefined || was[1] !== row[1] || (t === "tool_calls" && was[2] !== row[2])) throw new Error("rows out of step");
          if (!sameRow(was, row)) rows.push({ t, row: [...row], fresh: false });
        },
        r.body,
        { before, copies: kept.copied },
      );
      // Written once every row of the session is made and the two makings were in step.
      for (const x of rows) (x.fresh ? fresh : patch).sink(x.t, x.row);
      for (const v of damageNotes(path, session.diagnostics)) notes.damage.push(v);
      const keep = state !== undefined && keepsState((session.facts.stat as FileStat).mtimeMs) ? state : undefined;
      grown.push({
        path,
        state: keep && encodeState({ state: keep, copied: copies }, (rec) => r.seen[rec.index]),
        at: keep?.start.offset,
        bytes: session.facts.bytes - from,
        parent,
        held: heldBack(session),
      });
    } finally {
      session.store.close();
    }
  }
  return { fresh: fresh.result(notes), patch: patch.result({ failures: [], damage: [], skipped: [] }), grown, fallback };
}

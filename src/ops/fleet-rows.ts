import type { SpendSession } from "./totals.js";
import type { EntryFields } from "../model/types.js";
import { messageBody, NO_BODY } from "../model/body.js";
import type { Session } from "../model/session.js";
import { readEntry } from "../model/session.js";
import type { MessageBody, Usage } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import { TABLES, type TableName } from "./fleet-tables.js";
import { ownerLeaves } from "./fleet-leaf.js";
import { emitLeafRows } from "./fleet-leaves.js";
import { leafRecs } from "./leaves.js";
import { pathTo } from "./path.js";
import { spendModels, spendOf } from "./totals.js";
import { buildTree } from "./tree.js";

/**
 * One row: its values in the order of its table's columns (src/ops/fleet-tables.ts). Timestamps are milliseconds since
 * the epoch (or null): the writers format them, so no row pays for a date text no output needs.
 */
export type Row = (string | number | boolean | null)[];

/** The rows of every table for one session. */
export type TableRows = Record<TableName, Row[]>;

export interface FileFacts {
  /** The file as found (the key of every row). */
  file: string;
  bytes: number;
  mtimeMs: number;
  /** The fork parent resolved, when the header names one; and whether it exists. */
  parent?: string;
  parentExists?: boolean;
  /** Entries copied from that parent (by index). */
  copied?: Uint8Array;
}

function ms(t: number): number | null {
  return Number.isFinite(t) ? t : null;
}

/** Sets the USAGE_COLUMNS of a row from `at`: input, output, cache_read, cache_write, cache_write_1h, reasoning, total_tokens, cost. */
function setUsage(row: Row, at: number, u: Usage | undefined): void {
  row[at] = u ? u.input : 0;
  row[at + 1] = u ? u.output : 0;
  row[at + 2] = u ? u.cacheRead : 0;
  row[at + 3] = u ? u.cacheWrite : 0;
  row[at + 4] = u ? u.cacheWrite1h : 0;
  row[at + 5] = u ? u.reasoning : 0;
  row[at + 6] = u ? u.input + u.output + u.cacheRead + u.cacheWrite : 0;
  row[at + 7] = u ? u.cost : 0;
}

/** Reads an entry's object back (default: readEntry, one read per entry; a caller holding the bytes can do better). */
export type EntryReader = (rec: EntryRec) => Record<string, unknown>;

/** A message entry's body facts. */
export type BodyReader = (rec: EntryRec) => MessageBody;

/** Body facts from the entries parsed back whole (`read`): what a record without `body` needs. */
export function parsedBodies(read: EntryReader): BodyReader {
  return (rec) => {
    let message: unknown;
    try {
      message = read(rec).message;
    } catch {
      // A line that no longer parses (the file changed since it was indexed): as a message without a body.
      return NO_BODY;
    }
    return messageBody(message);
  };
}

/** The body facts the load read (the tables detail), else from the entry parsed back with `read`. */
export function loadedBodies(session: Session, read: EntryReader = (rec) => readEntry(session, rec)): BodyReader {
  const parsed = parsedBodies(read);
  // Any load's record, read as the fields a load may fill: only the tables detail's have body facts, and not all.
  return (rec: EntryFields) => rec.body ?? parsed(rec);
}

/**
 * Receives the rows of a session as they are made. `row` is reused for the table's next row: a sink that keeps a row
 * copies it (a fleet makes millions of rows, and an array for each cost more in allocation and GC than writing them).
 */
export type RowSink = (table: TableName, row: Row) => void;

/** A row's array for `table`, filled value by value. */
function rowOf(table: TableName): Row {
  return new Array<string | number | boolean | null>(TABLES[table].columns.length).fill(null);
}

/** Each entry's place in the tree, by entry index: leaf, on the default leaf's path, depth. */
function treeMarks(session: Session) {
  const n = session.entries.length;
  const tree = buildTree(session);
  // Marks by entry index, not Sets of records: a row per entry asks each of them once.
  const isLeaf = new Uint8Array(n);
  let leafCount = 0;
  for (const rec of leafRecs(session, tree)) {
    isLeaf[rec.index] = 1;
    leafCount++;
  }
  const onPath = new Uint8Array(n);
  if (session.defaultLeaf) {
    const p = pathTo(session, session.defaultLeaf);
    if (p.ok) for (const r of p.path) onPath[r.index] = 1;
  }
  const depth = new Int32Array(n);
  const stack = [...tree.roots];
  while (stack.length > 0) {
    const node = stack.pop() as (typeof tree.roots)[number];
    const d = depth[node.rec.index] as number;
    for (const ch of node.children) {
      depth[ch.rec.index] = d + 1;
      stack.push(ch);
    }
  }
  return { tree, isLeaf, leafCount, onPath, depth };
}

/** The message bodies by entry index, and the tool results by call id (the first answers). */
function readBodies(session: Session, body: BodyReader) {
  const bodies: (MessageBody | undefined)[] = [];
  const results = new Map<string, { rec: EntryRec; isError: boolean | null; bytes: number }>();
  for (const rec of session.entries) {
    if (rec.type !== "message") continue;
    const m = body(rec);
    bodies[rec.index] = m;
    const r = m.result;
    if (r !== null && !results.has(r.callId)) results.set(r.callId, { rec, isError: r.isError, bytes: r.bytes });
  }
  return { bodies, results };
}

/**
 * Every table's rows for one session, loaded in the tables detail, the spend detail or in full, given to `sink` in
 * table order within each table: the text, stop reasons, tool calls and results come from the message bodies
 * (`body`: by default those the tables detail read, else the entries read back and parsed).
 */
export function emitSessionRows(
  session: SpendSession,
  facts: FileFacts,
  sink: RowSink,
  body: BodyReader = loadedBodies(session),
  /** Only the rows of each entry (entries, messages, tool_calls, usage): no leaves rows, no sessions row. */
  perEntry = false,
): void {
  const file = facts.file;
  const entries = session.entries;
  const { tree, isLeaf, leafCount, onPath, depth } = treeMarks(session);
  const copied = (rec: EntryRec) => facts.copied?.[rec.index] === 1;
  const modelOf = spendModels(session);
  const { bodies, results } = readBodies(session, body);
  const entryRow = rowOf("entries");
  const messageRow = rowOf("messages");
  const callRow = rowOf("tool_calls");
  const usageRow = rowOf("usage");
  entryRow[0] = messageRow[0] = callRow[0] = usageRow[0] = file;
  let messages = 0;
  let turns = 0;
  let calls = 0;
  let compactions = 0;
  let copiedEntries = 0;
  let owner: Int32Array | undefined;
  for (const rec of entries) {
    const timestamp = ms(rec.time);
    const id = rec.id ?? null;
    const isCopied = copied(rec);
    if (isCopied) copiedEntries++;
    if (rec.type === "compaction") compactions++;
    entryRow[1] = rec.line;
    entryRow[2] = id;
    entryRow[3] = typeof rec.parentId === "string" ? rec.parentId : null;
    entryRow[4] = rec.type;
    entryRow[5] = timestamp;
    entryRow[6] = onPath[rec.index] === 1;
    entryRow[7] = isLeaf[rec.index] === 1;
    entryRow[8] = rec.id !== undefined ? (session.labels.get(rec.id) ?? null) : null;
    entryRow[9] = tree.inCycle[rec.index] === 1 ? null : (depth[rec.index] as number);
    entryRow[10] = isCopied;
    sink("entries", entryRow);
    if (rec.type === "message") {
      messages++;
      const m = bodies[rec.index] ?? NO_BODY;
      const assistant = rec.role === "assistant";
      if (assistant) turns++;
      messageRow[1] = rec.line;
      messageRow[2] = id;
      messageRow[3] = rec.role ?? null;
      messageRow[4] = assistant ? (rec.provider ?? null) : null;
      messageRow[5] = assistant ? (rec.model ?? null) : null;
      // From the body (the session may be loaded in the spend detail, which leaves stopReason out of the index).
      messageRow[6] = assistant ? m.stopReason : null;
      messageRow[7] = timestamp;
      messageRow[8] = m.textLength;
      setUsage(messageRow, 9, rec.usage);
      messageRow[17] = isCopied;
      sink("messages", messageRow);
      if (assistant) {
        for (const call of m.toolCalls) {
          calls++;
          const res = call.id !== null ? results.get(call.id) : undefined;
          const dt = res ? res.rec.time - rec.time : NaN;
          callRow[1] = rec.line;
          callRow[2] = call.id;
          callRow[3] = call.name;
          callRow[4] = call.arguments;
          callRow[5] = res?.rec.line ?? null;
          callRow[6] = res ? res.isError : null;
          callRow[7] = res ? res.bytes : null;
          callRow[8] = Number.isFinite(dt) ? dt : null;
          callRow[9] = isCopied;
          sink("tool_calls", callRow);
        }
      }
    }
    const kind = spendOf(rec);
    if (kind !== undefined) {
      const m = modelOf(rec);
      usageRow[1] = rec.line;
      usageRow[2] = id;
      usageRow[3] = kind.source;
      usageRow[4] = kind.kind;
      usageRow[5] = m.provider;
      usageRow[6] = m.model;
      usageRow[7] = timestamp;
      setUsage(usageRow, 8, rec.usage);
      usageRow[16] = isCopied;
      owner ??= ownerLeaves(session, tree);
      usageRow[17] = (entries[owner[rec.index] as number] as EntryRec).line;
      sink("usage", usageRow);
    }
  }
  if (perEntry) return;
  emitLeafRows(session, tree, file, bodies, facts.copied, (row) => sink("leaves", row));
  const h = session.header;
  sink("sessions", [
    file,
    typeof h?.id === "string" ? h.id : null,
    typeof h?.cwd === "string" ? h.cwd : null,
    facts.parent ?? null,
    facts.parent !== undefined ? facts.parentExists === true : null,
    typeof h?.timestamp === "string" ? ms(Date.parse(h.timestamp)) : null,
    Math.trunc(facts.mtimeMs),
    facts.bytes,
    typeof session.version === "number" && Number.isInteger(session.version) ? session.version : null,
    session.sessionName ?? null,
    session.entries.length,
    messages,
    turns,
    calls,
    compactions,
    leafCount,
    copiedEntries,
    session.skipped.filter((s) => s.reason === "malformed" || s.reason === "non-object").length,
  ]);
}

/** Every table's rows for one session, collected (emitSessionRows). */
export function sessionRows(session: SpendSession, facts: FileFacts, body?: BodyReader): TableRows {
  const rows: TableRows = { sessions: [], entries: [], messages: [], tool_calls: [], usage: [], leaves: [] };
  emitSessionRows(session, facts, (table, row) => rows[table].push([...row]), body);
  return rows;
}

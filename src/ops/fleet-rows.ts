import { messageBody, NO_BODY } from "../model/body.js";
import type { Session } from "../model/session.js";
import { readEntry } from "../model/session.js";
import type { EntryRec, MessageBody, Usage } from "../model/types.js";
import type { TableName } from "./fleet-tables.js";
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

/** USAGE_COLUMNS: input, output, cache_read, cache_write, cache_write_1h, reasoning, total_tokens, cost. */
function usageCols(u: Usage | undefined): number[] {
  if (!u) return [0, 0, 0, 0, 0, 0, 0, 0];
  return [
    u.input,
    u.output,
    u.cacheRead,
    u.cacheWrite,
    u.cacheWrite1h,
    u.reasoning,
    u.input + u.output + u.cacheRead + u.cacheWrite,
    u.cost,
  ];
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
  return (rec) => rec.body ?? parsed(rec);
}

/**
 * Every table's rows for one session, loaded in the tables detail, the spend detail or in full: the text, stop
 * reasons, tool calls and results come from the message bodies (`body`: by default those the tables detail read,
 * else the entries read back and parsed).
 */
export function sessionRows(session: Session, facts: FileFacts, body: BodyReader = loadedBodies(session)): TableRows {
  const file = facts.file;
  const tree = buildTree(session);
  const leaves = new Set(leafRecs(session));
  const onPath = new Set<EntryRec>();
  if (session.defaultLeaf) {
    const p = pathTo(session, session.defaultLeaf);
    if (p.ok) for (const r of p.path) onPath.add(r);
  }
  const depth = new Int32Array(session.entries.length);
  const stack = tree.roots.map((n) => ({ n, d: 0 }));
  while (stack.length > 0) {
    const { n, d } = stack.pop() as { n: (typeof tree.roots)[number]; d: number };
    depth[n.rec.index] = d;
    for (const ch of n.children) stack.push({ n: ch, d: d + 1 });
  }
  const copied = (rec: EntryRec) => facts.copied?.[rec.index] === 1;
  const modelOf = spendModels(session);
  const rows: TableRows = { sessions: [], entries: [], messages: [], tool_calls: [], usage: [] };
  // Tool results by call id (the first answers), read from the message bodies.
  const bodies = new Map<EntryRec, MessageBody>();
  const results = new Map<string, { rec: EntryRec; isError: boolean | null; bytes: number }>();
  for (const rec of session.entries) {
    if (rec.type !== "message") continue;
    const m = body(rec);
    bodies.set(rec, m);
    const r = m.result;
    if (r !== null && !results.has(r.callId)) results.set(r.callId, { rec, isError: r.isError, bytes: r.bytes });
  }
  let messages = 0;
  let turns = 0;
  let calls = 0;
  let compactions = 0;
  let copiedEntries = 0;
  for (const rec of session.entries) {
    const timestamp = ms(rec.time);
    const id = rec.id ?? null;
    const isCopied = copied(rec);
    if (isCopied) copiedEntries++;
    if (rec.type === "compaction") compactions++;
    rows.entries.push([
      file,
      rec.line,
      id,
      typeof rec.parentId === "string" ? rec.parentId : null,
      rec.type,
      timestamp,
      onPath.has(rec),
      leaves.has(rec),
      rec.id !== undefined ? (session.labels.get(rec.id) ?? null) : null,
      tree.inCycle[rec.index] === 1 ? null : (depth[rec.index] as number),
      isCopied,
    ]);
    if (rec.type === "message") {
      messages++;
      const m = bodies.get(rec) ?? NO_BODY;
      const assistant = rec.role === "assistant";
      if (assistant) turns++;
      rows.messages.push([
        file,
        rec.line,
        id,
        rec.role ?? null,
        assistant ? (rec.provider ?? null) : null,
        assistant ? (rec.model ?? null) : null,
        // From the body (the session may be loaded in the spend detail, which leaves stopReason out of the index).
        assistant ? m.stopReason : null,
        timestamp,
        m.textLength,
        ...usageCols(rec.usage),
        isCopied,
      ]);
      if (assistant) {
        for (const call of m.toolCalls) {
          calls++;
          const res = call.id !== null ? results.get(call.id) : undefined;
          const dt = res ? res.rec.time - rec.time : NaN;
          rows.tool_calls.push([
            file,
            rec.line,
            call.id,
            call.name,
            call.arguments,
            res?.rec.line ?? null,
            res ? res.isError : null,
            res ? res.bytes : null,
            Number.isFinite(dt) ? dt : null,
            isCopied,
          ]);
        }
      }
    }
    const kind = spendOf(rec);
    if (kind !== undefined) {
      const m = modelOf(rec);
      rows.usage.push([file, rec.line, id, kind.source, kind.kind, m.provider, m.model, timestamp, ...usageCols(rec.usage), isCopied]);
    }
  }
  const h = session.header;
  rows.sessions.push([
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
    leaves.size,
    copiedEntries,
    session.skipped.filter((s) => s.reason === "malformed" || s.reason === "non-object").length,
  ]);
  return rows;
}

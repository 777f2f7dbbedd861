import type { Session } from "../model/session.js";
import { readEntry } from "../model/session.js";
import type { EntryRec, Usage } from "../model/types.js";
import type { TableName } from "./fleet-tables.js";
import { leafRecs } from "./leaves.js";
import { pathTo } from "./path.js";
import { spendModels, spendOf } from "./totals.js";
import { buildTree } from "./tree.js";

/** The rows of every table for one session (column names as in src/ops/fleet-tables.ts). */
export type TableRows = Record<TableName, Record<string, unknown>[]>;

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

function iso(ms: number): string | null {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

function usageCols(u: Usage | undefined): Record<string, number> {
  return {
    input: u?.input ?? 0,
    output: u?.output ?? 0,
    cache_read: u?.cacheRead ?? 0,
    cache_write: u?.cacheWrite ?? 0,
    cache_write_1h: u?.cacheWrite1h ?? 0,
    reasoning: u?.reasoning ?? 0,
    total_tokens: u ? u.input + u.output + u.cacheRead + u.cacheWrite : 0,
    cost: u?.cost ?? 0,
  };
}

/** Characters of text in a message content: a string, or the text blocks. */
function textLength(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content)
    if (b && typeof b === "object" && (b as { type?: unknown }).type === "text" && typeof (b as { text?: unknown }).text === "string")
      n += ((b as { text: string }).text as string).length;
  return n;
}

function textBytes(content: unknown): number {
  if (typeof content === "string") return Buffer.byteLength(content, "utf8");
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content)
    if (b && typeof b === "object" && typeof (b as { text?: unknown }).text === "string")
      n += Buffer.byteLength((b as { text: string }).text, "utf8");
  return n;
}

interface ToolCallBlock {
  id: string | null;
  name: string | null;
  arguments: string | null;
}

function toolCalls(content: unknown): ToolCallBlock[] {
  if (!Array.isArray(content)) return [];
  const out: ToolCallBlock[] = [];
  for (const b of content) {
    if (!b || typeof b !== "object" || (b as { type?: unknown }).type !== "toolCall") continue;
    const o = b as { id?: unknown; name?: unknown; arguments?: unknown };
    out.push({
      id: typeof o.id === "string" ? o.id : null,
      name: typeof o.name === "string" ? o.name : null,
      arguments: o.arguments === undefined ? null : JSON.stringify(o.arguments),
    });
  }
  return out;
}

/** Reads an entry's object back (default: readEntry, one read per entry; a caller holding the bytes can do better). */
export type EntryReader = (rec: EntryRec) => Record<string, unknown>;

/**
 * Every table's rows for one session, loaded in the spend detail or in full: message bodies are read back for text,
 * stop reasons, tool calls and results.
 */
export function sessionRows(session: Session, facts: FileFacts, read: EntryReader = (rec) => readEntry(session, rec)): TableRows {
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
  const bodies = new Map<EntryRec, Record<string, unknown>>();
  const results = new Map<string, { rec: EntryRec; isError: boolean | null; bytes: number }>();
  for (const rec of session.entries) {
    if (rec.type !== "message") continue;
    let m: Record<string, unknown> | undefined;
    try {
      const o = read(rec).message;
      if (o && typeof o === "object") m = o as Record<string, unknown>;
    } catch {
      m = undefined;
    }
    if (!m) continue;
    bodies.set(rec, m);
    if (m.role === "toolResult" && typeof m.toolCallId === "string" && !results.has(m.toolCallId)) {
      results.set(m.toolCallId, { rec, isError: typeof m.isError === "boolean" ? m.isError : null, bytes: textBytes(m.content) });
    }
  }
  let messages = 0;
  let turns = 0;
  let calls = 0;
  let compactions = 0;
  let copiedEntries = 0;
  for (const rec of session.entries) {
    // One date text per entry, shared by the tables that show it.
    const timestamp = iso(rec.time);
    if (copied(rec)) copiedEntries++;
    if (rec.type === "compaction") compactions++;
    rows.entries.push({
      session: file,
      line: rec.line,
      id: rec.id ?? null,
      parent_id: typeof rec.parentId === "string" ? rec.parentId : null,
      type: rec.type,
      timestamp,
      on_default_path: onPath.has(rec),
      is_leaf: leaves.has(rec),
      label: rec.id !== undefined ? (session.labels.get(rec.id) ?? null) : null,
      depth: tree.inCycle[rec.index] === 1 ? null : depth[rec.index],
      is_copied: copied(rec),
    });
    if (rec.type === "message") {
      messages++;
      const m = bodies.get(rec);
      if (rec.role === "assistant") turns++;
      rows.messages.push({
        session: file,
        line: rec.line,
        id: rec.id ?? null,
        role: rec.role ?? null,
        provider: rec.role === "assistant" ? (rec.provider ?? null) : null,
        model: rec.role === "assistant" ? (rec.model ?? null) : null,
        // From the body (the session may be loaded in the spend detail, which leaves stopReason out of the index).
        stop_reason: rec.role === "assistant" && typeof m?.stopReason === "string" ? m.stopReason : null,
        timestamp,
        text_length: textLength(m?.content),
        ...usageCols(rec.usage),
        is_copied: copied(rec),
      });
      if (rec.role === "assistant") {
        for (const call of toolCalls(m?.content)) {
          calls++;
          const res = call.id !== null ? results.get(call.id) : undefined;
          const dt = res ? res.rec.time - rec.time : NaN;
          rows.tool_calls.push({
            session: file,
            line: rec.line,
            call_id: call.id,
            tool: call.name,
            arguments: call.arguments,
            result_line: res?.rec.line ?? null,
            is_error: res ? res.isError : null,
            output_bytes: res ? res.bytes : null,
            duration_ms: Number.isFinite(dt) ? dt : null,
            is_copied: copied(rec),
          });
        }
      }
    }
    const kind = spendOf(rec);
    if (kind !== undefined) {
      const m = modelOf(rec);
      rows.usage.push({
        session: file,
        line: rec.line,
        id: rec.id ?? null,
        source: kind.source,
        kind: kind.kind,
        provider: m.provider,
        model: m.model,
        timestamp,
        ...usageCols(rec.usage),
        is_copied: copied(rec),
      });
    }
  }
  const h = session.header;
  rows.sessions.push({
    file,
    id: typeof h?.id === "string" ? h.id : null,
    cwd: typeof h?.cwd === "string" ? h.cwd : null,
    parent: facts.parent ?? null,
    parent_exists: facts.parent !== undefined ? facts.parentExists === true : null,
    created: typeof h?.timestamp === "string" ? iso(Date.parse(h.timestamp)) : null,
    modified: new Date(facts.mtimeMs).toISOString(),
    bytes: facts.bytes,
    version: typeof session.version === "number" && Number.isInteger(session.version) ? session.version : null,
    name: session.sessionName ?? null,
    entries: session.entries.length,
    messages,
    assistant_turns: turns,
    tool_calls: calls,
    compactions,
    leaves: leaves.size,
    copied_entries: copiedEntries,
    damaged_lines: session.skipped.filter((s) => s.reason === "malformed" || s.reason === "non-object").length,
  });
  return rows;
}

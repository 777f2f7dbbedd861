import { appendFileSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { TABLE_NAMES } from "../../src/ops/fleet-tables.js";
import { SPEND_TABLE } from "../../src/reports/index-spend.js";

/** A small generated fleet for the index tests: sessions written line by line, as pi appends them. */

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

export function headerLine(id: string, cwd: string, parent?: string): string {
  return `${JSON.stringify({
    type: "session",
    version: 3,
    id,
    timestamp: new Date(T0).toISOString(),
    cwd,
    ...(parent !== undefined ? { parentSession: parent } : {}),
  })}\n`;
}

/** Entry `n` of a session (ids `<tag>-<n>`, each the child of the one before): a user prompt or an assistant turn. */
export function entryLine(tag: string, n: number, parent: string | null, model = "m1"): string {
  const ts = T0 + n * 3_600_000;
  const id = `${tag}-${n}`;
  const message =
    n % 2 === 0
      ? { role: "user", content: `prompt ${n}`, timestamp: ts }
      : {
          role: "assistant",
          content: [
            { type: "text", text: `answer ${n}` },
            { type: "toolCall", id: `call-${id}`, name: "bash", arguments: { command: "ls" } },
          ],
          provider: "p",
          model,
          usage: {
            input: 10 * n,
            output: n,
            cacheRead: 3,
            cacheWrite: 1,
            totalTokens: 11 * n + 4,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.0001 * n + 0.1 },
          },
          stopReason: "toolUse",
          timestamp: ts,
        };
  return `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(ts).toISOString(), message })}\n`;
}

/** A tool result answering call `callId` (entry `n`'s time), with usage when `n` is odd (tool results can carry it). */
export function resultLine(id: string, parent: string | null, callId: string, n: number, isError: boolean): string {
  const ts = T0 + n * 3_600_000;
  const message = {
    role: "toolResult",
    toolCallId: callId,
    toolName: "bash",
    content: [{ type: "text", text: `out ${n}` }],
    isError,
    timestamp: ts,
  };
  return `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(ts).toISOString(), message })}\n`;
}

/** A label entry naming `target`. */
export function labelLine(id: string, parent: string | null, target: string, label: string, n: number): string {
  const ts = T0 + n * 3_600_000;
  return `${JSON.stringify({ type: "label", id, parentId: parent, timestamp: new Date(ts).toISOString(), targetId: target, label })}\n`;
}

/**
 * Moves a file's mtime a minute back: the snapshot rule (a cut last line of a file written in the last 5 s is held
 * back) then reads it the same in every run of a test, however long the test takes.
 */
export function age(path: string): void {
  const t = (Date.now() - 60_000) / 1000;
  utimesSync(path, t, t);
}

/** age() for every file below a folder. */
export function ageAll(dir: string): void {
  for (const f of readdirSync(dir, { recursive: true }) as string[]) if (statSync(join(dir, f)).isFile()) age(join(dir, f));
}

export function writeSession(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  age(path);
}

export function appendTo(path: string, text: string): void {
  appendFileSync(path, text);
  age(path);
}

type Duck = typeof import("@duckdb/node-api");

/** Every row of every table of an index (files without its indexed_at), sorted: what two indexes must share. */
export async function dumpIndex(db: string): Promise<Record<string, unknown[][]>> {
  const { DuckDBInstance } = (await import("@duckdb/node-api")) as Duck;
  const inst = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
  const conn = await inst.connect();
  try {
    await conn.run("SET TimeZone = 'UTC'");
    const out: Record<string, unknown[][]> = {};
    for (const t of TABLE_NAMES) out[t] = (await conn.runAndReadAll(`SELECT * FROM ${t} ORDER BY ALL`)).getRowsJson() as unknown[][];
    out.files = (await conn.runAndReadAll("SELECT * EXCLUDE (indexed_at) FROM files ORDER BY ALL")).getRowsJson() as unknown[][];
    // The spend sums usage answers from: kept by every update, they must be what a rebuild sums.
    out[SPEND_TABLE] = (await conn.runAndReadAll(`SELECT * FROM ${SPEND_TABLE} ORDER BY ALL`)).getRowsJson() as unknown[][];
    // What an update goes on from: a state made by going on equals the one a whole read makes.
    out.resume = (
      await conn.runAndReadAll("SELECT path, start_offset, to_base64(state) FROM resume ORDER BY ALL")
    ).getRowsJson() as unknown[][];
    return out;
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

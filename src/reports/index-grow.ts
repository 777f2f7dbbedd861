import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DamageNote } from "../ops/fleet-files.js";
import { ParentCache } from "../ops/fleet-parents.js";
import { TABLE_NAMES, TABLES, type TableName } from "../ops/fleet-tables.js";
import { type Connection, quote, selectCsv } from "./duck.js";
import { decodeState } from "./index-state.js";
import { type GrownFile, grownBatch, type ReadState, recycle, type TablesBatchResult } from "./tables-batch.js";

/**
 * The part of an index update (index-db.ts) for the files that grew: each one's loader state is taken from the
 * index, only its appended bytes are read, the rows of its new lines are added and its tree-dependent rows made
 * again (leaves and sessions replaced; an earlier line's row whose tree-dependent values changed replaced by one
 * with the new values: tables-batch.ts grownBatch finds which).
 */

/** Per-line tables: their rows are keyed by (session, line), and tool calls also by their id. */
const PATCHED = ["entries", "messages", "tool_calls", "usage"] as const;
const PATCH_KEY: Record<(typeof PATCHED)[number], string[]> = {
  entries: ["session", "line"],
  messages: ["session", "line"],
  tool_calls: ["session", "line", "call_id"],
  usage: ["session", "line"],
};
/**
 * The columns made from a message's body, which the state does not keep (its rows are what the line said): every
 * other column of an earlier line's row is made again from the state and the tree, and updated where it changed.
 */
const FROM_BODY: Record<(typeof PATCHED)[number], readonly string[]> = {
  entries: [],
  messages: ["stop_reason", "text_length"],
  tool_calls: ["tool", "arguments"],
  usage: [],
};

export interface GrownRead {
  dir: string;
  /** Read from their state on. */
  appended: string[];
  /** Grown, but to be read whole: no state this pisess made, or a read that could not go on. */
  whole: string[];
  /** Of `whole`, those that had a state, but whose read could not go on. */
  fallback: string[];
  fresh: { rows: Record<TableName, number>; longest: Record<TableName, number> };
  patch: { rows: Record<TableName, number>; longest: Record<TableName, number> };
  states: ReadState[];
  damage: DamageNote[];
}

const byTable = (xs: readonly number[]) => Object.fromEntries(TABLE_NAMES.map((t, i) => [t, xs[i] ?? 0])) as Record<TableName, number>;

function writeOut(dir: string, suffix: string, r: TablesBatchResult): void {
  for (const [i, t] of TABLE_NAMES.entries())
    writeFileSync(join(dir, `${t}${suffix}.csv`), new Uint8Array(r.buffers[i] as ArrayBuffer, 0, r.lengths[i] ?? 0));
  recycle(r.buffers);
}

/** The grown files with a state to go on from (`files`), and those without, to be read whole (`whole`). */
export interface GrownStates {
  files: GrownFile[];
  whole: string[];
}

/** Each grown file's loader state, from the index. */
export async function grownStates(conn: Connection, paths: readonly string[]): Promise<GrownStates> {
  const files: GrownFile[] = [];
  const whole: string[] = [];
  if (paths.length === 0) return { files, whole };
  const list = paths.map(quote).join(", ");
  const rows = (await conn.runAndReadAll(`SELECT path, to_base64(state) FROM idx.resume WHERE path IN (${list})`)).getRowsJS();
  const states = new Map(rows.map((r) => [String(r[0]), String(r[1])]));
  for (const path of paths) {
    const b64 = states.get(path);
    const kept = b64 === undefined ? undefined : decodeState(Buffer.from(b64, "base64"));
    if (kept === undefined) whole.push(path);
    else files.push({ path, kept });
  }
  return { files, whole };
}

/**
 * Reads the grown files on from their states, into `<csvDir>/grown/<table>.csv` (new rows) and `.patch.csv`. `whole`
 * gets the files that had no state and those whose read could not go on (`fallback`: the update had not yet dropped
 * their rows).
 */
export async function readGrown(grown: GrownStates, csvDir: string): Promise<GrownRead> {
  const dir = join(csvDir, "grown");
  mkdirSync(dir);
  const { files, whole } = grown;
  if (files.length === 0) {
    // Nothing to go on from (most updates, every first build): empty tables, without a batch's buffers (setting
    // those up was a quarter of a second before a first build's reading could start).
    const none = byTable([]);
    for (const t of TABLE_NAMES) for (const suffix of ["", ".patch"]) writeFileSync(join(dir, `${t}${suffix}.csv`), "");
    return {
      dir,
      appended: [],
      whole,
      fallback: [],
      fresh: { rows: none, longest: none },
      patch: { rows: none, longest: none },
      states: [],
      damage: [],
    };
  }
  const r = await grownBatch(files, new ParentCache());
  writeOut(dir, "", r.fresh);
  writeOut(dir, ".patch", r.patch);
  const fallback = new Set(r.fallback);
  return {
    dir,
    appended: files.map((f) => f.path).filter((p) => !fallback.has(p)),
    whole: [...whole, ...r.fallback],
    fallback: r.fallback,
    fresh: { rows: byTable(r.fresh.rows), longest: byTable(r.fresh.longest) },
    patch: { rows: byTable(r.patch.rows), longest: byTable(r.patch.longest) },
    states: r.grown,
    damage: r.fresh.notes.damage,
  };
}

/**
 * Inside the update's transaction, once the grown files' leaves and sessions rows are dropped (index-db.ts dropSql):
 * the earlier lines' rows replaced where a value changed, the new lines' rows and the new tree's added.
 */
export async function applyGrown(conn: Connection, g: GrownRead): Promise<void> {
  for (const t of PATCHED) {
    if (g.patch.rows[t] === 0) continue;
    const key = PATCH_KEY[t];
    const names = TABLES[t].columns.map((c) => c.name);
    const cols = names.filter((c) => !key.includes(c) && !FROM_BODY[t].includes(c));
    const sel = selectCsv(t, join(g.dir, `${t}.patch.csv`), g.patch.longest[t]);
    const on = key.map((k) => (k === "call_id" ? `x.${k} IS NOT DISTINCT FROM p.${k}` : `x.${k} = p.${k}`)).join(" AND ");
    // A changed row is inserted anew and the old one deleted, not updated in place: DuckDB rewrites every column
    // segment an UPDATE touches when it checkpoints (a grown fleet of 2,000 sessions: 0.70 s CPU and 7.6 MB more
    // file with UPDATE, against 0.56 s and 2.1 MB reading them whole).
    if (FROM_BODY[t].length === 0) {
      // Every value of the row is made again: the patch row is the row.
      await conn.run(`DELETE FROM idx.${t} AS x USING (SELECT DISTINCT ${key.join(", ")} FROM (${sel})) AS p WHERE ${on}`);
      await conn.run(`INSERT INTO idx.${t} ${sel}`);
      continue;
    }
    // The values made from the message body are the index's; the new row equals its patch row in the others, so the
    // DELETE after it leaves it. Rows of one key share their values (tool calls of one message with one id).
    const patch = `(SELECT DISTINCT ${[...key, ...cols].join(", ")} FROM (${sel}))`;
    const differs = cols.map((c) => `x.${c} IS DISTINCT FROM p.${c}`).join(" OR ");
    const values = names.map((c) => (cols.includes(c) ? `p.${c}` : `x.${c}`)).join(", ");
    await conn.run(`INSERT INTO idx.${t} SELECT ${values} FROM idx.${t} AS x JOIN ${patch} AS p ON ${on} WHERE ${differs}`);
    await conn.run(`DELETE FROM idx.${t} AS x USING ${patch} AS p WHERE ${on} AND (${differs})`);
  }
  for (const t of TABLE_NAMES)
    if (g.fresh.rows[t] > 0) await conn.run(`INSERT INTO idx.${t} ${selectCsv(t, join(g.dir, `${t}.csv`), g.fresh.longest[t])}`);
}

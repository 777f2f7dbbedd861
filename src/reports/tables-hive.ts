import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { TABLE_NAMES, type TableName } from "../ops/fleet-tables.js";
import { type Duck, quote, selectCsv } from "./duck.js";
import { ReportError } from "./report.js";

/**
 * `tables --layout hive`: each table as a folder of Parquet files partitioned by day (UTC), `day=YYYY-MM-DD` (the
 * Hive convention that Spark, Trino, ClickHouse and DuckDB read; `day=__HIVE_DEFAULT_PARTITION__` for rows without
 * a time). The day of a row: its own timestamp (entries, messages, usage), its assistant message's (tool_calls), the
 * leaf's (leaves), the session's creation, else modification (sessions).
 */
const DAY: Record<TableName, { from: string; at: string }> = {
  sessions: { from: "sessions x", at: "coalesce(x.created, x.modified)" },
  entries: { from: "entries x", at: "x.timestamp" },
  messages: { from: "messages x", at: "x.timestamp" },
  tool_calls: { from: "tool_calls x LEFT JOIN messages m ON m.session = x.session AND m.line = x.line", at: "m.timestamp" },
  usage: { from: "usage x", at: "x.timestamp" },
  leaves: { from: "leaves x", at: "x.last_time" },
};

/**
 * The part of every file name this run writes: the host and a run id, so that the folders several machines (or
 * runs) write can be copied into one layout without a name colliding.
 */
function runName(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9-]/g, "-")
      .slice(0, 40) || "host";
  const t = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  return `${host}-${t}-${randomBytes(4).toString("hex")}`;
}

/** Writes each table from its CSV intermediate (in `csvDir`) as `<out>/<table>/day=…/part-<run>-<i>.parquet`. */
export async function writeHive(duck: Duck, csvDir: string, out: string, longest: Record<TableName, number>): Promise<void> {
  const conn = duck.conn;
  await conn.run("SET threads = 1");
  for (const t of TABLE_NAMES) await conn.run(`CREATE VIEW ${t} AS ${selectCsv(t, join(csvDir, `${t}.csv`), longest[t])}`);
  const name = runName();
  for (const t of TABLE_NAMES) {
    const { from, at } = DAY[t];
    const sql = `COPY (SELECT x.*, strftime(${at}, '%Y-%m-%d') AS day FROM ${from}) TO ${quote(join(out, t))} (FORMAT parquet, PARTITION_BY (day), FILENAME_PATTERN ${quote(`part-${name}-{i}`)})`;
    try {
      await conn.run(sql);
    } catch (err) {
      const lines = (err instanceof Error ? err.message : String(err)).split("\n");
      throw new ReportError(`${t}: ${lines.find((l) => l.startsWith("Error when converting")) ?? lines[0]}`);
    }
    // An empty table has no partition: its folder is there all the same.
    mkdirSync(join(out, t), { recursive: true });
  }
}

import { cpSync, mkdirSync, readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TABLE_NAMES } from "../../src/ops/fleet-tables.js";
import { sqlReport } from "../../src/reports/sql.js";
import { tablesReport } from "../../src/reports/tables.js";
import { fixture } from "../support/helpers.js";
import { tempDirs } from "../support/temp-dirs.js";

/** `tables --layout hive`: Parquet partitioned by day, read back by DuckDB's read_parquet(…, hive_partitioning). */

const SESSIONS = fixture("fleet", "sessions");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };
const tmp = tempDirs("pisess-hive-test-");

/** A query over the Parquet files (the session tables it also has are not used). */
async function query(sql: string) {
  return (await sqlReport({ query: sql, targets: [join(SESSIONS, "--home-dev-proj-c--")], env, cwd: "/" })).data.rows;
}
let SESSIONS_TABLES = "";

const hive = (dir: string, t: string) => `read_parquet('${dir}/${t}/**/*.parquet', hive_partitioning = true)`;

function partFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".parquet")).sort();
}

describe("tables --layout hive", () => {
  it("every table partitioned by its rows' day, the same rows as the flat layout, names carrying the host", async () => {
    const root = tmp();
    const out = join(root, "hive");
    const r = await tablesReport({ targets: [SESSIONS], out, format: "parquet", layout: "hive", env, cwd: "/" });
    expect(r.data.files).toEqual(TABLE_NAMES.map((t) => join(out, t)));
    SESSIONS_TABLES = join(root, "flat");
    const flat = await tablesReport({ targets: [SESSIONS], out: SESSIONS_TABLES, format: "parquet", env, cwd: "/" });
    expect(r.data.rows).toEqual(flat.data.rows);
    for (const t of TABLE_NAMES) {
      const n = await query(`SELECT count(*) FROM ${hive(out, t)}`);
      expect([t, n[0]?.[0]]).toEqual([t, flat.data.rows[t]]);
    }
    // A message's partition is its timestamp's day (UTC); the fleet's messages span January 2026.
    const days = await query(`SELECT DISTINCT CAST(day AS VARCHAR) = strftime(timestamp, '%Y-%m-%d') FROM ${hive(out, "messages")}`);
    expect(days).toEqual([[true]]);
    const dirs = readdirSync(join(out, "messages")).sort();
    expect(dirs[0]).toMatch(/^day=2026-01-\d\d$/);
    // The same columns and values as the flat table, the day aside.
    const diff = await query(
      `SELECT count(*) FROM (SELECT * EXCLUDE (day) FROM ${hive(out, "usage")} EXCEPT SELECT * FROM read_parquet('${SESSIONS_TABLES}/usage.parquet'))`,
    );
    expect(diff).toEqual([[0]]);
    for (const f of partFiles(out))
      expect(f).toContain(
        `part-${hostname()
          .replace(/[^A-Za-z0-9-]/g, "-")
          .slice(0, 40)}-`,
      );
  });

  it("two runs' folders copied into one layout do not collide", async () => {
    const root = tmp();
    const a = join(root, "a");
    const b = join(root, "b");
    await tablesReport({ targets: [SESSIONS], out: a, format: "parquet", layout: "hive", env, cwd: "/" });
    await tablesReport({ targets: [SESSIONS], out: b, format: "parquet", layout: "hive", env, cwd: "/" });
    const team = join(root, "team");
    mkdirSync(team);
    cpSync(a, team, { recursive: true });
    cpSync(b, team, { recursive: true, errorOnExist: true, force: false });
    expect(partFiles(team)).toHaveLength(partFiles(a).length + partFiles(b).length);
    const n = await query(`SELECT count(*) FROM ${hive(team, "entries")}`);
    const one = await query(`SELECT count(*) FROM ${hive(a, "entries")}`);
    expect(n[0]?.[0]).toBe(2 * Number(one[0]?.[0]));
  });

  it("--layout hive writes Parquet only", async () => {
    await expect(
      tablesReport({ targets: [SESSIONS], out: join(tmp(), "x"), format: "ndjson", layout: "hive", env, cwd: "/" }),
    ).rejects.toThrow("--layout hive writes Parquet");
  });
});

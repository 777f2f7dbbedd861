import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { TABLE_NAMES, TABLES, tableSchema } from "../../src/ops/fleet-tables.js";
import { sqlReport } from "../../src/reports/sql.js";
import { tablesReport } from "../../src/reports/tables.js";
import { fingerprint, fixture, jsonObjects, ROOT, runCli, sessionFiles, spawnCli } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";
import { tooLargeForParquet } from "../support/small-session.js";
import { tempDirs } from "../support/temp-dirs.js";

/** `pisess tables` and `pisess sql`, read back with DuckDB; expected values from the fixture files (JSON.parse). */

type Json = Record<string, any>;
const SESSIONS = fixture("fleet", "sessions");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };

const files = (): string[] => sessionFiles(SESSIONS);
const objects = (path: string): Json[] => jsonObjects<Json>(path);

const ENTRIES = files().flatMap((f) => objects(f).slice(1));
const EXPECT = {
  sessions: files().length,
  entries: ENTRIES.length,
  messages: ENTRIES.filter((e) => e.type === "message").length,
  tool_calls: ENTRIES.flatMap((e) => (e.message?.role === "assistant" ? e.message.content.filter((b: Json) => b.type === "toolCall") : []))
    .length,
  usage: ENTRIES.filter((e) => e.message?.role === "assistant" || (e.type !== "message" && e.usage)).length,
  // Entries no other entry of the file names as its parent.
  leaves: files().reduce((n, f) => {
    const es = objects(f).slice(1);
    const parents = new Set(es.map((e) => e.parentId));
    return n + es.filter((e) => !parents.has(e.id)).length;
  }, 0),
};

const tmp = tempDirs("pisess-tables-test-");

async function query(sql: string) {
  return (await sqlReport({ query: sql, tables: OUT_PARQUET, env, cwd: "/" })).data;
}

let OUT_PARQUET = "";

describe("tables", () => {
  it("parquet: DuckDB reads back every table with the expected row counts and types", async () => {
    OUT_PARQUET = join(tmp(), "out");
    const before = files().map(fingerprint);
    const r = await tablesReport({ targets: [SESSIONS], out: OUT_PARQUET, format: "parquet", env, cwd: "/" });
    expect(r.data.rows).toEqual(EXPECT);
    expect(files().map(fingerprint)).toEqual(before);
    for (const t of TABLE_NAMES) {
      const n = await query(`SELECT count(*) AS n FROM read_parquet('${join(OUT_PARQUET, `${t}.parquet`)}')`);
      expect([t, n.rows[0]?.[0]]).toEqual([t, EXPECT[t]]);
    }
    const types = await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM usage)`);
    const byName = Object.fromEntries(types.rows.map((r) => [r[0], r[1]]));
    expect(byName).toMatchObject({
      line: "BIGINT",
      cost: "DOUBLE",
      is_copied: "BOOLEAN",
      timestamp: "TIMESTAMP WITH TIME ZONE",
      model: "VARCHAR",
    });
  });

  it("known values: a failed bash call, copied rows of a fork, the cost counted once", async () => {
    const bash = await query("SELECT session, line, result_line, is_error, duration_ms, arguments FROM tool_calls WHERE tool = 'bash'");
    expect(bash.rows).toEqual([[join(SESSIONS, "--home-dev-proj-b--", "b-branchy.jsonl"), 3, 4, true, 2000, '{"command":"false"}']]);
    const copied = await query("SELECT count(*) FROM messages WHERE is_copied AND session LIKE '%/a-fork.jsonl'");
    expect(copied.rows[0]?.[0]).toBe(4);
    // Cost of every spend record not copied, from the files.
    const keysOf = (p: string) => new Set(objects(p).map((e) => `${e.id}|${e.timestamp}`));
    let want = 0;
    for (const f of files()) {
      const h = objects(f)[0] as Json;
      const ref = h.parentSession || h.branchedFrom;
      let parent = new Set<string>();
      try {
        if (ref) parent = keysOf(join(f, "..", ref));
      } catch {
        // no parent on disk
      }
      for (const e of objects(f).slice(1)) {
        const u = e.type === "message" ? e.message?.usage : e.usage;
        if (u && !parent.has(`${e.id}|${e.timestamp}`)) want += u.cost.total;
      }
    }
    const got = await query("SELECT sum(cost) FROM usage WHERE NOT is_copied");
    expect(got.rows[0]?.[0]).toBeCloseTo(want, 9);
    const s = await query("SELECT copied_entries, parent_exists FROM sessions WHERE file LIKE '%/c-fork.jsonl'");
    expect(s.rows).toEqual([[2, true]]);
  });

  it("ndjson: every row matches its table's JSON Schema, and the shipped schemas are the current ones", async () => {
    const out = join(tmp(), "nd");
    await tablesReport({ targets: [SESSIONS], out, format: "ndjson", env, cwd: "/" });
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const t of TABLE_NAMES) {
      const shipped = JSON.parse(readFileSync(join(ROOT, "schemas", "tables", `${t}.json`), "utf8"));
      expect(shipped).toEqual(tableSchema(t));
      const validate = ajv.compile(shipped);
      const rows = readFileSync(join(out, `${t}.ndjson`), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rows).toHaveLength(EXPECT[t]);
      for (const row of rows) {
        const valid = validate(row);
        // An expect() call only for a row that fails (the comparison below, naming the table and the errors).
        if (!valid || validate.errors != null) expect([t, valid, validate.errors ?? null]).toEqual([t, true, null]);
      }
    }
  });

  it("parquet holds the same values as ndjson, row for row, over every fixture and text CSV must quote", async () => {
    // The parquet goes through a CSV intermediate: empty strings (not null), commas, quotes, line breaks and
    // non-ASCII text in ids, labels and tool arguments must come back as written.
    const dir = tmp();
    const odd = 'a,"b"\r\nc é 🙂';
    const lines = [
      { type: "session", version: 3, id: "h,1", timestamp: "2025-01-01T10:00:00.000Z", cwd: 'C:\\x,"y"' },
      { type: "message", id: "", parentId: null, timestamp: "2025-01-01T10:00:01.000Z", message: { role: "user", content: odd } },
      {
        type: "message",
        id: "m,2",
        parentId: "",
        timestamp: "2025-01-01T10:00:02.500Z",
        message: {
          role: "assistant",
          provider: "p,q",
          model: 'm"1',
          stopReason: "toolUse",
          content: [{ type: "toolCall", id: "c\n1", name: "t,x", arguments: { s: odd } }],
          usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, cost: { total: 0.1 } },
        },
      },
      { type: "label", id: "l1", parentId: "m,2", timestamp: "2025-01-01T10:00:03.000Z", targetId: "m,2", label: odd },
    ];
    writeFileSync(join(dir, "odd.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const targets = [join(ROOT, "fixtures"), join(dir, "odd.jsonl")];
    const nd = join(tmp(), "nd");
    const pq = join(tmp(), "pq");
    await tablesReport({ targets, out: nd, format: "ndjson", env, cwd: "/" });
    await tablesReport({ targets, out: pq, format: "parquet", env, cwd: "/" });
    for (const t of TABLE_NAMES) {
      const want = readFileSync(join(nd, `${t}.ndjson`), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => Object.values(JSON.parse(l)));
      const cols = TABLES[t].columns.map((c) => (c.type === "timestamp" ? `strftime(${c.name}, '%Y-%m-%dT%H:%M:%S.%gZ')` : c.name));
      const got = (await sqlReport({ query: `SELECT ${cols.join(", ")} FROM ${t}`, tables: pq, env, cwd: "/" })).data.rows;
      expect([t, got.length]).toEqual([t, want.length]);
      // Tens of thousands of rows: node's strict equality first (an expect() call costs more than the comparison),
      // vitest's toEqual, naming the table and row, for a row it does not call equal.
      for (let i = 0; i < want.length; i++) expectEqual([t, i, got[i]], [t, i, want[i]]);
    }
    const label = await sqlReport({
      query: "SELECT label FROM entries WHERE label IS NOT NULL AND session LIKE '%odd.jsonl'",
      tables: pq,
      env,
      cwd: "/",
    });
    expect(label.data.rows).toEqual([[odd]]);
  });

  it("a value Parquet's column cannot hold fails in one line naming the column", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "big.jsonl"), tooLargeForParquet());
    const err = await tablesReport({ targets: [join(dir, "big.jsonl")], out: join(dir, "out"), format: "parquet", env, cwd: "/" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^(messages|leaves)\.parquet: .*column "output"/);
    expect((err as Error).message).not.toContain("\n");
  });

  it("--out must be new or empty (exit 2), nothing written", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "keep.txt"), "x");
    const r = spawnCli(["tables", SESSIONS, "--out", dir, "--format", "ndjson"]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("not empty")]);
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  });
});

describe("sql CLI", () => {
  const q = "SELECT tool, count(*) AS calls, count(*) FILTER (WHERE is_error) AS errors FROM tool_calls GROUP BY tool ORDER BY tool";
  const want = [
    { tool: "bash", calls: 1, errors: 1 },
    { tool: "read", calls: 3, errors: 0 },
  ];

  it("over session files: --json, --ndjson, --csv and the table", async () => {
    const j = spawnCli(["sql", q, SESSIONS, "--json"]);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ columns: ["tool", "calls", "errors"], rows: want });
    const nd = await runCli(["sql", q, SESSIONS, "--ndjson"]);
    expect(
      nd.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(want);
    expect((await runCli(["sql", q, SESSIONS, "--csv"])).stdout).toBe("tool,calls,errors\r\nbash,1,1\r\nread,3,0\r\n");
    expect((await runCli(["sql", q, SESSIONS])).stdout).toMatch(/^tool\s+calls\s+errors\nbash\s+1\s+1\nread\s+3\s+0\n$/);
  });

  it("--tables reuses written tables; a bad query is one line, exit 2", async () => {
    const out = join(tmp(), "t");
    expect((await runCli(["tables", SESSIONS, "--out", out])).code).toBe(0);
    expect(JSON.parse((await runCli(["sql", "--tables", out, q, "--json"])).stdout).rows).toEqual(want);
    const bad = await runCli(["sql", "--tables", out, "SELECT nope FROM sessions"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  });
});

import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sqlReport } from "../../src/reports/sql.js";
import { BIN, fixture, runCli } from "../support/helpers.js";

/**
 * Issue 32.14: `sql` held the whole result in memory (`select * from range(100000000)` aborted after 32 s). Its rows
 * now stream to the output, a DuckDB chunk at a time, in every format; the text table holds its first SQL_TEXT_ROWS
 * rows for the column widths and streams the rest in those widths.
 */

const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };
const SESSION = fixture("fleet", "sessions", "--home-dev-proj-a--", "a-parent.jsonl");
const ROWS = 400_000;

/** Runs the built binary with a small JS heap; counts the output's lines and keeps its first and last few bytes. */
function small(args: string[], heapMB: number) {
  return new Promise<{ code: number | null; lines: number; head: string; tail: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${heapMB}`, BIN, ...args], {
      env: { ...process.env, ...env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let lines = 0;
    let head = "";
    let tail = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      for (let i = d.indexOf("\n"); i >= 0; i = d.indexOf("\n", i + 1)) lines++;
      if (head.length < 200) head += d.slice(0, 200);
      tail = (tail + d).slice(-200);
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("exit", (code) => resolve({ code, lines, head, tail, stderr: stderr.slice(0, 500) }));
  });
}

const QUERY = `SELECT range AS n, 'x' || range AS s FROM range(${ROWS})`;

describe("sql streams its result (32.14)", () => {
  const last = ROWS - 1;
  for (const [flag, lines, head, tail] of [
    ["--ndjson", ROWS, '{"n":0,"s":"x0"}\n', `{"n":${last},"s":"x${last}"}\n`],
    ["--csv", ROWS + 1, "n,s\r\n0,x0\r\n", `${last},x${last}\r\n`],
    [
      "--json",
      6 + 4 * ROWS + 2,
      '{\n  "columns": [\n    "n",\n    "s"\n  ],\n  "rows": [\n    {\n      "n": 0,',
      `      "n": ${last},\n      "s": "x${last}"\n    }\n  ]\n}\n`,
    ],
    ["", ROWS + 1, "    n  s\n    0  x0\n", `${last}  x${last}\n`],
  ] as const)
    it(`${flag || "text"}: ${ROWS.toLocaleString("en")} rows with a 40 MB heap`, async () => {
      const r = await small(["sql", QUERY, SESSION, ...(flag ? [flag] : [])], 40);
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(r.lines).toBe(lines);
      expect(r.head.startsWith(head), r.head).toBe(true);
      expect(r.tail.endsWith(tail), r.tail).toBe(true);
    }, 120_000);

  it("--json is JSON.stringify's document, byte for byte, for several chunks, one row and none", async () => {
    for (const n of [5000, 1, 0]) {
      const query = `SELECT range AS n, 'x"\\' || range AS s, NULL AS z, [range::INTEGER, 2] AS l FROM range(${n})`;
      const rows = Array.from({ length: n }, (_, i) => ({ n: i, s: `x"\\${i}`, z: null, l: [i, 2] }));
      const r = await runCli(["sql", query, SESSION, "--json"], { env });
      expect(r.code).toBe(0);
      expect(r.stdout === `${JSON.stringify({ columns: ["n", "s", "z", "l"], rows }, null, 2)}\n`, `${n} rows`).toBe(true);
    }
  });

  it("--json with repeated and integer-like column names, nested values and NaN (which DuckDB gives as text): as JSON.stringify lays them out", async () => {
    const query = `SELECT 1 AS b, 2 AS "2", 3 AS b, 4 AS "1", {'k': [1, 2], 'e': []::INTEGER[]} AS s, 'nan'::DOUBLE AS f, [] AS l FROM range(3)`;
    const row = { b: 3, 2: 2, 1: 4, s: { k: [1, 2], e: [] }, f: "NaN", l: [] };
    const r = await runCli(["sql", query, SESSION, "--json"], { env });
    expect(r.code).toBe(0);
    const want = `${JSON.stringify({ columns: ["b", "2", "b", "1", "s", "f", "l"], rows: [row, row, row] }, null, 2)}\n`;
    expect(r.stdout).toBe(want);
  });

  it("--json of a result with columns and no rows", async () => {
    const r = await runCli(["sql", "SELECT * FROM range(3) WHERE false", SESSION, "--json"], { env });
    expect(r.stdout).toBe(`${JSON.stringify({ columns: ["range"], rows: [] }, null, 2)}\n`);
  });

  it("text past SQL_TEXT_ROWS rows: the widths of the first rows, a wider cell pushing its line", async () => {
    const r = await runCli(["sql", "SELECT range AS n, 'v' AS v FROM range(200000)", SESSION], { env });
    expect(r.code).toBe(0);
    const want = ["    n  v", ...Array.from({ length: 200000 }, (_, i) => `${String(i).padStart(5)}  v`)];
    expect(r.stdout === `${want.join("\n")}\n`).toBe(true);
  });

  it("text up to SQL_TEXT_ROWS rows: laid out whole, as before", async () => {
    const r = await runCli(["sql", "SELECT range AS n, repeat('w', range % 7) AS v FROM range(3000)", SESSION], { env });
    const wide = Math.max(4, String(2999).length);
    const want = [
      `${"n".padStart(wide)}  v`,
      ...Array.from({ length: 3000 }, (_, i) => `${String(i).padStart(wide)}  ${"w".repeat(i % 7)}`.trimEnd()),
    ];
    expect(r.stdout === `${want.join("\n")}\n`).toBe(true);
  });

  it("an error part way through the result: exit 2, one line", async () => {
    const r = await runCli(
      ["sql", "SELECT CASE WHEN range < 5000 THEN range ELSE error('boom') END AS n FROM range(10000)", SESSION, "--ndjson"],
      {
        env,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/query: .*boom/);
  });

  it("sqlReport (the library's) still gives the whole result", async () => {
    const r = await sqlReport({ query: "SELECT range AS n FROM range(5000)", targets: [SESSION], env, cwd: "/" });
    expect(r.data.columns).toEqual(["n"]);
    expect(r.data.rows.length).toBe(5000);
    expect(r.data.rows[4999]).toEqual([4999]);
  });
});

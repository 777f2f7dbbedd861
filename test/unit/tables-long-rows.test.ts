import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqlReport } from "../../src/reports/sql.js";
import { tablesReport } from "../../src/reports/tables.js";

/**
 * A row longer than DuckDB's default CSV line limit (2 MB): a tool call whose arguments hold a large file, as a
 * `write` call does. Its CSV row must reach the Parquet file and the sql views whole.
 */

const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };
const dir = mkdtempSync(join(tmpdir(), "pisess-tables-long-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Content lengths around the limit: just under it, just over it (the row is longer than the content), far over. */
const SIZES = [2 * 1024 * 1024 - 200, 2 * 1024 * 1024 - 60, 2 * 1024 * 1024 + 1, 3_000_000];

function session(): string {
  const header = {
    type: "session",
    version: 3,
    id: "00000000-0000-4000-8000-000000000001",
    timestamp: "2026-01-11T08:00:00.000Z",
    cwd: "/p",
  };
  const lines = [JSON.stringify(header)];
  SIZES.forEach((n, i) => {
    lines.push(
      JSON.stringify({
        type: "message",
        id: `a${i}`,
        parentId: i === 0 ? null : `a${i - 1}`,
        timestamp: "2026-01-11T08:00:01.000Z",
        message: {
          role: "assistant",
          provider: "p",
          model: "m",
          content: [{ type: "toolCall", id: `c${i}`, name: "write", arguments: { path: "f", content: "y".repeat(n) } }],
          stopReason: "toolUse",
        },
      }),
    );
  });
  const f = join(dir, "s.jsonl");
  writeFileSync(f, `${lines.join("\n")}\n`);
  utimesSync(f, new Date("2026-01-01"), new Date("2026-01-01"));
  return f;
}

describe("rows longer than DuckDB's default CSV line", () => {
  const file = session();
  const want = SIZES.map((n) => [`c${SIZES.indexOf(n)}`, JSON.stringify({ path: "f", content: "y".repeat(n) }).length]);
  const query = "SELECT call_id, length(arguments) FROM tool_calls ORDER BY call_id";

  it("tables --format parquet writes them whole", async () => {
    const out = join(dir, "out");
    const r = await tablesReport({ targets: [file], out, format: "parquet", env, cwd: "/" });
    expect(r.exitCode).toBe(0);
    const q = await sqlReport({ query, tables: out, env, cwd: "/" });
    expect(q.data.rows).toEqual(want);
  });

  it("sql over session files reads them whole", async () => {
    const q = await sqlReport({ query, targets: [file], env, cwd: "/" });
    expect(q.data.rows).toEqual(want);
  });
});

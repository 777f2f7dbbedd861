import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqlReport } from "../../src/reports/sql.js";
import { tablesReport } from "../../src/reports/tables.js";
import { wellFormedJson } from "../../src/reports/tables-text.js";
import { turnUsage } from "../support/small-session.js";

/**
 * Issue 32.6: a carriage return (or any other awkward character) in one session's strings must not break `sql` or
 * `tables` for the whole fleet. Every string column of every table gets the same hostile tail; the expected values
 * are the literal strings written (a lone surrogate reads back as U+FFFD: it has no UTF-8 form).
 */

const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };
const HOSTILE = 'x\ry\r\nz\n"q",c\u0000n\ud800e\u2028f';
const READ_BACK = HOSTILE.replace("\ud800", "\ufffd");
const v = (name: string) => `${name}${HOSTILE}`;
const back = (name: string) => `${name}${READ_BACK}`;

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const ts = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const usage = turnUsage({ total: 0.5 }, { input: 1, output: 2 });

/** A fleet of two sessions: a plain one and one with the hostile tail in every string it has. */
function fleet(): { dir: string; hostile: string; plain: string } {
  const dir = mkdtempSync(join(tmpdir(), "pisess-sql-strings-"));
  made.push(dir);
  const folder = join(dir, 'proj,\r"x"');
  mkdirSync(folder);
  const hostile = join(folder, 'h\r,"q".jsonl');
  const plain = join(dir, "plain.jsonl");
  const lines = [
    { type: "session", version: 3, id: v("sid"), timestamp: ts(0), cwd: v("cwd"), parentSession: v("parent") },
    { type: "message", id: v("m1"), parentId: null, timestamp: ts(1), message: { role: "user", content: "hi", timestamp: 1 } },
    {
      type: "message",
      id: v("m2"),
      parentId: v("m1"),
      timestamp: ts(2),
      message: {
        role: "assistant",
        content: [{ type: "toolCall", id: v("call"), name: v("tool"), arguments: { a: v("arg") } }],
        provider: v("provider"),
        model: v("model"),
        usage,
        stopReason: v("stop"),
        timestamp: 2,
      },
    },
    {
      type: "message",
      id: v("m3"),
      parentId: v("m2"),
      timestamp: ts(3),
      message: {
        role: "toolResult",
        toolCallId: v("call"),
        toolName: v("tool"),
        content: [{ type: "text", text: "ok" }],
        isError: false,
        timestamp: 3,
      },
    },
    {
      type: "usage",
      id: v("u1"),
      parentId: v("m3"),
      timestamp: ts(4),
      kind: v("kind"),
      provider: v("uprovider"),
      model: v("umodel"),
      usage,
    },
    { type: "label", id: v("l1"), parentId: v("u1"), timestamp: ts(5), targetId: v("m2"), label: v("label") },
    { type: "session_info", id: v("n1"), parentId: v("l1"), timestamp: ts(6), name: v("name") },
    { type: v("type"), id: v("t1"), parentId: v("n1"), timestamp: ts(7) },
  ];
  writeFileSync(hostile, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  const p = [
    { type: "session", version: 3, id: "plain", timestamp: ts(0), cwd: "/plain" },
    { type: "message", id: "p1", parentId: null, timestamp: ts(1), message: { role: "user", content: "hi", timestamp: 1 } },
  ];
  writeFileSync(plain, `${p.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return { dir, hostile, plain };
}

/** [query, expected rows] over the hostile session: every string column of every table. */
function cases(hostile: string, parent: string): [string, unknown[][]][] {
  const w = (t: string, cols: string) =>
    `SELECT ${cols} FROM ${t} WHERE ${t === "sessions" ? "file" : "session"} = '${hostile.replace(/'/g, "''")}' ORDER BY line`;
  return [
    [`SELECT file, id, cwd, parent, name FROM sessions WHERE id <> 'plain'`, [[hostile, back("sid"), back("cwd"), parent, back("name")]]],
    [
      w("entries", "session, id, parent_id, type, label"),
      [
        [hostile, back("m1"), null, "message", null],
        [hostile, back("m2"), back("m1"), "message", back("label")],
        [hostile, back("m3"), back("m2"), "message", null],
        [hostile, back("u1"), back("m3"), "usage", null],
        [hostile, back("l1"), back("u1"), "label", null],
        [hostile, back("n1"), back("l1"), "session_info", null],
        [hostile, back("t1"), back("n1"), back("type"), null],
      ],
    ],
    [
      w("messages", "id, role, provider, model, stop_reason"),
      [
        [back("m1"), "user", null, null, null],
        [back("m2"), "assistant", back("provider"), back("model"), back("stop")],
        [back("m3"), "toolResult", null, null, null],
      ],
    ],
    [w("tool_calls", "call_id, tool, arguments::JSON->>'a'"), [[back("call"), back("tool"), back("arg")]]],
    [
      w("usage", "id, source, kind, provider, model"),
      [
        [back("m2"), "assistant", null, back("provider"), back("model")],
        [back("u1"), "usage", back("kind"), back("uprovider"), back("umodel")],
      ],
    ],
  ];
}

describe("sql and tables with awkward characters in every string column (32.6)", () => {
  const f = fleet();
  // The parent as the header names it, resolved against the file's folder.
  const parent = join(f.hostile, "..", back("parent"));

  it("sql over the sessions: every value reads back as written, the plain session too", async () => {
    for (const [query, rows] of cases(f.hostile, parent)) {
      const r = await sqlReport({ query, targets: [f.dir], env, cwd: "/" });
      expect(r.data.rows, query).toEqual(rows);
    }
    const all = await sqlReport({ query: "SELECT count(*) AS n FROM sessions", targets: [f.dir], env, cwd: "/" });
    expect(all.data.rows).toEqual([[2]]);
  });

  for (const format of ["parquet", "ndjson"] as const)
    it(`tables --format ${format}, then sql --tables: the same values`, async () => {
      const out = join(f.dir, `..`, `${f.dir.split("/").at(-1)}-out-${format}`);
      made.push(out);
      await tablesReport({ targets: [f.dir], out, format, env, cwd: "/" });
      for (const [query, rows] of cases(f.hostile, parent)) {
        const r = await sqlReport({ query, tables: out, env, cwd: "/" });
        expect(r.data.rows, query).toEqual(rows);
      }
    });
});

describe("wellFormedJson (32.6: tool_calls.arguments is JSON text DuckDB can read)", () => {
  it("puts \\ufffd for each lone surrogate escape and keeps pairs and escaped backslashes", () => {
    const cases: [string, string][] = [
      ['{"a":"x\\ud800y"}', '{"a":"x\\ufffdy"}'],
      ['{"a":"\\udc00"}', '{"a":"\\ufffd"}'],
      ['{"a":"\\udc00\\udc01"}', '{"a":"\\ufffd\\ufffd"}'],
      ['{"a":"\\ud800\\ud83d\\ude00"}', '{"a":"\\ufffd\\ud83d\\ude00"}'],
      ['{"a":"\\ud83d\\ude00"}', '{"a":"\\ud83d\\ude00"}'],
      ['{"a":"\\\\ud800"}', '{"a":"\\\\ud800"}'],
      ['{"a":"\\\\\\ud800"}', '{"a":"\\\\\\ufffd"}'],
      ['{"a":"\\u0041\\n"}', '{"a":"\\u0041\\n"}'],
    ];
    for (const [text, want] of cases) {
      expect(wellFormedJson(text), text).toBe(want);
      expect(() => JSON.parse(wellFormedJson(text))).not.toThrow();
    }
  });
});

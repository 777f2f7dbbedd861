import type { EntryFields } from "../../src/model/types.js";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { messageBody } from "../../src/model/body.js";
import { spendFieldsOf } from "../../src/model/fields.js";
import { loadSession } from "../../src/model/load.js";
import { toJson } from "../../src/model/json-text.js";
import { parseEntry, readEntry, type Session } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { parsedBodies, type Row, sessionRows, type TableRows } from "../../src/ops/fleet-rows.js";
import { TABLE_NAMES } from "../../src/ops/fleet-tables.js";
import { writeTables } from "../../src/reports/tables.js";
import { TableBytes } from "../../src/io/scan/index.js";
import { jsonColumns } from "../../src/reports/tables-text.js";
import { ROOT, sessionFiles, sessionView } from "../support/helpers.js";
import { expectEqual, expectStrictEqual } from "../support/expect-fast.js";
import { damaged, keyText, objectText, scanLine, sessionsOf, writeSettled } from "../support/scan-case.js";
import { binaryString } from "../support/binary-unit.js";

/**
 * `pisess tables` reads message bodies from the line bytes (the tables detail: EntryRec.body) instead of parsing
 * every message line whole. The rows must equal those of the whole parse (a spend load, each message line parsed
 * back: parsedBodies), on every fixture and corpus file, on generated message lines (escapes, unicode, surrogates,
 * odd shapes, repeated keys, damage) and on generated files; and the CSV bytes must be what the text writer wrote.
 */

const FIXTURES = sessionFiles();
const FACTS = { file: "f", bytes: 1, mtimeMs: 0 };

function spendView(rec: EntryFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of spendFieldsOf(rec.type, rec.role)) if (rec[k] !== undefined) out[k] = rec[k];
  return out;
}

/** The rows of `f` both ways: from the tables load (bodies from the bytes) and from the spend load, parsed whole. */
async function bothRows(f: string): Promise<{ bytes: TableRows; parsed: TableRows; tables: Session<"tables">; spend: Session<"spend"> }> {
  const tables = await loadSession({ kind: "file", path: f }, { detail: "tables" });
  const spend = await loadSession({ kind: "file", path: f }, { detail: "spend" });
  try {
    const whole = readFileSync(f);
    const parsed = sessionRows(
      spend,
      FACTS,
      parsedBodies((rec) => parseEntry(spend, rec, whole.toString("utf8", rec.offset, rec.offset + rec.length))),
    );
    // The default reader: the load's bodies, and lines read back one by one for the records without one.
    const bytes = sessionRows(tables, FACTS);
    return { bytes, parsed, tables, spend };
  } finally {
    tables.store.close();
    spend.store.close();
  }
}

const counts = { messages: 0, fromBytes: 0 };

/** Each fixture's rows from the bytes, as the first test made them: the CSV test writes the same rows. */
const fixtureRows = new Map<string, TableRows>();
async function rowsOf(f: string): Promise<TableRows> {
  return fixtureRows.get(f) ?? (await bothRows(f)).bytes;
}
// The worker goes on to other files (isolate: false): the rows are not kept for them.
afterAll(() => fixtureRows.clear());

describe("tables rows from the bytes equal the whole parse on every fixture and corpus file", () => {
  afterAll(() => {
    // The byte path is what was compared (not only lines parsed whole).
    expect(counts.messages).toBeGreaterThan(1000);
    expect(counts.fromBytes).toBeGreaterThan(counts.messages / 2);
  });
  it.each(FIXTURES.map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const { bytes, parsed, tables, spend } = await bothRows(f);
    fixtureRows.set(f, bytes);
    expectStrictEqual(bytes, parsed, "rows");
    // The tables detail indexes as the spend detail does.
    expectStrictEqual(sessionView(tables, spendView), sessionView(spend, spendView), "index");
    for (const [i, rec] of tables.entries.entries()) {
      if (rec.type !== "message") continue;
      counts.messages++;
      const s = spend.entries[i] as EntryRec;
      if (rec.body !== undefined) {
        counts.fromBytes++;
        expectStrictEqual(rec.body, messageBody(readEntry(spend, s).message), `body of line ${rec.line}`);
      }
    }
  });
});

// Generated message lines.
const text = fc.oneof(
  fc.constantFrom("", "plain", "é", "模型", "𝔘", 'a"b', "a\\b", "line\nbreak\ttab", "\u2028", "\u0000\u001f", "x".repeat(300), "/"),
  fc.string(),
  fc.string({ unit: "grapheme" }),
  binaryString(),
);
/**
 * A string as JSON text, written the ways JSON allows: as JSON.stringify writes it, with every character escaped
 * (\uXXXX in either case, surrogate pairs as two escapes), with "/" escaped; and lone or paired surrogates.
 */
const escapeAll = (s: string, upper: boolean): string =>
  `"${[...s]
    .flatMap((ch) => [...ch].map((u) => u.charCodeAt(0)))
    .map((c) => {
      const h = c.toString(16).padStart(4, "0");
      return `\\u${upper ? h.toUpperCase() : h}`;
    })
    .join("")}"`;
const strText = fc.oneof(
  { weight: 4, arbitrary: text.map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: fc.tuple(text, fc.boolean()).map(([s, u]) => escapeAll(s, u)) },
  { weight: 1, arbitrary: text.map((s) => JSON.stringify(s).replace(/\//g, "\\/")) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '"\\ud800"',
      '"\\udc00"',
      '"\\ud83d\\ude00"',
      '"\\uD83D\\uDE00x"',
      '"\\ude00\\ud83d"',
      '"\\ud83d\\u0041"',
      '"\\ud83d😀"',
      '"a\\\\u0041"',
      '"\\u00e9\\u07ff\\u0800\\uffff"',
      '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
    ),
  },
);
const numText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.constantFrom("-0", "1e3", "1E+3", "2.5e-2", "1e400", "0.10", "123456789012345678901234567890"),
);
const scalarText = fc.oneof(numText, strText, fc.constantFrom("null", "true", "false"));

/** Object text from pairs: keys in any order, repeated keys allowed, white space around. */
const obj = objectText;
const key = keyText;
const ws = fc.constantFrom("", "", "", " ", "\n\t ");

/** A JSON value as text, nested: what tool call arguments hold (white space, escapes, integer-like keys, repeats). */
const valueText: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalarText,
    fc.tuple(fc.array(tie("value") as fc.Arbitrary<string>, { maxLength: 4 }), ws).map(([vs, w]) => `[${w}${vs.join(`,${w}`)}${w}]`),
    fc
      .tuple(
        fc.array(
          fc.tuple(
            fc.oneof(fc.constantFrom("path", "command", "0", "10", "1", "__proto__", "toJSON", "a"), fc.string()),
            tie("value") as fc.Arbitrary<string>,
          ),
          { maxLength: 4 },
        ),
        ws,
      )
      .map(([ps, w]) =>
        obj(
          ps.map(([k, v]) => [JSON.stringify(k), v]),
          w,
        ),
      ),
  ),
})).value;

const BLOCK_TYPES = ["text", "toolCall", "thinking", "image", "te\\u0078t", "tool\\u0043all", ""];
const blockText = fc
  .record({
    type: fc.option(
      fc.oneof(
        fc.constantFrom(...BLOCK_TYPES).map((t) => `"${t}"`),
        scalarText,
      ),
      { nil: undefined },
    ),
    text: fc.option(fc.oneof({ weight: 5, arbitrary: strText }, { weight: 1, arbitrary: scalarText }), { nil: undefined }),
    id: fc.option(fc.oneof(strText, scalarText), { nil: undefined }),
    name: fc.option(fc.oneof(fc.constantFrom('"bash"', '"read"'), scalarText), { nil: undefined }),
    arguments: fc.option(valueText, { nil: undefined }),
    extra: fc.array(fc.tuple(fc.constantFrom("type", "text", "arguments", "thinking", "data", "other"), valueText), { maxLength: 2 }),
    escapeKey: fc.nat(12),
    w: ws,
  })
  .map((r) => {
    const pairs: [string, string][] = [];
    for (const k of ["type", "text", "id", "name", "arguments"] as const) if (r[k] !== undefined) pairs.push([JSON.stringify(k), r[k]]);
    for (const [k, v] of r.extra) pairs.push([JSON.stringify(k), v]);
    // Now and then a key written with an escape (the line is then parsed whole).
    const i = r.escapeKey;
    if (i < pairs.length) {
      const p = pairs[i] as [string, string];
      pairs[i] = [key(JSON.parse(p[0]) as string, true), p[1]];
    }
    return obj(pairs, r.w);
  });
const contentText = fc.oneof(
  { weight: 2, arbitrary: strText },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.array(fc.oneof({ weight: 12, arbitrary: blockText }, { weight: 1, arbitrary: valueText }), { maxLength: 5 }), ws)
      .map(([bs, w]) => `[${w}${bs.join(`,${w}`)}${w}]`),
  },
  { weight: 1, arbitrary: scalarText },
);

const ROLES = ["assistant", "toolResult", "user", "hookMessage", "custom", "x"];
const lineArb = fc
  .record({
    role: fc.oneof(
      fc.constantFrom(...ROLES).map((r) => JSON.stringify(r)),
      fc.constantFrom('"toolR\\u0065sult"', "5"),
    ),
    content: contentText,
    content2: fc.option(contentText, { nil: undefined }),
    stopReason: fc.option(fc.oneof(fc.constantFrom('"stop"', '"toolUse"'), scalarText), { nil: undefined }),
    toolCallId: fc.option(fc.oneof(fc.constantFrom('"call_1"', '"call_2"'), strText, scalarText), { nil: undefined }),
    isError: fc.option(fc.oneof(fc.constantFrom("true", "false"), scalarText), { nil: undefined }),
    escapeKey: fc.nat(14),
    message: fc.nat(20),
    w: ws,
  })
  .map((r) => {
    const msg: [string, string][] = [
      ['"role"', r.role],
      ['"content"', r.content],
    ];
    if (r.stopReason !== undefined) msg.push(['"stopReason"', r.stopReason]);
    if (r.toolCallId !== undefined) msg.push(['"toolCallId"', r.toolCallId]);
    if (r.isError !== undefined) msg.push(['"isError"', r.isError]);
    if (r.content2 !== undefined) msg.push(['"content"', r.content2]);
    const i = r.escapeKey;
    if (i < msg.length) {
      const p = msg[i] as [string, string];
      msg[i] = [key(JSON.parse(p[0]) as string, true), p[1]];
    }
    // Mostly an object; now and then not one, or a second message after the first.
    const m = obj(msg, r.w);
    const message = r.message === 0 ? "[1]" : r.message === 1 ? "null" : r.message === 2 ? `${m},"message":"x"` : m;
    return `{"type":"message","id":"e1","parentId":"e0","timestamp":"2026-01-11T08:00:01.000Z","message":${message}}`;
  });

const seen = { fromBytes: 0, unsure: 0, invalid: 0 };

/** The scanned record of `line` in the tables detail: its body, where it has one, is that of the whole parse. */
function check(line: string): void {
  const { rec, parsed } = scanLine(line, "tables");
  if (rec === null) {
    if (parsed === undefined) seen.invalid++;
    else seen.unsure++;
    return;
  }
  if (typeof parsed !== "object" || parsed === null) expect.fail(`scanner read a line JSON.parse rejects: ${line.slice(0, 300)}`);
  if (rec.body === undefined) {
    seen.unsure++;
    return;
  }
  seen.fromBytes++;
  const want = messageBody((parsed as { message?: unknown }).message);
  if (!isDeepStrictEqual(rec.body, want)) expectStrictEqual(rec.body, want, line.slice(0, 600));
}

describe("tables scanner: message bodies equal the whole parse", () => {
  afterAll(() => {
    expect(seen.fromBytes).toBeGreaterThan(1000);
    expect(seen.unsure).toBeGreaterThan(100);
    expect(seen.invalid).toBeGreaterThan(100);
  });

  it("edge cases", () => {
    const m = (msg: string) => `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-11T08:00:01.000Z","message":${msg}}`;
    const cases = [
      m('{"role":"user","content":"plain"}'),
      m('{"role":"user","content":"tab\\there \\"q\\" \\\\ \\/ \\u00e9 \\ud83d\\ude00 😀 é 模型"}'),
      m('{"role":"toolResult","toolCallId":"c","isError":false,"content":"\\ud800 \\udc00 \\ud83d\\u0041 \\u07ff\\u0800"}'),
      m(
        '{"role":"toolResult","toolCallId":"c","isError":"yes","content":[{"type":"image","text":"é"},{"text":"\\n"},{"type":"text","text":5}]}',
      ),
      m('{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"a"},{"type":"text","text":"b","text":"cd"}]}'),
      m('{"role":"toolR\\u0065sult","toolCallId":"c","isError":true,"content":"x"}'),
      m(
        '{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"1","name":"bash","arguments":{ "command" : "ls\\u0020-l", "n": 1.0e2, "10": 1, "2": [ ] }}]}',
      ),
      m(
        '{"role":"assistant","content":[{"type":"toolCall","id":7,"name":null,"arguments":{"a":1,"a":2,"b":{"c":-0}}},{"type":"toolCall"}]}',
      ),
      m(
        '{"role":"assistant","content":[{"type":"toolCall","arguments":"s"},{"type":"toolCall","arguments":null},{"type":"toolCall","arguments":[1e400]}]}',
      ),
      m('{"role":"assistant","content":[{"type":"toolCall","arguments":{"__proto__":{"x":1},"toJSON":2}}]}'),
      m('{"role":"assistant","content":[ { "type" : "text" , "text" : "a" } , { "type":"te\\u0078t","text":"bc"} ]}'),
      m('{"role":"assistant","content":[{"type":"text","text":"a"},"loose",{"type":"text","text":"b"}]}'),
      m('{"role":"assistant","content":[{"ty\\u0070e":"text","text":"a"}]}'),
      m('{"role":"assistant","content":[]}'),
      m('{"role":"assistant","content":{"type":"text","text":"a"}}'),
      m('{"role":"assistant","content":"a","content":[{"type":"text","text":"bb"}]}'),
      m('{"role":"assistant","cont\\u0065nt":"a"}'),
      m('{"role":"assistant","stopReason":5}'),
      m('[{"role":"assistant"}]'),
      m("null"),
      m('{"role":"assistant","content":"a"},"message":{"role":"user","content":"bbb"}'),
      m('{"role":"assistant","content":"a"},"message":7'),
      m('{"role":"assistant","content":[{"type":"text","text":"a"}'),
      m('{"role":"assistant","content":[{"type":"text","text":"a"},]}'),
      m('{"role":"assistant","content":[{"type":"text","text":"a"} {"type":"text","text":"b"}]}'),
      m('{"role":"assistant","content":["\\u12"]}'),
    ];
    for (const c of cases) check(c);
  });

  it("random message lines", () => {
    fc.assert(
      fc.property(lineArb, (l) => check(l)),
      { numRuns: 4000 },
    );
  });

  it("damaged: a byte deleted, inserted or the line cut", () => {
    fc.assert(
      fc.property(damaged(lineArb, ['"', "\\", "{", "}", "[", "]", ",", ":", "u", "e", "-", "."]), (l) => check(l)),
      { numRuns: 4000 },
    );
  });
});

describe("tool call arguments nested deeper than JSON.stringify's stack", () => {
  const dir = mkdtempSync(join(tmpdir(), "pisess-tables-deep-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // They are written back by the iterative fallback of toJson (model/json-text.ts), the same rows either way.
  it("give the rows the whole parse gives, whichever path read the line", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const header = '{"type":"session","version":3,"id":"00000000-0000-4000-8000-000000000001","timestamp":"2026-01-11T08:00:00.000Z"}';
    const call = (id: string, key: string) =>
      `{"type":"message","id":"${id}","parentId":null,"timestamp":"2026-01-11T08:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","${key}":${deep}}]}}`;
    // Read by the scanner, and (a key written with an escape) by the ordinary path.
    for (const line of [call("a", "arguments"), `${call("b", "arguments").slice(0, -2)},"r\u006fle":"x"}}`]) {
      const f = join(dir, "deep.jsonl");
      writeFileSync(f, `${header}\n${line}\n`);
      utimesSync(f, new Date("2026-01-01"), new Date("2026-01-01"));
      const both = await bothRows(f);
      // Compared as text: a 200,000-deep value is no case for a recursive matcher.
      expect(toJson(both.bytes)).toBe(toJson(both.parsed));
      const tables = await loadSession({ kind: "file", path: f }, { detail: "tables" });
      tables.store.close();
      // A stream is parsed line by line, whole: the load still indexes the entry.
      const stream = await loadSession({ kind: "stream", name: "-", stream: Readable.from([readFileSync(f)]) }, { detail: "tables" });
      expect(stream.entries.map((e) => e.id)).toEqual([tables.entries[0]?.id]);
    }
  });
});

describe("tables rows of generated files with damaged lines", () => {
  const dir = mkdtempSync(join(tmpdir(), "pisess-tables-bytes-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it("equal the rows of the whole parse", async () => {
    await fc.assert(
      fc.asyncProperty(sessionsOf(lineArb), async (text) => {
        const f = writeSettled(dir, text);
        const { bytes, parsed } = await bothRows(f);
        expectStrictEqual(bytes, parsed, text.slice(0, 2000));
      }),
      { numRuns: 200 },
    );
  });
});

// The CSV intermediate: TableBytes writes the bytes the text writer wrote (tables-text.ts before it wrote bytes).
function csvField(v: string | number | boolean | null): string {
  if (v === null) return "";
  if (typeof v !== "string") return String(v);
  if (v === "" || /[",\n\r]/.test(v)) return `"${v.replace(/"/g, '""')}"`;
  return v;
}
/** The text as the text writer wrote it to the file (UTF-8; a lone surrogate as U+FFFD). */
const csvText = (rows: readonly Row[]): Buffer =>
  Buffer.from(rows.map((r) => `${r.map((v) => csvField(v ?? null)).join(",")}\n`).join(""), "utf8");

function csvBytes(rows: readonly Row[]): Buffer {
  const out = new TableBytes(0, jsonColumns(0));
  for (const r of rows) out.csvRow(r);
  return Buffer.from(out.buffer, 0, out.length);
}

describe("CSV rows as bytes", () => {
  it("every fixture's rows", async () => {
    for (const f of FIXTURES) {
      const bytes = await rowsOf(f);
      for (const t of TABLE_NAMES) expect(csvBytes(bytes[t]).equals(csvText(bytes[t])), `${f} ${t}`).toBe(true);
    }
  });
  it("generated rows: numbers of every size and form, strings to quote, unicode, booleans, nulls", () => {
    const value = fc.oneof(
      fc.integer(),
      fc.maxSafeInteger(),
      fc.double(),
      // Decimals of a few places (costs), at and around the bounds of the short path.
      fc.tuple(fc.integer({ min: -(2 ** 33), max: 2 ** 33 }), fc.integer({ min: 0, max: 8 })).map(([m, d]) => m / 10 ** d),
      fc.constantFrom(0.1, 0.30000000000000004, 1e-6, 1e-7, 1.5e-6, 2147483646.5, 2147483647.5, -2.835, 1.005, 1 / 3, 5e-324),
      fc.constantFrom(0, -0, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 53, -(2 ** 53), 2 ** 53 - 1, 1e21, 1e-7, 0.1, 1767300000000, 99999999),
      fc.string(),
      binaryString(),
      fc.constantFrom("", '"', ",", "\n", "\r", "a,b", 'é"', "𝔘"),
      fc.boolean(),
      fc.constant(null),
    );
    fc.assert(
      fc.property(fc.string(), fc.array(fc.array(value, { minLength: 1, maxLength: 20 }), { maxLength: 30 }), (file, tails) => {
        const rows: Row[] = tails.map((t) => [file, ...t]);
        const got = csvBytes(rows);
        const want = csvText(rows);
        if (!got.equals(want)) expect(got.toString("utf8")).toBe(want.toString("utf8"));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("tables on worker threads", () => {
  it("every fixture file, on two threads: the same bytes as one thread, as CSV and as NDJSON", async () => {
    const root = mkdtempSync(join(tmpdir(), "pisess-tables-threads-"));
    try {
      // Copies with an old mtime: as the fixtures, not live (a damaged last line is read, not held back).
      const copies = join(root, "in");
      for (const f of FIXTURES) {
        const to = join(copies, f.slice(ROOT.length + 1));
        mkdirSync(dirname(to), { recursive: true });
        cpSync(f, to);
        utimesSync(to, new Date("2026-01-01"), new Date("2026-01-01"));
      }
      // The compiled writer: its worker module (dist/reports/tables-worker.js) exists only there. Enough files for
      // several batches per worker, so that buffers come back and are filled again.
      const dist = (await import("../../dist/reports/tables.js")) as typeof import("../../src/reports/tables.js");
      const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };
      expect(FIXTURES.length).toBeGreaterThan(4 * 32);
      for (const as of ["csv", "ndjson"] as const) {
        const two = join(root, `two-${as}`);
        const one = join(root, `one-${as}`);
        mkdirSync(two);
        mkdirSync(one);
        const a = await dist.writeTables([copies], two, as, env, "/", undefined, 2);
        const b = await writeTables([copies], one, as, env, "/", undefined, 1);
        expectEqual(a.rows, b.rows);
        expect(a.rows.messages).toBeGreaterThan(1000);
        for (const t of TABLE_NAMES) {
          const x = readFileSync(join(two, `${t}.${as}`));
          expect(x.equals(readFileSync(join(one, `${t}.${as}`))), `${as} ${t}`).toBe(true);
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

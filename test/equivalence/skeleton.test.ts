import type { EntryFields } from "../../src/model/types.js";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readLineBytes, readLines, type RawLine } from "../../src/io/scan/index.js";
import { FileRangeReader } from "../../src/io/store.js";
import { scanSkeleton, scanStringForTest } from "../../src/io/scan/skeleton.js";
import { SKELETON_FIELDS, skeletonFieldsOf } from "../../src/model/fields.js";
import { isObject } from "../../src/model/json.js";
import { loadSession, makeRec } from "../../src/model/load.js";
import { SKELETON_KEYS, skeletonRec } from "../../src/model/skeleton.js";
import { ROOT, sessionView, sessionFiles } from "../support/helpers.js";
import { expectEqual, expectStrictEqual } from "../support/expect-fast.js";
import { scanStringReference } from "../support/scan-string-reference.js";

/** The skeleton fields of a record, as skeletonFieldsOf lists them for its type. */
function skeletonView(rec: EntryFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of skeletonFieldsOf(rec.type)) if (rec[k] !== undefined) out[k] = rec[k];
  return out;
}

const verdicts = { valid: 0, invalid: 0, unsure: 0, recs: 0 };

/**
 * Scans `line` placed inside a larger buffer (odd offset, misleading bytes around it) and checks the verdict and
 * the record against JSON.parse and the full path.
 */
function check(line: string, pad = 3): void {
  const bytes = Buffer.from(line, "utf8");
  const text = bytes.toString("utf8");
  const buf = Buffer.concat([Buffer.from('{"\\'.slice(0, pad)), bytes, Buffer.from('"}]1\\u')]);
  const start = pad;
  const end = pad + bytes.length;
  let parsed: unknown;
  let ok = true;
  try {
    parsed = JSON.parse(text);
  } catch {
    ok = false;
  }
  const v = scanSkeleton(SKELETON_KEYS, buf, start, end);
  // Plain comparisons first, expect() only on a mismatch (for its message): check runs tens of thousands of
  // times, and an expect() per condition was most of this file's time.
  const where = () => JSON.stringify(text.slice(0, 300));
  if (v === 1) {
    verdicts.valid++;
    if (!ok || !isObject(parsed)) {
      expect(ok, `scanner says valid: ${where()}`).toBe(true);
      expect(isObject(parsed), `valid but not an object: ${where()}`).toBe(true);
    }
  } else if (v === 0) {
    verdicts.invalid++;
    if (ok) expect(ok, `scanner says invalid: ${where()}`).toBe(false);
  } else verdicts.unsure++;
  const rec = skeletonRec(buf, start, end, 5, 7, 11);
  if (rec === null) return;
  verdicts.recs++;
  if (!(ok && isObject(parsed))) expect(ok && isObject(parsed)).toBe(true);
  const o = parsed as Record<string, unknown>;
  const full = makeRec(o, { line: 7, offset: 11, length: bytes.length }, 5);
  if (full.type === "session" || full.id === undefined) {
    expect(full.type).not.toBe("session");
    expect(full.id).not.toBe(undefined);
  }
  const skelView = skeletonView(rec);
  const fullView = skeletonView(full);
  if (!isDeepStrictEqual(skelView, fullView)) expectStrictEqual(skelView, fullView, where());
  // nothing beyond the skeleton
  const allowed = skeletonFieldsOf(rec.type) as string[];
  for (const k of Object.keys(rec)) if (!allowed.includes(k)) expect(allowed).toContain(k);
}

const TOP = [
  "type",
  "id",
  "parentId",
  "timestamp",
  "message",
  "targetId",
  "label",
  "name",
  "firstKeptEntryId",
  "tokensBefore",
  "fromId",
  "summary",
  "provider",
  "modelId",
  "thinkingLevel",
  "customType",
  "content",
  "data",
];
const TYPES = [
  "message",
  "label",
  "session_info",
  "compaction",
  "branch_summary",
  "model_change",
  "thinking_level_change",
  "custom",
  "custom_message",
  "session",
  "mode_change",
  "",
];

const scalar = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "",
    " ",
    "a1b2c3d4",
    "2025-01-08T09:00:29.995Z",
    "2025-02-29T00:00:00.000Z",
    "2025-13-01T00:00:00.000Z",
    "1999-12-31T23:59:59.999Z",
    "0099-01-01T00:00:00.000Z",
    "x".repeat(300),
    "\u2028",
    "\ud800",
    "é",
    "user",
    "assistant",
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const anyValue = fc.oneof({ weight: 3, arbitrary: scalar }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });

/** Object text with keys in the given order, duplicates allowed (JSON.stringify cannot write those). */
function objText(pairs: [string, string][], ws: string): string {
  return `{${ws}${pairs.map(([k, v]) => `${JSON.stringify(k) + ws}:${ws}${v}`).join(`${ws},${ws}`)}${ws}}`;
}

const messageArb = fc.oneof(
  fc.record(
    { role: fc.oneof(fc.constantFrom("user", "assistant", "toolResult", "hookMessage", "custom"), anyValue), content: anyValue },
    { requiredKeys: [] },
  ),
  anyValue,
);

const entryArb = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...TOP), anyValue), { maxLength: 10 }),
    fc.constantFrom(...TYPES),
    fc.oneof(fc.constantFrom("a1b2c3d4", "e5f6a7b8", ""), fc.string()),
    fc.option(fc.oneof(fc.constant("a1b2c3d4"), fc.constant(null), anyValue)),
    messageArb,
    fc.constantFrom("", " ", "\t", "\r", " \r\n\t"),
    fc.boolean(),
    fc.nat(40),
  )
  .map(([extra, type, id, parent, message, ws, dupMessage, rot]) => {
    const pairs: [string, string][] = [
      ["type", JSON.stringify(type)],
      ["id", JSON.stringify(id)],
      ["timestamp", JSON.stringify("2025-01-08T09:00:29.995Z")],
    ];
    if (parent !== null) pairs.push(["parentId", JSON.stringify(parent)]);
    pairs.push(["message", JSON.stringify(message) ?? "null"]);
    if (dupMessage) pairs.push(["message", JSON.stringify({ content: [{ type: "text", id: "nested", role: "user" }] })]);
    for (const [k, v] of extra) pairs.push([k, JSON.stringify(v) ?? "null"]);
    const r = rot % (pairs.length + 1);
    return objText([...pairs.slice(r), ...pairs.slice(0, r)], ws);
  });

/** Real lines from the fixtures, mutated. */
const corpusLines: string[] = [];
const FIXTURES = sessionFiles();
for (const f of FIXTURES) {
  for (const l of readFileSync(f, "utf8").split("\n"))
    if (l.length > 0 && corpusLines.length < 4000) corpusLines.push(l.replace(/\r$/, ""));
}
const MUTATION_BYTES = [
  '"',
  "\\",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  " ",
  "0",
  "-",
  ".",
  "e",
  "E",
  "+",
  "\t",
  "\u0001",
  "\u001f",
  "u",
  "a",
  "n",
  "t",
  "f",
  "/",
  "\r",
];

describe("skeleton scanner: verdicts and records", () => {
  afterAll(() => {
    // The generators must exercise every verdict and produce records, or the comparisons prove little.
    expect(verdicts.valid).toBeGreaterThan(100);
    expect(verdicts.invalid).toBeGreaterThan(100);
    expect(verdicts.recs).toBeGreaterThan(100);
  });

  it("edge cases", () => {
    const cases = [
      "",
      " ",
      "{}",
      "{ }",
      "[]",
      "null",
      '"x"',
      "42",
      "{}}",
      "{}x",
      "{} ",
      "{}\t\r",
      '{"a":1,}',
      '{"a":1 "b":2}',
      '{"a" 1}',
      '{,"a":1}',
      '{"a":[1,]}',
      '{"a":[,1]}',
      '{"a":[1 2]}',
      '{"a":-0}',
      '{"a":1e5}',
      '{"a":1E+5}',
      '{"a":1e-5}',
      '{"a":01}',
      '{"a":1.}',
      '{"a":.5}',
      '{"a":-}',
      '{"a":-01}',
      '{"a":1e}',
      '{"a":1e+}',
      '{"a":+1}',
      '{"a":0x10}',
      '{"a":Infinity}',
      '{"a":NaN}',
      '{"a":tru}',
      '{"a":truee}',
      '{"a":nul}',
      '{"a":null}',
      '{"a":fals}',
      '{"a":"\\u00e9"}',
      '{"a":"\\u00g9"}',
      '{"a":"\\ud800"}',
      '{"a":"\\udc00\\ud800"}',
      '{"a":"\\x41"}',
      '{"a":"\\\'"}',
      '{"a":"\\/"}',
      '{"a":"tab\there"}',
      '{"a":"\u007f"}',
      '{"a":"\u2028\u2029"}',
      '{"a":"unterminated}',
      '{"a":"x\\"}',
      '{"a\\u0000":1}',
      '\u00a0{"a":1}',
      '{"a":1}\u00a0',
      '\u000b{"a":1}',
      '\u000c{"a":1}',
      '{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user"}}',
      '{"type":"message","id":"a1","message":{"role":"user"},"message":"x"}',
      '{"type":"message","id":"a1","message":5}',
      '{"type":"message","id":"a1","message":"x"}',
      '{"type":"message","id":"a1","message":false}',
      '{"type":"message","id":"a1","message":0}',
      '{"type":"message","id":"a1","message":[]}',
      '{"type":"message","id":"a1","message":null}',
      '{"type":"message","id":"a1","message":""}',
      '{"type":"message","id":"a1","message":{"role":"user"},"message":{"content":[{"role":"assistant","type":"text"}]}}',
      '{"type":"message","id":"a1","message":{"role":"user","role":"assistant"}}',
      '{"type":"message","id":"a1","message":{"ro\\u006ce":"user"}}',
      '{"t\\u0079pe":"message","id":"a1"}',
      '{"type":"message","type":"label","id":"a1","label":"x","targetId":"b"}',
      '{"type":"label","id":"a1","label":"","targetId":"b"}',
      `{"type":"label","id":"a1","label":"${"é".repeat(300)}","targetId":"b"}`,
      `{"type":"label","id":"a1","label":"\\ud800${"x".repeat(20)}","targetId":"b"}`,
      '{"type":"session_info","id":"a1","name":"  n  "}',
      '{"type":"branch_summary","id":"a1","fromId":"root","summary":0}',
      '{"type":"branch_summary","id":"a1","summary":-0.0}',
      '{"type":"branch_summary","id":"a1","summary":0.5}',
      '{"type":"branch_summary","id":"a1","summary":""}',
      '{"type":"branch_summary","id":"a1","summary":" "}',
      '{"type":"branch_summary","id":"a1","summary":[]}',
      '{"type":"branch_summary","id":"a1","summary":false}',
      '{"type":"compaction","id":"a1","tokensBefore":{"a":[1,2]},"firstKeptEntryId":"b"}',
      '{"type":"compaction","id":"a1","tokensBefore":1.5e3}',
      '{"type":"message","id":"a1","timestamp":["2025-01-01"]}',
      '{"type":"message","id":"a1","timestamp":1736326846197}',
      '{"type":"message","id":"a1","timestamp":"2025-02-30T00:00:00.000Z"}',
      '{"type":"message","id":"a1","timestamp":"2025-01-01T24:00:00.000Z"}',
      '{"type":"message","id":"a1","timestamp":"0050-01-01T00:00:00.000Z"}',
      '{"type":"message","id":"a1","timestamp":"2025-01-01T00:00:00.000+01:00"}',
      '{"type":"message","id":"a1","timestamp":"2025-01-0aT00:00:00.000Z"}',
      '{"type":"message","id":"\\u0061","parentId":"\\u0062"}',
      '{"type":"message","id":5}',
      '{"type":"message","id":""}',
      '{"type":7,"id":"a"}',
      '{"type":"session","id":"a"}',
      '{"type":"model_change","id":"a","provider":"p","modelId":"m","model":"x"}',
      '{"type":"thinking_level_change","id":"a","thinkingLevel":"high"}',
      '{"type":"custom","id":"a","customType":"ext"}',
      '{"type":"message","id":"a","message":{"role":"custom","customType":"x"}}',
      '{"type":"message","id":"a","parentId":{"x":1}}',
      "[".repeat(5000) + "]".repeat(5000),
      `{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`,
      `{"a":${"[".repeat(5000)}${"]".repeat(4999)}}`,
      `{"a":${'{"b":'.repeat(3000)}1${"}".repeat(3000)}}`,
    ];
    for (const c of cases) for (let pad = 0; pad < 4; pad++) check(c, pad);
  });

  it("random entry-like objects (duplicates, key order, white space, nested look-alikes)", () => {
    fc.assert(
      fc.property(entryArb, fc.nat(3), (line, pad) => check(line, pad)),
      { numRuns: 3000 },
    );
  });

  it("random JSON values and random strings", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat(3), (v, pad) => check(JSON.stringify(v) ?? "null", pad)),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...MUTATION_BYTES, "1", "2", "x", "é", "𝔘") }), (s) => check(s)),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...MUTATION_BYTES, "1", "x") }), (s) => check(`{"type":"message","id":"a","x":${s}}`)),
      { numRuns: 2000 },
    );
  });

  it("keys written with escapes", () => {
    fc.assert(
      fc.property(entryArb, fc.nat(), (line, n) => {
        // escape one character of one key: \u00XX form
        const keys = [...line.matchAll(/"([a-zA-Z]+)"\s*:/g)];
        if (keys.length === 0) return;
        const m = keys[n % keys.length] as RegExpMatchArray;
        const at = (m.index as number) + 1 + (n % (m[1] as string).length);
        const ch = line.charCodeAt(at);
        check(`${line.slice(0, at)}\\u${ch.toString(16).padStart(4, "0")}${line.slice(at + 1)}`);
      }),
      { numRuns: 1000 },
    );
  });

  it("mutated corpus lines (delete, insert, duplicate a byte; truncate)", () => {
    expect(corpusLines.length).toBeGreaterThan(100);
    for (const l of corpusLines) check(l);
    fc.assert(
      fc.property(
        fc.nat(corpusLines.length - 1),
        fc.nat(),
        fc.constantFrom("delete", "insert", "duplicate", "truncate"),
        fc.constantFrom(...MUTATION_BYTES),
        (li, pos, op, byte) => {
          const bytes = Buffer.from(corpusLines[li] as string, "utf8");
          const at = pos % (bytes.length + 1);
          let out: Buffer;
          if (op === "delete") out = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
          else if (op === "insert") out = Buffer.concat([bytes.subarray(0, at), Buffer.from(byte), bytes.subarray(at)]);
          else if (op === "duplicate") out = Buffer.concat([bytes.subarray(0, at + 1), bytes.subarray(at)]);
          else out = bytes.subarray(0, at);
          // the loader scans valid UTF-8 only; the reference is the line as decoded
          const text = out.toString("utf8");
          check(text);
        },
      ),
      { numRuns: 6000 },
    );
  });
});

describe("skeleton loads equal full loads on every fixture", () => {
  it.each(FIXTURES.map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const full = await loadSession({ kind: "file", path: f });
    const skel = await loadSession({ kind: "file", path: f }, { detail: "skeleton" });
    full.store.close();
    skel.store.close();
    expectStrictEqual(sessionView(skel, skeletonView), sessionView(full, skeletonView));
  });
});

describe("readLineBytes", () => {
  const dir = mkdtempSync(join(tmpdir(), "pisess-skel-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function both(content: Buffer, chunk: number): Promise<void> {
    const f = join(dir, "f.jsonl");
    writeFileSync(f, content);
    const a: [number, number, number, boolean, boolean, boolean, string][] = [];
    const factsA = await readLines(
      { kind: "file", path: f },
      (r: RawLine) => a.push([r.line, r.offset, r.length, r.crlf, r.unterminated, r.invalidUtf8, r.text]),
      5,
    );
    const b: typeof a = [];
    const factsB = await readLineBytes(
      f,
      (buf, s, e, line, offset, flags) =>
        b.push([line, offset, e - s, (flags & 1) !== 0, (flags & 2) !== 0, (flags & 4) !== 0, buf.toString("utf8", s, e)]),
      chunk,
    );
    expectStrictEqual(b, a, `lines of ${JSON.stringify(content.toString("latin1"))} in chunks of ${chunk}`);
    expectStrictEqual(factsB, factsA, `facts of ${JSON.stringify(content.toString("latin1"))} in chunks of ${chunk}`);
  }

  it("gives the same lines, offsets, flags and facts as LineSplitter", async () => {
    const samples = ["", "\n", "\ufeff", "\ufeff\n", "\ufeffa", "ab", "a\r\nb\r\n", "a\nb", "\r", "\r\n", "é\n\u2028x\n", "x\ny\n\n"];
    for (const s of samples) for (const chunk of [1, 2, 3, 7, 1 << 20]) await both(Buffer.from(s, "utf8"), chunk);
    const bad = Buffer.from([0x61, 0xff, 0x0a, 0x62, 0xc3, 0x0a, 0xa9, 0x0a, 0x63]);
    for (const chunk of [1, 2, 4, 64]) await both(bad, chunk);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 60 }), fc.integer({ min: 1, max: 16 }), async (arr, chunk) => {
        // bias towards line breaks, CR, BOM and UTF-8 sequences
        const bytes = Buffer.from(arr.map((x) => [0x0a, 0x0d, 0xef, 0xbb, 0xbf, 0xc3, 0xa9, 0x41][x % 8] as number));
        await both(bytes, chunk);
      }),
      { numRuns: 300 },
    );
  });

  // Chunks of 1 MiB: the reader's buffer is then the skeleton scanner's read region (skeleton.ts takeReadRegion).
  it("in the scanner's read region: the same lines, also past a line longer than the region", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `{"i":${i},"t":"${"é".repeat(i)}"}`);
    await both(Buffer.from(`${lines.join("\n")}\n`), 1 << 20);
    // Past 1 MiB the reader grows its buffer out of the region (and gives the region back).
    const withLong = [...lines.slice(0, 5), `{"t":"${"x".repeat(3 << 20)}"}`, ...lines.slice(5)];
    const f = join(dir, "long.jsonl");
    writeFileSync(f, `${withLong.join("\n")}\n`);
    const got: string[] = [];
    await readLineBytes(f, (buf, st, e) => got.push(buf.toString("utf8", st, e)), 1 << 20);
    expect(got.length).toBe(withLong.length);
    expect(got.every((l, i) => l === withLong[i])).toBe(true);
    // And a read after it (the region given back) gives the same lines.
    await both(Buffer.from(`${lines.join("\n")}\n`), 1 << 20);
  });

  it("in the read region: a read inside another's sink, and the scanner's memory growing meanwhile", async () => {
    const f = join(dir, "outer.jsonl");
    const g = join(dir, "inner.jsonl");
    const text = (tag: string) => Array.from({ length: 50 }, (_, i) => `{"${tag}":${i}}`).join("\n");
    writeFileSync(f, `${text("a")}\n`);
    writeFileSync(g, `${text("b")}\n`);
    const outer: string[] = [];
    const inner: string[] = [];
    await readLineBytes(
      f,
      (buf, st, e, line) => {
        outer.push(buf.toString("utf8", st, e));
        if (line === 2) {
          // A second read while the first holds the region: it reads into a buffer of its own.
          void readLineBytes(g, (b2, s2, e2) => inner.push(b2.toString("utf8", s2, e2)), 1 << 20);
          // A scan of 3 MiB grows the scanner's memory: the first read's Buffer over it is detached.
          const big = Buffer.alloc(3 << 20, 0x61);
          big[big.length - 1] = 0x22;
          expect(scanStringForTest(big, 0, big.length)?.q).toBe(big.length - 1);
        }
      },
      1 << 20,
    );
    expect(outer).toEqual(text("a").split("\n"));
    expect(inner).toEqual(text("b").split("\n"));
  });
});

describe("the store's read-ahead window in the scanner's read region (io/store.ts)", () => {
  const dir = mkdtempSync(join(tmpdir(), "pisess-window-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads back the file's bytes, through the memory growing meanwhile, and gives the region back at close", async () => {
    const f = join(dir, "window.jsonl");
    const lines = Array.from({ length: 4000 }, (_, i) => `{"i":${i},"t":"${"é".repeat(i % 97)}"}`);
    writeFileSync(f, `${lines.join("\n")}\n`);
    const bytes = readFileSync(f);
    const reader = new FileRangeReader(f);
    // Offsets of every line, read in file order (a forward walk: the window reads ahead).
    const at: number[] = [];
    for (let o = 0, i = 0; i < lines.length; i++) {
      at.push(o);
      o += Buffer.byteLength(lines[i] as string) + 1;
    }
    for (let i = 0; i < lines.length; i++) {
      const len = Buffer.byteLength(lines[i] as string);
      const got = reader.readBytes(at[i] as number, len);
      expect(got.equals(bytes.subarray(at[i], (at[i] as number) + len)), `line ${i}`).toBe(true);
      if (i === 1000) {
        // A scan of 5 MiB grows the scanner's memory: the window's Buffer over it is detached, its bytes stay.
        const big = Buffer.alloc(5 << 20, 0x61);
        big[big.length - 1] = 0x22;
        expect(scanStringForTest(big, 0, big.length)?.q).toBe(big.length - 1);
      }
    }
    // While the store holds the region a line reader reads into a buffer of its own, and after close into the region.
    const during: string[] = [];
    await readLineBytes(f, (buf, st, e) => during.push(buf.toString("utf8", st, e)), 1 << 20);
    reader.close();
    const after: string[] = [];
    await readLineBytes(f, (buf, st, e) => after.push(buf.toString("utf8", st, e)), 1 << 20);
    expect(during).toEqual(lines);
    expect(after).toEqual(lines);
  });
});

describe("wasm string scanner", () => {
  /** Pieces of string content: plain bytes, escapes (valid and not), quotes, control bytes, UTF-8 sequences. */
  const piece = fc.oneof(
    fc
      .constantFrom(
        0x22,
        0x5c,
        0x75,
        0x62,
        0x66,
        0x6e,
        0x72,
        0x74,
        0x2f,
        0x30,
        0x39,
        0x41,
        0x46,
        0x61,
        0x67,
        0x47,
        0x00,
        0x01,
        0x0a,
        0x1f,
        0x20,
        0x7f,
        0x80,
        0xc3,
        0xa9,
        0xff,
      )
      .map((c) => [c]),
    fc
      .constantFrom(
        '\\"',
        "\\\\",
        "\\/",
        "\\b",
        "\\f",
        "\\n",
        "\\r",
        "\\t",
        "\\u00e9",
        "\\uABCD",
        "\\u12G4",
        "\\u12",
        "\\x",
        "\\\\\\",
        "é",
        "𝔘",
        "\u2028",
        "aaaaaaaaaaaaaaa",
        "a",
      )
      .map((s) => [...Buffer.from(s, "utf8")]),
    fc.uint8Array({ minLength: 1, maxLength: 3 }).map((a) => [...a]),
  );
  const content = fc.tuple(fc.nat(40), fc.array(piece, { maxLength: 30 }), fc.nat(3), fc.boolean()).map(([fill, parts, q, closed]) => {
    const bytes = [...Buffer.from('\\"'.repeat(q).slice(0, q)), ...Array<number>(fill).fill(0x61), ...parts.flat()];
    if (closed) bytes.push(0x22, 0x7d);
    return { buf: Buffer.from(bytes), q };
  });

  it("is available", () => {
    expectStrictEqual(scanStringForTest(Buffer.from('ab"'), 0, 3), { q: 2, esc: false });
  });

  it("agrees with the reference scanner on random string contents (every end, block boundaries, buffer end)", () => {
    fc.assert(
      fc.property(content, ({ buf, q }) => {
        // Every end from q to the buffer's: strings cut at each length, ending at the buffer end.
        for (let end = q; end <= buf.length; end++) {
          const js = scanStringReference(buf, q, end);
          const wasm = scanStringForTest(buf, q, end);
          // expect() only on a mismatch: this runs about 150,000 times.
          if (!isDeepStrictEqual(wasm, js)) expectStrictEqual(wasm, js, `${JSON.stringify(buf.toString("latin1"))} q=${q} end=${end}`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("long runs: quotes, escapes and control bytes at every offset of several blocks", () => {
    for (const [ins, len] of [
      ['"', 1],
      ["\\n", 2],
      ["\\u0041", 6],
      ["\\u004", 5],
      ["\\q", 2],
      ["\u0001", 1],
      ["\\\\", 2],
      ['\\"', 2],
    ] as const) {
      for (let at = 0; at < 70; at++) {
        const buf = Buffer.from(`${"x".repeat(at) + ins + "y".repeat(70)}"`);
        for (const end of [at + len - 1, at + len, at + len + 1, buf.length - 1, buf.length]) {
          if (end < 0 || end > buf.length) continue;
          expectStrictEqual(
            scanStringForTest(buf, 0, end),
            scanStringReference(buf, 0, end),
            `${JSON.stringify(ins)} at ${at}, end ${end}`,
          );
        }
      }
    }
  });

  describe("every line through wasm memory", () => {
    it("random entries, JSON values, mutated strings", () => {
      fc.assert(
        fc.property(entryArb, fc.nat(3), (line, pad) => check(line, pad)),
        { numRuns: 1500 },
      );
      fc.assert(
        fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => check(JSON.stringify(v) ?? "null")),
        { numRuns: 500 },
      );
      fc.assert(
        fc.property(fc.string({ unit: fc.constantFrom(...MUTATION_BYTES, "1", "x", "é") }), (s) =>
          check(`{"type":"message","id":"a","x":"${s}"}`),
        ),
        { numRuns: 2000 },
      );
      for (const l of corpusLines.slice(0, 500)) check(l);
    });
    it.each(FIXTURES.slice(0, 40).map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
      const full = await loadSession({ kind: "file", path: f });
      const skel = await loadSession({ kind: "file", path: f }, { detail: "skeleton" });
      full.store.close();
      skel.store.close();
      expectStrictEqual(sessionView(skel, skeletonView), sessionView(full, skeletonView));
    });
  });
});

describe("the field table (src/model/fields.ts) and what is derived from it", () => {
  // Written out by hand from pi's entry types and what the tree, paths and references need.
  it("SKELETON_FIELDS: the position fields, ids, type, time, and the per-type fields the tree and references read", () => {
    expectEqual(
      [...SKELETON_FIELDS].sort(),
      [
        ...["index", "line", "offset", "length", "id", "parentId", "type", "timestamp", "time"],
        ...["role", "hasMessage", "tokensBefore", "firstKeptEntryId", "firstKeptEntryIndex", "fromId", "summaryEmpty"],
        ...["targetId", "labelText", "name", "thinkingLevel", "customType", "provider", "model"],
      ].sort(),
    );
  });
  it("a message's provider, model and customType are not skeleton fields; a model_change's are", () => {
    expect(skeletonFieldsOf("message")).not.toContain("provider");
    expect(skeletonFieldsOf("message")).not.toContain("customType");
    expect(skeletonFieldsOf("model_change")).toEqual(expect.arrayContaining(["provider", "model"]));
    expect(skeletonFieldsOf("usage")).not.toContain("provider");
  });
});

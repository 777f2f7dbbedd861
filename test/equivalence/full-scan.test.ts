import type { EntryFields } from "../../src/model/types.js";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { previewFieldsOf, spendFieldsOf } from "../../src/model/fields.js";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { ROOT, sessionFiles, sessionView } from "../support/helpers.js";
import { expectStrictEqual } from "../support/expect-fast.js";
import { parsedRec, scanLine } from "../support/scan-case.js";

/**
 * The full load reads most lines with the byte scanner (no JSON.parse): its records must be the very records a
 * whole parse makes, every field and in the same key order (previews cut from long, escaped and non-ASCII
 * strings, white-space tests, tool call lists, replacements), on every fixture and corpus file and on generated
 * lines.
 */

/** A record as a list of [key, value] pairs: key order counts too. */
const pairs = (rec: EntryRec): [string, unknown][] => Object.entries(rec);

const FIXTURES = sessionFiles();

/**
 * Each fixture's whole parse (fastScan: false), the reference of both comparisons below: loaded once, by whichever
 * test asks first, and let go by the second.
 */
const wholeParses = new Map<string, Promise<Session>>();
function wholeParse(f: string, last: boolean): Promise<Session> {
  let s = wholeParses.get(f);
  if (s === undefined) {
    s = loadSession({ kind: "file", path: f }, { fastScan: false }).then((loaded) => {
      loaded.store.close();
      return loaded;
    });
    wholeParses.set(f, s);
  }
  if (last) wholeParses.delete(f);
  return s;
}

describe("full loads read by the scanner equal whole parses on every fixture and corpus file", () => {
  it("the fixtures hold previews to compare", () => {
    expect(FIXTURES.length).toBeGreaterThan(50);
    expect(FIXTURES.some((f) => f.includes("/corpus/"))).toBe(true);
  });
  it.each(FIXTURES.map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const scanned = await loadSession({ kind: "file", path: f });
    const parsed = await wholeParse(f, false);
    scanned.store.close();
    expectStrictEqual(sessionView(scanned, pairs), sessionView(parsed, pairs));
  });
});

// Strings that hit the readers' edge cases: white space JS trims (and characters it does not), surrogates, and
// long strings whose first 240 characters end inside an escape or a multi-byte character.
const special = fc.constantFrom(
  "",
  " ",
  "   ",
  "\t\n",
  "\u00a0",
  "\u2028 \u3000",
  "\ufeff",
  "\u0008",
  "\u200b",
  "x",
  " x ",
  "é",
  "模型",
  "𝔘",
  "\ud800",
  "a\udc00b",
  'q"uote\\',
  "x".repeat(239),
  "x".repeat(240),
  "x".repeat(241),
  "é".repeat(700),
  "𝔘".repeat(400),
  "\n".repeat(300),
  `${"y".repeat(1437)}é𝔘\n`,
  `${"\u2028".repeat(500)}z`,
);
const str = fc.oneof(
  { weight: 3, arbitrary: special },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  fc.string(),
);

/** A string as JSON text: as JSON.stringify writes it, or with every character as a \u escape. */
function strText(s: string, escaped: boolean): string {
  if (!escaped) return JSON.stringify(s);
  let out = '"';
  for (let i = 0; i < s.length; i++) out += `\\u${s.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return `${out}"`;
}
const strArb = fc.tuple(str, fc.nat(4)).map(([s, e]) => strText(s, e === 0));
const otherArb = fc.constantFrom("null", "true", "false", "0", "-1.5e3", "{}", "[]", '{"a":[1,{"b":"]"}]}', '["text"]');
const valueArb = fc.oneof({ weight: 3, arbitrary: strArb }, { weight: 1, arbitrary: otherArb });

/** Object text from pairs, keys in the given order, duplicates allowed; now and then a key written with an escape. */
function objText(ps: [string, string][], ws: string, escapeAt: number): string {
  const key = (k: string, i: number) =>
    i === escapeAt && k.length > 0 ? `"\\u${k.charCodeAt(0).toString(16).padStart(4, "0")}${k.slice(1)}"` : JSON.stringify(k);
  return `{${ws}${ps.map(([k, v], i) => `${key(k, i)}${ws}:${ws}${v}`).join(`${ws},${ws}`)}${ws}}`;
}

const blockArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        type: fc.oneof(
          {
            weight: 6,
            arbitrary: fc.constantFrom('"text"', '"toolCall"', '"text"', '"toolCall"', '"thinking"', '"image"', '"t\\u0065xt"'),
          },
          valueArb,
        ),
        text: valueArb,
        name: valueArb,
        id: valueArb,
        extra: fc.array(fc.tuple(fc.constantFrom("type", "text", "name", "id", "arguments", "thinking"), valueArb), { maxLength: 3 }),
        drop: fc.nat(7),
        escapeAt: fc.nat(30),
        ws: fc.constantFrom("", " ", "\n"),
      })
      .map((b) => {
        const ps: [string, string][] = [
          ["type", b.type],
          ["text", b.text],
          ["name", b.name],
          ["id", b.id],
        ];
        if (b.drop < ps.length) ps.splice(b.drop, 1);
        return objText([...ps, ...b.extra], b.ws, b.escapeAt);
      }),
  },
  { weight: 1, arbitrary: otherArb },
  { weight: 1, arbitrary: strArb },
);
const contentArb = fc.oneof(
  { weight: 4, arbitrary: fc.array(blockArb, { maxLength: 5 }).map((bs) => `[${bs.join(",")}]`) },
  { weight: 2, arbitrary: strArb },
  { weight: 1, arbitrary: otherArb },
);

const ROLES = ["assistant", "toolResult", "user", "custom", "hookMessage", "bashExecution", "system", "x"];
const MESSAGE_KEYS = [
  "content",
  "stopReason",
  "errorMessage",
  "toolCallId",
  "toolName",
  "isError",
  "customType",
  "command",
  "provider",
  "model",
];
const TYPES = ["message", "custom_message", "context_edit", "compaction", "branch_summary", "label", "session_info", "usage", "x"];
const TOP_KEYS = ["content", "replacement", "summary", "customType", "targetId", "label", "name", "kind", "fromId", "tokensBefore"];

const lineArb = fc
  .record({
    type: fc.oneof({ weight: 4, arbitrary: fc.constant("message") }, fc.constantFrom(...TYPES)),
    role: fc.oneof({ weight: 3, arbitrary: fc.constant("assistant") }, fc.constantFrom(...ROLES)),
    content: contentArb,
    content2: fc.option(contentArb, { freq: 5 }),
    msgExtra: fc.array(fc.tuple(fc.constantFrom(...MESSAGE_KEYS), fc.oneof(valueArb, fc.constantFrom("true", "false"))), { maxLength: 4 }),
    replacement: fc.oneof(
      contentArb.map((c) => `{"content":${c}}`),
      contentArb.map((c) => `{"cont\\u0065nt":${c}}`),
      contentArb.map((c) => `{"content":${c},"content":"last"}`),
      otherArb,
    ),
    topExtra: fc.array(fc.tuple(fc.constantFrom(...TOP_KEYS), valueArb), { maxLength: 4 }),
    escapeAt: fc.nat(40),
  })
  .map((r) => {
    const msg: [string, string][] = [["role", JSON.stringify(r.role)], ["content", r.content], ...r.msgExtra];
    if (r.content2 !== null) msg.push(["content", r.content2]);
    const ps: [string, string][] = [
      ["type", JSON.stringify(r.type)],
      ["id", '"e1"'],
      ["parentId", '"e0"'],
      ["timestamp", '"2026-01-11T08:00:01.000Z"'],
    ];
    if (r.type === "message") ps.push(["message", objText(msg, "", r.escapeAt)]);
    else ps.push(["content", r.content], ["replacement", r.replacement]);
    ps.push(...r.topExtra);
    return objText(ps, "", r.escapeAt - 20);
  });

const seen = { recs: 0, fallback: 0, text: 0, longText: 0, tools: 0 };

function check(line: string): void {
  const { rec, parsed, bytes } = scanLine(line, "full");
  if (rec === null) {
    seen.fallback++;
    return;
  }
  seen.recs++;
  if (rec.text) seen.text++;
  if (rec.text !== undefined && rec.text.length === 240) seen.longText++;
  if (rec.toolNames !== undefined) seen.tools++;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    expect.fail(`scanner read a line JSON.parse rejects: ${line.slice(0, 200)}`);
  }
  const whole = parsedRec(parsed as Record<string, unknown>, bytes);
  const a = pairs(rec);
  const b = pairs(whole);
  if (!isDeepStrictEqual(a, b)) expectStrictEqual(a, b, line.slice(0, 600));
}

describe("full scanner: records equal the whole parse", () => {
  afterAll(() => {
    expect(seen.recs).toBeGreaterThan(2000);
    expect(seen.text).toBeGreaterThan(500);
    expect(seen.longText).toBeGreaterThan(50);
    expect(seen.tools).toBeGreaterThan(100);
    expect(seen.fallback).toBeGreaterThan(100);
  });

  it("edge cases", () => {
    const m = (msg: string) => `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-11T08:00:01.000Z","message":${msg}}`;
    const long = (s: string, n: number) => JSON.stringify(s.repeat(n));
    const cases = [
      m(
        '{"role":"assistant","content":[{"type":"text","text":"  "},{"type":"toolCall","id":"c1","name":"bash"},{"type":"toolCall","id":2}]}',
      ),
      m('{"role":"assistant","content":[{"type":"toolCall","name":"a","name":7,"id":"x","id":"y"}],"stopReason":"toolUse"}'),
      m('{"role":"assistant","content":[{"type":"text","text":"\\u00a0\\u2028"},{"type":"text","text":"\\u0008"}]}'),
      m('{"role":"assistant","content":[{"type":"text","text":"\u00a0\u3000"}]}'),
      m('{"role":"assistant","content":[{"type":"text","t\\u0065xt":"hidden"},{"type":"text","text":"seen"}]}'),
      m(`{"role":"user","content":${long("é", 2000)}}`),
      m(`{"role":"user","content":${strText("\ud83d\ude00".repeat(300), true)}}`),
      m(`{"role":"user","content":"${"\\n".repeat(239)}\\ud83d\\ude00${"z".repeat(2000)}"}`),
      m(
        `{"role":"toolResult","toolCallId":"c1","toolName":"bash","isError":true,"content":[{"type":"text","text":${long("x", 100)}},{"type":"text","text":${long("y", 5000)}}]}`,
      ),
      m('{"role":"toolResult","isError":"true","content":[1,null,"t",["text"],{"type":"text"}]}'),
      m('{"role":"bashExecution","command":"ls -la","content":null}'),
      m('{"role":"custom","customType":"note","content":{"type":"text","text":"obj"}}'),
      m(`{"role":"assistant","errorMessage":${long("e", 3000)}}`),
      '{"type":"context_edit","id":"e","targetId":"t","replacement":{"content":[{"type":"text","text":"new"}]}}',
      '{"type":"context_edit","id":"e","targetId":"t","replacement":null}',
      '{"type":"context_edit","id":"e","targetId":"t","replacement":{"content":"s","content":[{"type":"text","text":"last"}]}}',
      '{"type":"context_edit","id":"e","targetId":"t","replacement":{"c\\u006fntent":"escaped key"}}',
      '{"type":"custom_message","id":"c","customType":"x","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}',
      `{"type":"compaction","id":"c","summary":${long("s", 4000)},"tokensBefore":5,"firstKeptEntryId":"a"}`,
      `{"type":"branch_summary","id":"b","fromId":"x","summary":${strText("é".repeat(600), true)}}`,
    ];
    for (const c of cases) check(c);
  });

  it("random entries", () => {
    fc.assert(
      fc.property(lineArb, (l) => check(l)),
      { numRuns: 3000 },
    );
  });

  describe("every line through wasm memory", () => {
    it("random entries", () => {
      fc.assert(
        fc.property(lineArb, (l) => check(l)),
        { numRuns: 1500 },
      );
    });
  });
});

describe("preview loads (tree and path text) equal full loads on every field they read", () => {
  const view = (rec: EntryFields): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const k of previewFieldsOf(rec.type, rec.role)) if (rec[k] !== undefined) out[k] = rec[k];
    return out;
  };
  let without = 0;
  it.each(FIXTURES.map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const preview = await loadSession({ kind: "file", path: f }, { detail: "preview" });
    const full = await wholeParse(f, true);
    preview.store.close();
    expectStrictEqual(sessionView(preview, view), sessionView(full, view));
    // Anything else a record holds (a line parsed whole holds every field) is spend.
    for (const rec of preview.entries) {
      const allowed = previewFieldsOf(rec.type, rec.role) as string[];
      const spend = spendFieldsOf(rec.type, rec.role) as string[];
      for (const k of Object.keys(rec)) if (!allowed.includes(k) && !spend.includes(k)) expect(spend, `${f}:${rec.line} ${k}`).toContain(k);
      // Read as the fields a load may fill: a preview record has no usage (unless its line was parsed whole).
      if (rec.role === "assistant" && (rec as EntryFields).usage === undefined) without++;
    }
  });
  it("left usage out", () => {
    expect(without).toBeGreaterThan(100);
  });
});

import type { EntryFields } from "../../src/model/types.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { spendFieldsOf } from "../../src/model/fields.js";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import { sessionRows } from "../../src/ops/fleet-rows.js";
import { calendar } from "../../src/ops/fleet-time.js";
import { UsageAggregator } from "../../src/ops/fleet-usage.js";
import { sessionTotals, type SpendSession } from "../../src/ops/totals.js";
import { ROOT, sessionView, sessionFiles } from "../support/helpers.js";
import { expectStrictEqual } from "../support/expect-fast.js";
import { damaged, keyText, objectText, parsedRec, scanLine, sessionsOf, writeSettled } from "../support/scan-case.js";

/**
 * The spend detail (what `pisess usage` loads) against the full parse: the records' spend fields, the sessions'
 * findings, and the usage sums must be the same, on every fixture and corpus file and on generated lines with
 * escaped strings, unicode, numbers in exponent form, usage objects nested and repeated, and damage.
 */

function spendView(rec: EntryFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of spendFieldsOf(rec.type, rec.role)) if (rec[k] !== undefined) out[k] = rec[k];
  return out;
}

/** What usage sums for a session, by every key, with the per-model breakdown; and sessionTotals. */
function sums(s: SpendSession): unknown {
  const agg = new UsageAggregator(["day", "model", "leaf", "session"], calendar("UTC"), true);
  agg.addSession(s, { project: null, name: "x" });
  return { usage: agg.snapshot(), totals: sessionTotals(s) };
}

const FIXTURES = sessionFiles();

async function both(f: string): Promise<[Session<"full">, Session<"spend">]> {
  const full = await loadSession({ kind: "file", path: f });
  const spend = await loadSession({ kind: "file", path: f }, { detail: "spend" });
  full.store.close();
  spend.store.close();
  return [full, spend];
}

describe("spend loads equal full loads on every fixture and corpus file", () => {
  it("the fixtures hold spend to compare", () => {
    expect(FIXTURES.length).toBeGreaterThan(50);
    expect(FIXTURES.some((f) => f.includes("/corpus/"))).toBe(true);
  });
  it.each(FIXTURES.map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const [full, spend] = await both(f);
    expectStrictEqual(sessionView(spend, spendView), sessionView(full, spendView), "index");
    expectStrictEqual(sums(spend), sums(full), "usage sums");
    // `tables` loads in the spend detail too: the same rows.
    const facts = { file: "x", bytes: 1, mtimeMs: 0 };
    expectStrictEqual(sessionRows(spend, facts), sessionRows(full, facts), "rows");
  });
});

// Generated lines: values chosen to hit each reader's edge cases.
const str = fc.oneof(
  fc.constantFrom("anthropic", "claude-opus-4-6", "", "é", "模型", "𝔘", 'a"b', "a\\b", "\u2028", "\ud800", "x".repeat(300), "cache_warm"),
  fc.string(),
);
/** A number as JSON text, in the forms JSON allows (exponents, signs, zeros, out of double range). */
const numText = fc.oneof(
  fc.integer({ min: -5, max: 1e9 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.constantFrom(
    "0",
    "-0",
    "1e3",
    "1E+3",
    "2.5e-2",
    "-1.5E2",
    "1e400",
    "-1e400",
    "0.1",
    "5.742",
    "123456789012345678901234567890",
    // Around 2^53, where summing digits stops being exact.
    "9007199254740993",
    "-9007199254740993",
    "12345678901234567",
    "99999999999999999",
    "999999999999999",
    "1234567890123456",
  ),
);
const scalarText = fc.oneof(
  { weight: 4, arbitrary: numText },
  { weight: 1, arbitrary: str.map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: fc.constantFrom("null", "true", "false", "[]", "{}", "[1,2]") },
);
const USAGE_KEYS = ["input", "output", "cacheRead", "cacheWrite", "cacheWrite1h", "reasoning", "totalTokens", "cost", "total"];

/** Object text from pairs: keys in any order, repeated keys allowed, some written with escapes. */
const obj = objectText;
const key = keyText;

const costText = fc.oneof(
  fc.array(fc.tuple(fc.constantFrom("total", "input", "output", "tot\u0061l"), scalarText, fc.boolean()), { maxLength: 4 }).map((ps) =>
    obj(
      ps.map(([k, v, e]) => [key(k, e), v]),
      "",
    ),
  ),
  scalarText,
);
const usageText = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(...USAGE_KEYS), fc.oneof(scalarText, costText), fc.boolean()), { maxLength: 12 })
      .chain((ps) =>
        fc.constantFrom("", " ", "\n\t").map((ws) =>
          obj(
            ps.map(([k, v, e]) => [key(k, e && ps.length % 3 === 0), v]),
            ws,
          ),
        ),
      ),
  },
  { weight: 1, arbitrary: scalarText },
);

const ROLES = ["assistant", "toolResult", "user", "custom", "hookMessage", "bashExecution", "x"];
const TYPES = ["message", "usage", "compaction", "branch_summary", "model_change", "label", "custom_message"];

const lineArb = fc
  .record({
    type: fc.constantFrom(...TYPES),
    role: fc.constantFrom(...ROLES),
    usage: usageText,
    usage2: fc.option(usageText),
    nestedUsage: fc.option(usageText),
    provider: str,
    model: str,
    kind: str,
    extra: fc.array(fc.tuple(fc.constantFrom("provider", "model", "modelId", "kind", "fromId", "summary", "role"), scalarText), {
      maxLength: 4,
    }),
    escapeKey: fc.nat(20),
    ts: fc.constantFrom('"2026-01-11T08:00:01.000Z"', '"2026-02-30T00:00:00.000Z"', "1768118401000", '"x"'),
  })
  .map((r) => {
    const msg: [string, string][] = [
      ['"role"', JSON.stringify(r.role)],
      ['"content"', `[{"type":"text","text":"u\\u00e9 ${"y".repeat(20)}"},{"type":"toolCall","usage":${r.nestedUsage ?? "{}"}}]`],
      ['"provider"', JSON.stringify(r.provider)],
      ['"model"', JSON.stringify(r.model)],
      ['"usage"', r.usage],
    ];
    if (r.usage2 !== null) msg.push(['"usage"', r.usage2]);
    const pairs: [string, string][] = [
      ['"type"', JSON.stringify(r.type)],
      ['"id"', '"e1"'],
      ['"parentId"', '"e0"'],
      ['"timestamp"', r.ts],
    ];
    if (r.type === "message") pairs.push(['"message"', obj(msg, "")]);
    else {
      pairs.push(
        ['"usage"', r.usage],
        ['"provider"', JSON.stringify(r.provider)],
        ['"model"', JSON.stringify(r.model)],
        ['"kind"', JSON.stringify(r.kind)],
      );
      if (r.usage2 !== null) pairs.push(['"usage"', r.usage2]);
    }
    for (const [k, v] of r.extra) pairs.push([JSON.stringify(k), v]);
    // Now and then one key written with an escape (the scanner must then let the full parse read the line).
    const i = r.escapeKey;
    if (i < pairs.length) {
      const p = pairs[i] as [string, string];
      pairs[i] = [key(JSON.parse(p[0]) as string, true), p[1]];
    }
    return obj(pairs, "");
  });

const seen = { recs: 0, fallback: 0, withUsage: 0 };

function check(line: string): void {
  const { rec, parsed, bytes } = scanLine(line, "spend");
  if (rec === null) {
    seen.fallback++;
    return;
  }
  seen.recs++;
  if (rec.usage !== undefined) seen.withUsage++;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    expect.fail(`scanner read a line JSON.parse rejects: ${line.slice(0, 200)}`);
  }
  const full = parsedRec(parsed as Record<string, unknown>, bytes);
  const a = spendView(rec);
  const b = spendView(full);
  if (!isDeepStrictEqual(a, b)) expectStrictEqual(a, b, line.slice(0, 400));
  // nothing beyond the spend fields
  const allowed = spendFieldsOf(rec.type, rec.role) as string[];
  for (const k of Object.keys(rec)) if (!allowed.includes(k)) expect(allowed).toContain(k);
}

describe("spend scanner: records equal the full parse", () => {
  afterAll(() => {
    expect(seen.recs).toBeGreaterThan(500);
    expect(seen.withUsage).toBeGreaterThan(200);
    expect(seen.fallback).toBeGreaterThan(50);
  });

  it("edge cases", () => {
    const m = (msg: string) => `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-11T08:00:01.000Z","message":${msg}}`;
    const cases = [
      m(
        '{"role":"assistant","provider":"p","model":"m","usage":{"input":1e3,"output":2E+1,"cacheRead":0.5e1,"cacheWrite":-0,"cost":{"total":1.5e-3}}}',
      ),
      m('{"role":"assistant","usage":{"input":1e400,"output":-1e400,"cost":{"total":1e400}}}'),
      m('{"role":"assistant","usage":{"input":1,"input":2,"cost":{"total":1},"cost":{"total":2}}}'),
      m('{"role":"assistant","usage":{"input":1},"usage":{"output":2}}'),
      m('{"role":"assistant","usage":{"in\\u0070ut":7,"cost":{"t\\u006ftal":3}}}'),
      m('{"role":"assistant","us\\u0061ge":{"input":7}}'),
      m('{"role":"assistant","usage":{"input":"5","output":true,"cost":5}}'),
      m('{"role":"assistant","usage":[1,2]}'),
      m('{"role":"assistant","usage":null}'),
      m('{"role":"assistant","content":[{"usage":{"input":9}}],"usage":{"cost":{"usage":{"total":4},"total":2}}}'),
      m('{"role":"assistant","provider":"\\u0061nthropic","model":"mo\\"del 模型 𝔘"}'),
      m('{"role":"assistant","provider":"\\ud800","model":"\u2028"}'),
      m('{"role":"toolResult","usage":{"input":3,"cost":{"total":0.25}},"provider":"p"}'),
      m('{"role":"user","usage":{"input":3},"provider":"p","model":"m"}'),
      m('{"role":"hookMessage","usage":{"input":3}}'),
      m('{"role":"assistant","usage":{"input":1}'),
      m('{"role":"assistant","usage":{"input":01}}'),
      m('{"role":"assistant","usage":{"input":1.}}'),
      '{"type":"usage","id":"u","kind":"cache_warm","provider":"p","model":"m","usage":{"input":1,"cost":{"total":0.1}}}',
      '{"type":"usage","id":"u","kind":"\\u0063ache","usage":{"input":1}}',
      `{"type":"usage","id":"u","kind":"${"k".repeat(400)}","usage":{"input":1}}`,
      '{"type":"compaction","id":"c","usage":{"input":1,"cost":{"total":0.1}},"summary":"s","tokensBefore":5}',
      '{"type":"branch_summary","id":"b","fromId":"x","usage":{"output":2},"summary":""}',
      '{"type":"model_change","id":"m","provider":"p","modelId":"m","usage":{"input":1}}',
      '{"type":"label","id":"l","usage":{"input":1},"targetId":"t","label":"x"}',
    ];
    for (const c of cases) check(c);
  });

  it("random spend entries", () => {
    fc.assert(
      fc.property(lineArb, (l) => check(l)),
      { numRuns: 3000 },
    );
  });

  it("damaged: a byte deleted, inserted or the line cut", () => {
    fc.assert(
      fc.property(damaged(lineArb, ['"', "\\", "{", "}", ",", ":", "e", "-", "."]), (l) => check(l)),
      { numRuns: 3000 },
    );
  });
});

describe("spend loads of generated files with damaged lines", () => {
  const dir = mkdtempSync(join(tmpdir(), "pisess-spend-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it("equal the full load: records, findings and usage sums", async () => {
    await fc.assert(
      fc.asyncProperty(sessionsOf(lineArb), async (text) => {
        const f = writeSettled(dir, text);
        const [full, spend] = await both(f);
        expectStrictEqual(sessionView(spend, spendView), sessionView(full, spendView), "index");
        expectStrictEqual(sums(spend), sums(full), "usage sums");
      }),
      { numRuns: 200 },
    );
  });
});

describe("spend detail on the fleet fixture", () => {
  it("counts usage (the fixture has spend in every kind)", async () => {
    const f = FIXTURES.find((x) => x.endsWith("a-parent.jsonl")) as string;
    const [, spend] = await both(f);
    expect(spend.entries.some((e) => e.usage !== undefined && e.usage.cost > 0)).toBe(true);
    expect(readFileSync(f, "utf8").length).toBeGreaterThan(0);
  });
});

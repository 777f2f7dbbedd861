import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { isObject } from "../../src/model/json.js";
import { messageStandIn, messageStandInFromBytes } from "../../src/io/scan/standin.js";
import { sessionFiles } from "../support/helpers.js";
import { keyText, objectText } from "../support/scan-case.js";
import { expectStrictEqual } from "../support/expect-fast.js";

/**
 * A context's stand-in for a message, read from the entry line's bytes, must be the very object messageStandIn
 * makes from the parsed message (key order too), or null where the scanner is unsure; never one for a message
 * that is not an object or whose content is null or missing. The message's span it gives, counted from the line's
 * start, parses to the message whole (the display reads it again from there).
 */

const seen = { fromBytes: 0, unsure: 0, toolCalls: 0 };

function check(line: string, pad = 2): void {
  const bytes = Buffer.from(line, "utf8");
  const buf = Buffer.concat([Buffer.from('{"\\'.slice(0, pad)), bytes, Buffer.from('"}]')]);
  const span = new Int32Array([-7, -7]);
  const got = messageStandInFromBytes(buf, pad, pad + bytes.length, span);
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    parsed = undefined;
  }
  const m = isObject(parsed) ? parsed.message : undefined;
  const want = isObject(m) && m.content !== null && m.content !== undefined ? messageStandIn(m) : null;
  if (got === null) {
    seen.unsure++;
    return;
  }
  seen.fromBytes++;
  if (JSON.stringify(got).includes("toolCall")) seen.toolCalls++;
  if (want === null) expect.fail(`a stand-in where the parse gives none: ${line.slice(0, 300)}`);
  const a = Object.entries(got);
  const b = Object.entries(want);
  if (!isDeepStrictEqual(a, b)) expectStrictEqual(a, b, line.slice(0, 400));
  const whole: unknown = JSON.parse(bytes.toString("utf8", span[0], span[1]));
  let same: boolean;
  try {
    same = isDeepStrictEqual(whole, m);
  } catch (err) {
    // A fixture's message nested deeper than the comparison's recursion goes: compared as text instead.
    if (!(err instanceof RangeError)) throw err;
    same = bytes.toString("utf8", span[0], span[1]) === line.slice(line.indexOf('"message":') + 10, line.length - 1);
  }
  if (!same) expectStrictEqual(whole, m, line.slice(0, 400));
}

const str = fc.oneof(fc.constantFrom("", "toolCall", "text", "é", "模型", "\ud800", 'a"b', "x".repeat(300)), fc.string());
const value = fc.oneof(
  { weight: 3, arbitrary: str.map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: fc.constantFrom("null", "true", "false", "0", "-2.5e3", "{}", "[]", '{"a":[1,{"b":"]"}]}') },
);
const obj = (ps: [string, string][], escapeAt: number) =>
  objectText(
    ps.map(([k, v], i) => [keyText(k, i === escapeAt), v]),
    "",
  );

const block = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.oneof({ weight: 3, arbitrary: fc.constantFrom('"toolCall"', '"text"', '"thinking"') }, value),
        fc.array(fc.tuple(fc.constantFrom("type", "id", "name", "text", "arguments"), value), { maxLength: 4 }),
        fc.nat(12),
      )
      .map(([type, rest, e]) => obj([["type", type], ...rest], e)),
  },
  { weight: 1, arbitrary: value },
);
const content = fc.oneof(
  { weight: 3, arbitrary: fc.array(block, { maxLength: 5 }).map((bs) => `[${bs.join(",")}]`) },
  { weight: 1, arbitrary: value },
);
const lineArb = fc
  .record({
    role: fc.oneof(fc.constantFrom('"assistant"', '"toolResult"', '"user"', '"bashExecution"'), value),
    content: fc.option(content, { freq: 8 }),
    kept: fc.array(
      fc.tuple(fc.constantFrom("provider", "model", "toolCallId", "toolName", "excludeFromContext", "role", "content", "usage"), value),
      {
        maxLength: 5,
      },
    ),
    message: fc.nat(12),
    escapeAt: fc.nat(16),
  })
  .map((r) => {
    const ps: [string, string][] = [["role", r.role]];
    if (r.content !== null) ps.push(["content", r.content]);
    ps.push(...r.kept);
    const m = r.message === 0 ? "null" : r.message === 1 ? '["x"]' : obj(ps, r.escapeAt);
    return `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-11T08:00:01.000Z","message":${m}}`;
  });

describe("message stand-ins read from the bytes equal those of the parsed message", () => {
  afterAll(() => {
    expect(seen.fromBytes).toBeGreaterThan(1000);
    expect(seen.toolCalls).toBeGreaterThan(200);
    expect(seen.unsure).toBeGreaterThan(100);
  });

  it("every message line of every fixture and corpus file", () => {
    for (const f of sessionFiles()) {
      for (const line of readFileSync(f, "utf8").split("\n")) if (line.includes('"message"')) check(line.replace(/\r$/, ""));
    }
  });

  it("edge cases", () => {
    const m = (msg: string) => `{"type":"message","message":${msg}}`;
    for (const c of [
      m(
        '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{}},{"type":"text","text":"t"}],"provider":"p","model":"m"}',
      ),
      m('{"role":"assistant","content":[{"type":"toolCall","type":"text"},{"type":"text","type":"toolCall"}]}'),
      m('{"role":"assistant","content":[1,"s",null,[{"type":"toolCall"}],{"typ\\u0065":"toolCall"}]}'),
      m('{"role":"toolResult","toolCallId":"c","toolName":{"a":1},"content":"long text","isError":true}'),
      m('{"role":"bashExecution","command":"ls","content":[],"excludeFromContext":false}'),
      m('{"content":5}'),
      m('{"role":"user","content":null}'),
      m('{"role":"user"}'),
      m('{"role":"user","content":"a","content":null}'),
      m('{"role":"user","content":{"type":"text"}}'),
      m("null"),
      m("[1]"),
      m('{"role":"user","content":"a"'),
    ])
      check(c);
  });

  it("random message lines", () => {
    fc.assert(
      fc.property(lineArb, fc.nat(3), (l, pad) => check(l, pad)),
      { numRuns: 3000 },
    );
  });

  describe("through wasm memory", () => {
    it("random message lines", () => {
      fc.assert(
        fc.property(lineArb, (l) => check(l)),
        { numRuns: 1000 },
      );
    });
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openArrayMember, PRETTY_MAX_DEPTH, stringifyDeep, toJson, toPrettyJson } from "../../src/render/json.js";
import { corpus } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";

describe("JSON of deeply nested values (render/json.ts)", () => {
  it("the explicit-stack serializer writes JSON.stringify's bytes", () => {
    const values: unknown[] = [
      null,
      0,
      -1.5e-9,
      'a\u0000"\\\u2028\ud800',
      true,
      [],
      {},
      [undefined, () => 1, Symbol("s"), Number.NaN, Number.POSITIVE_INFINITY],
      { a: undefined, b: () => 1, c: [{}], "k\n": "v", 1: "one" },
      { d: new Date(Date.UTC(2025, 0, 1)), n: Object(5), s: Object("x"), b: Object(false) },
      { toJSON: () => ({ replaced: [1] }) },
    ];
    // Real entries: every line of a corpus file with tool calls, thinking, usage and compactions.
    for (const line of readFileSync(corpus("gen-v3-long.jsonl"), "utf8").split("\n")) if (line) values.push(JSON.parse(line));
    for (const v of values) expect(stringifyDeep(v)).toBe(JSON.stringify(v));
    expect(stringifyDeep(undefined)).toBe(undefined);
  });

  it("a value nested deeper than the stack allows: the same JSON, no overflow", () => {
    const depth = 20_000;
    let deep: unknown = { x: [] };
    let expected = '{"x":[]}';
    for (let i = 0; i < depth; i++) {
      deep = i % 2 ? [deep] : { k: deep };
      expected = i % 2 ? `[${expected}]` : `{"k":${expected}}`;
    }
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const text = toJson(deep) as string;
    expect(text).toBe(expected);
    expect(toPrettyJson(deep)).toBe(text); // too deep to indent: one line
    expect(toPrettyJson({ a: [1] })).toBe(JSON.stringify({ a: [1] }, null, 2));
  });
});

describe("toPrettyJson (show): indented up to a fixed depth, one line past it", () => {
  /** `levels` arrays and objects nested in one another, alternately, around a number. */
  function nested(levels: number): unknown {
    let v: unknown = 1;
    for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v };
    return v;
  }

  it("indents a value of PRETTY_MAX_DEPTH levels, and prints one of a level more on one line, on any stack", () => {
    const atLimit = nested(PRETTY_MAX_DEPTH);
    expect(toPrettyJson(atLimit)).toBe(JSON.stringify(atLimit, null, 2));
    // Deep enough for one line, shallow enough that the native indented call would not overflow the stack: the
    // choice is the depth's, not the stack's.
    const past = nested(PRETTY_MAX_DEPTH + 1);
    expect(JSON.stringify(past, null, 2)).toContain("\n");
    expect(toPrettyJson(past)).toBe(JSON.stringify(past));
    // The depth counts containers only, wherever they sit among other members.
    const wide = { a: 1, b: [2, { c: nested(PRETTY_MAX_DEPTH - 3) }], d: "x" };
    expect(toPrettyJson(wide)).toBe(JSON.stringify(wide, null, 2));
    const wider = { a: 1, b: [2, { c: nested(PRETTY_MAX_DEPTH - 2) }], d: "x" };
    expect(toPrettyJson(wider)).toBe(JSON.stringify(wider));
  });
});

describe("openArrayMember (the opening of every streamed document)", () => {
  it("reads back as the head with the array last, an empty head included", () => {
    for (const head of [{}, { file: "a.jsonl" }, { file: "x", leaf: null, n: [1, { "}": "]" }] }]) {
      const doc = `${openArrayMember(JSON.stringify(head), "items")}1,2]}`;
      expectEqual(JSON.parse(doc), { ...head, items: [1, 2] });
    }
  });
});

import { describe, expect, it } from "vitest";
import { expectEqual, expectSame, expectStrictEqual } from "../support/expect-fast.js";

/**
 * test/support/expect-fast.ts passes at once when node's isDeepStrictEqual (or Object.is) holds. Its helpers must
 * still fail where vitest's own matcher fails, and expectEqual must still pass where only toEqual's looser equality
 * holds. (The suite patches no matcher: these helpers are the one shortcut, called where a loop or a large value
 * needs it.)
 */
class Point {
  constructor(readonly x: number) {}
}

const STRICTLY_DIFFERENT: [string, unknown, unknown][] = [
  ["a value", { a: 1 }, { a: 2 }],
  ["an undefined property", { a: 1, b: undefined }, { a: 1 }],
  // A hole made without a literal one (which the linter refuses as a likely typo).
  ["a hole against undefined", Object.assign(new Array<number>(3), { 0: 1, 2: 3 }), [1, undefined, 3]],
  ["a class against a plain object", new Point(1), { x: 1 }],
  ["-0 against 0", { n: -0 }, { n: 0 }],
  ["a longer array", [1, 2], [1, 2, 3]],
];

describe("expectEqual, expectStrictEqual and expectSame: vitest's verdicts, isDeepStrictEqual first", () => {
  it.each(STRICTLY_DIFFERENT)("expectStrictEqual fails on %s", (_name, got, want) => {
    expect(() => expectStrictEqual(got, want)).toThrow(/strictly equal/);
  });

  it("expectEqual keeps toEqual's looser verdicts", () => {
    expectEqual({ a: 1, b: undefined }, { a: 1 });
    expectEqual(new Point(1), { x: 1 });
    expectEqual({ a: 1 }, { a: expect.any(Number) });
    expect(() => expectEqual({ a: 1 }, { a: 2 })).toThrow(/deeply equal/);
    expect(() => expectEqual({ n: -0 }, { n: 0 })).toThrow(/deeply equal/);
  });

  it("expectSame is toBe: Object.is", () => {
    expectSame(Number.NaN, Number.NaN);
    expect(() => expectSame(-0, 0)).toThrow();
    expect(() => expectSame({}, {})).toThrow();
  });

  it("the message names the case", () => {
    expect(() => expectEqual(1, 2, "case 7")).toThrow(/case 7/);
  });

  it("passes equal values, and a negated assertion fails on them", () => {
    const value = { list: [1, "two", { three: [3] }], map: new Map([["k", new Set([1])]]) };
    expectStrictEqual(value, structuredClone(value));
    expectEqual(value, structuredClone(value));
    expect(() => expect(value).not.toStrictEqual(structuredClone(value))).toThrow(/not strictly equal/);
    expect(() => expect(value).not.toEqual(structuredClone(value))).toThrow(/not deeply equal/);
  });
});

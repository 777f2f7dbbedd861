import { describe, expect, it } from "vitest";

/**
 * test/setup/equal-first.ts lets toEqual/toStrictEqual pass at once when node's isDeepStrictEqual holds. The matchers
 * must still fail where vitest's own comparison fails, and toEqual must still pass where only the looser equality holds.
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

describe("toEqual and toStrictEqual with the isDeepStrictEqual shortcut", () => {
  it.each(STRICTLY_DIFFERENT)("toStrictEqual fails on %s", (_name, got, want) => {
    expect(() => expect(got).toStrictEqual(want)).toThrow(/strictly equal/);
  });

  it("toEqual keeps its looser verdicts", () => {
    expect({ a: 1, b: undefined }).toEqual({ a: 1 });
    expect(new Point(1)).toEqual({ x: 1 });
    expect({ a: 1 }).toEqual({ a: expect.any(Number) });
    expect(() => expect({ a: 1 }).toEqual({ a: 2 })).toThrow(/deeply equal/);
    expect(() => expect({ n: -0 }).toEqual({ n: 0 })).toThrow(/deeply equal/);
  });

  it("passes equal values, and a negated assertion fails on them", () => {
    const value = { list: [1, "two", { three: [3] }], map: new Map([["k", new Set([1])]]) };
    expect(value).toStrictEqual(structuredClone(value));
    expect(value).toEqual(structuredClone(value));
    expect(() => expect(value).not.toStrictEqual(structuredClone(value))).toThrow(/not strictly equal/);
    expect(() => expect(value).not.toEqual(structuredClone(value))).toThrow(/not deeply equal/);
  });
});

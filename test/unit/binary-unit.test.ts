import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { binaryString, binaryUnit } from "../support/binary-unit.js";

// fast-check's own binary unit, as its source builds it (mapToConstant over U+0000..U+D7FF and U+E000..U+10FFFF).
// Drawing from mapToConstant is cheap; only its unmapper (which fc.string calls at once) builds the 1.1M-entry Map.
const theirs = fc.mapToConstant(
  { num: 0xd800, build: (i) => String.fromCodePoint(i) },
  { num: 0x110000 - 0xe000, build: (i) => String.fromCodePoint(0xe000 + i) },
);

describe("binaryUnit", () => {
  it("draws what fast-check's binary unit draws, seed for seed", () => {
    const differ: number[] = [];
    for (let seed = 0; seed < 50; seed++) {
      if (!isDeepStrictEqual(fc.sample(binaryUnit, { seed, numRuns: 50 }), fc.sample(theirs, { seed, numRuns: 50 }))) differ.push(seed);
    }
    expect(differ, "seeds that drew other values").toEqual([]);
  });

  it("maps back each code point of its domain, and nothing else", () => {
    const ends = [0, 0x20, 0x7f, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x10ffff];
    for (const cp of ends) expect(binaryUnit.canShrinkWithoutContext(String.fromCodePoint(cp)), cp.toString(16)).toBe(true);
    for (const v of ["", "ab", "\ud800", "\udfff", "\ud83d", "a\u0301", "𝔘x", 7])
      expect(binaryUnit.canShrinkWithoutContext(v), String(v)).toBe(false);
  });

  it("makes strings fast-check can inject its dangerous keys into, and shrink", () => {
    expect(binaryString().canShrinkWithoutContext("__proto__")).toBe(true);
    expect(binaryString({ maxLength: 3 }).canShrinkWithoutContext("__proto__")).toBe(false);
    const r = fc.check(
      fc.property(binaryString(), (s) => s.length < 3),
      { seed: 1 },
    );
    expect(r.counterexample?.[0]).toHaveLength(3);
  });
});

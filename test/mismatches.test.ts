import { describe, expect, it } from "vitest";
import { Mismatches } from "./mismatches.js";

describe("Mismatches: one assertion for a loop's cases", () => {
  it("fails naming the cases that differ, as toBe would judge them", () => {
    const bad = new Mismatches();
    bad.is(1, 1, "same");
    bad.is(0, -0, "zero and minus zero");
    bad.is(Number.NaN, Number.NaN, "NaN");
    bad.is("a", "b", () => "made only on a mismatch");
    expect(() => bad.expectNone()).toThrow(/2 of 4 cases differ/);
    let thrown: unknown;
    try {
      bad.expectNone();
    } catch (err) {
      thrown = err;
    }
    // The diff lists each differing case with both values.
    expect((thrown as { actual: unknown }).actual).toEqual([
      { case: "zero and minus zero", got: 0, want: -0 },
      { case: "made only on a mismatch", got: "a", want: "b" },
    ]);
  });

  it("passes when every case is as wanted, and fails when there was none", () => {
    const good = new Mismatches();
    good.is("x", "x", "x");
    good.expectNone();
    expect(() => new Mismatches().expectNone()).toThrow(/cases checked/);
  });
});

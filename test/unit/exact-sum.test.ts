import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addExact, addFixed, exactValue, exactZero, fixedUnits } from "../../src/ops/exact-sum.js";
import { openDuck } from "../../src/reports/duck.js";
import { fixedSql } from "../../src/reports/index-spend.js";

function sum(xs: readonly number[]): number {
  const s = exactZero();
  for (const x of xs) addExact(s, x);
  return exactValue(s);
}

describe("exact sums of costs", () => {
  it("gives the double nearest the true sum (hand-worked cases)", () => {
    // 0.1 + 0.2 is a tie between two doubles exactly; ties go to the even one, as IEEE addition does.
    expect(sum([0.1, 0.2])).toBe(0.30000000000000004);
    // A value far below the fixed unit survives what floating-point addition would round away.
    expect(sum([1, 1e-30, -1])).toBe(1e-30);
    expect(1 + 1e-30 - 1).toBe(0);
    // Above the fixed bound (2^20) and below its unit (2^-80), in one sum.
    expect(sum([2 ** 30, 2 ** -90, -(2 ** 30)])).toBe(2 ** -90);
    expect(sum([1e308, 1e308, -1e308])).toBe(1e308);
    expect(sum([])).toBe(0);
    expect(sum([5e-324, 5e-324])).toBe(1e-323);
    expect(sum([Number.POSITIVE_INFINITY, 1])).toBe(Number.POSITIVE_INFINITY);
    expect(sum([Number.NaN, 1])).toBeNaN();
    // Ten thousand 0.001s: exactly 10 (the double 0.001 is a hair above a thousandth: 10.000000000000000208…).
    expect(sum(Array.from({ length: 10_000 }, () => 0.001))).toBe(10);
  });

  it("does not depend on the order it adds in", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }), { maxLength: 40 }), (xs) => {
        const reversed = [...xs].reverse();
        const sorted = [...xs].sort((a, b) => a - b);
        expect(sum(reversed)).toBe(sum(xs));
        expect(sum(sorted)).toBe(sum(xs));
      }),
    );
  });

  it("equals floating-point addition where that is exact (small integers and halves)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1e6, max: 1e6 }), { maxLength: 50 }), (ns) => {
        const xs = ns.map((n) => n / 2);
        expect(sum(xs)).toBe(xs.reduce((a, b) => a + b, 0));
      }),
    );
  });

  it("adds fixed units as the values they stand for", () => {
    const s = exactZero();
    addFixed(s, fixedUnits(0.75) as bigint);
    addExact(s, 0.25);
    expect(exactValue(s)).toBe(1);
    expect(fixedUnits(2 ** 20)).toBeUndefined();
    expect(fixedUnits(2 ** -81)).toBeUndefined();
    expect(fixedUnits(2 ** -80)).toBe(1n);
  });

  it("DuckDB's test and cast of a cost to fixed units agree with fixedUnits", async () => {
    const values = [0, 1e-7, 3e-9, 0.1, 2.5e-5, 123.456, -0.75, 2 ** 20, 2 ** 20 - 2 ** -32, 2 ** -80, 2 ** -81, 1e-30, 1e300];
    const duck = await openDuck();
    try {
      const list = values.map((v) => `(${v.toExponential(20)}::DOUBLE)`).join(", ");
      const fixed = fixedSql("v");
      const rows = (
        await duck.conn.runAndReadAll(`SELECT v, CASE WHEN ${fixed.test} THEN ${fixed.units} END FROM (VALUES ${list}) t(v)`)
      ).getRowsJS();
      expect(rows.map((r) => [r[0], r[1] ?? undefined])).toEqual(values.map((v) => [v, fixedUnits(v)]));
    } finally {
      duck.close();
    }
  });
});

import fc from "fast-check";

/**
 * fast-check's "binary" string unit (`fc.string({ unit: "binary" })`): every code point but the surrogates
 * (U+0000..U+D7FF, U+E000..U+10FFFF), index i of a nat drawn the way fast-check draws it naming code point i below
 * the surrogates and i + 0x800 above them. fast-check builds it with mapToConstant, whose unmapper fills a Map of
 * all 1.1M values the first time a string arbitrary is made of it (to know which "dangerous" strings, such as
 * `__proto__`, it can inject): ~1.5 s of CPU in each worker that asks. This one computes the index instead; the
 * values drawn are the same, seed for seed (test/binary-unit.test.ts compares them).
 */
const SURROGATES = 0xe000 - 0xd800;
const LAST = 0x10ffff - SURROGATES;

export const binaryUnit: fc.Arbitrary<string> = fc.nat({ max: LAST }).map(
  (i) => String.fromCodePoint(i < 0xd800 ? i : i + SURROGATES),
  (v) => {
    if (typeof v !== "string") throw new Error("not a string");
    const cp = v.codePointAt(0);
    if (cp === undefined || v.length !== (cp > 0xffff ? 2 : 1) || (cp >= 0xd800 && cp < 0xe000)) throw new Error("not one unit");
    return cp < 0xd800 ? cp : cp - SURROGATES;
  },
);

/** `fc.string({ unit: "binary", ...constraints })`, without the reverse map. */
export function binaryString(constraints: Omit<fc.StringConstraints, "unit"> = {}): fc.Arbitrary<string> {
  return fc.string({ ...constraints, unit: binaryUnit });
}

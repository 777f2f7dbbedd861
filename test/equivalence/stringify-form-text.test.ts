import { describe, expect, it } from "vitest";
import { isStringifyForm } from "../support/stringify-form-text.js";
import { expectSame } from "../support/expect-fast.js";
import {
  expectForm,
  expectNotForm,
  lcg,
  NEAR_JSON_ATOMS,
  nearJson,
  roundTrips,
  stringifyTexts,
  VALID_NOT_FORM,
} from "../support/stringify-form-cases.js";

describe("isStringifyForm (lines written as they are by path --json, context --json)", () => {
  it("says no to every text JSON.stringify would write differently", () => {
    // Besides the valid texts both checks are asked about: texts that are not JSON, and a lone surrogate (whose UTF-8
    // bytes are U+FFFD, so only the text check sees it).
    const no = [...VALID_NOT_FORM, '{"a":01}', '{"a":"\ud83d"}', '{"a":tru}', '{"a":1}x', '{"a":1', ""];
    expectNotForm(isStringifyForm, no);
  });

  it("says yes to JSON.stringify's own text", () => {
    expectForm(isStringifyForm, stringifyTexts());
  });

  it("long strings: the same answers past the first few characters of a run", () => {
    const run = "abcdefghij".repeat(5);
    const no = ["\\u0041", "\\/", "\ud83d", "\ude00", "\ude00\ud83d", "\n", "\u0001", "\\u000a", "\\x"].map(
      (tail) => `{"a":"${run}${tail}${run}"}`,
    );
    expectNotForm(isStringifyForm, no);
    const yes = [`${run}"${run}\\${run}\n${run}😀${run}\u0001`, `${run}\u2028${run}é`, run.repeat(40)];
    for (const v of yes) expect(isStringifyForm(JSON.stringify({ a: v, b: [v] })), v.slice(0, 80)).toBe(true);
  });

  it("decimal fractions: yes exactly where the number prints as written", () => {
    const rand = lcg(11);
    const texts = ["0.000001", "0.0000001", "0.0000015", "0.123456789012345", "0.1234567890123456", "1.7976931348623157", "0.10"];
    for (let t = 0; t < 50_000; t++) {
      const int = rand(4) === 0 ? "0" : String(1 + rand(9)) + "7".repeat(rand(8));
      let frac = "";
      for (let k = 1 + rand(18); k > 0; k--) frac += rand(3) === 0 ? "0" : String(rand(10));
      texts.push(`${rand(4) === 0 ? "-" : ""}${int}.${frac}`);
    }
    for (const x of texts) expectSame(isStringifyForm(x), String(Number(x)) === x, x);
  });

  it("never says yes where the round trip changes the text (generated near-JSON)", () => {
    const rand = lcg(7);
    // Not JSON as well: a leading zero, a cut literal, white space before a value.
    const atoms = [...NEAR_JSON_ATOMS, "01", "tru", " 1"];
    const keys = ['"a"', '"b"', '"1"', '"__proto__"', '""', '"a\\"b"', '"\\u0061"', '"a "'];
    const gen = nearJson(rand, atoms, keys);
    let yes = 0;
    for (let t = 0; t < 20_000; t++) {
      const s = gen();
      if (isStringifyForm(s)) {
        yes++;
        expectSame(roundTrips(s), true, s);
      }
    }
    // The generator must reach both answers for the test to mean anything.
    expect(yes).toBeGreaterThan(1000);
    expect(yes).toBeLessThan(19_000);
  });
});

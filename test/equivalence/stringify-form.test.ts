import { describe, expect, it } from "vitest";
import { isStringifyFormBytes } from "../../src/io/scan/form.js";
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

// isStringifyFormBytes answers for a valid value's UTF-8 what isStringifyForm answers for its text; both only say yes
// where JSON.stringify(JSON.parse(text)) is the text itself.

function parses(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** The answer for `s` inside a longer line (`{"m":` before, `}` after). */
function answer(s: string): boolean {
  const pre = Buffer.from('{"m":');
  const body = Buffer.from(s);
  const line = Buffer.concat([pre, body, Buffer.from("}")]);
  const from = pre.length;
  const to = from + body.length;
  return isStringifyFormBytes(line, from, to);
}

/** The text the bytes of `s` decode to (a lone surrogate becomes U+FFFD, as in a file). */
const decoded = (s: string): string => Buffer.from(s).toString("utf8");

describe("isStringifyFormBytes (message bytes written as they are by context --json, lines by path --json)", () => {
  it("says no to every valid text JSON.stringify would write differently", () => {
    for (const s of VALID_NOT_FORM) expect(parses(s), s).toBe(true);
    expectNotForm(answer, VALID_NOT_FORM);
  });

  it("says yes to JSON.stringify's own text", () => {
    expectForm(answer, stringifyTexts());
  });

  it("long strings: escapes checked past the first few characters, and past a block of 16 bytes", () => {
    const run = "abcdefghij".repeat(5);
    const no = ["\\u0041", "\\/", "\\u000a", "\\u001B", "\\ud83d\\ude00"].map((tail) => `{"a":"${run}\\n${run}${tail}${run}"}`);
    expectNotForm(answer, no);
    const yes = [`${run}"${run}\\${run}\n${run}😀${run}\u0001\u001b`, `${run}\u2028${run}é`, run.repeat(400)];
    for (const v of yes) expect(answer(JSON.stringify({ a: v, b: [v] })), v.slice(0, 80)).toBe(true);
  });

  it("a short value read after a long one in wasm memory: nothing past its end is read", () => {
    const long = Buffer.from(JSON.stringify({ a: "x".repeat(5000), b: [1, 2, 3] }));
    expect(isStringifyFormBytes(long, 0, long.length)).toBe(true);
    for (const s of ['{"a":1}', "[]", "12", '"x"', "{}"]) {
      const b = Buffer.from(s);
      expect(isStringifyFormBytes(b, 0, b.length), s).toBe(true);
    }
    // Cut short (not JSON: never asked in use), with the long line's bytes after the end in memory: no yes.
    for (const s of ['{"a":1}', "[]", "{}", '[{"a":[]}]']) {
      const b = Buffer.from(s);
      expect(isStringifyFormBytes(b, 0, b.length - 1), `${s} cut`).toBe(false);
    }
  });

  it("agrees with isStringifyForm, and never says yes where the round trip changes the text (generated)", () => {
    const rand = lcg(7);
    const atoms = NEAR_JSON_ATOMS;
    const keys = ['"a"', '"b"', '"1"', '"__proto__"', '""', '"a\\"b"', '"\\u0061"', '"a\\n"'];
    const gen = nearJson(rand, atoms, keys);
    let yes = 0;
    for (let t = 0; t < 5_000; t++) {
      const s = gen();
      const text = decoded(s);
      const a = answer(s);
      expectSame(a, isStringifyForm(text), s);
      if (a) {
        yes++;
        expectSame(roundTrips(text), true, s);
      }
    }
    // The generator must reach both answers for the test to mean anything.
    expect(yes).toBeGreaterThan(250);
    expect(yes).toBeLessThan(4_750);
  });
});

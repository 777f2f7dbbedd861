import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isStringifyForm } from "../support/stringify-form-text.js";
import { corpus } from "../support/helpers.js";
import { expectSame } from "../support/expect-fast.js";

/** What the check promises: true only where the text is JSON.stringify's own text of its JSON.parse value. */
function roundTrips(s: string): boolean {
  try {
    return JSON.stringify(JSON.parse(s)) === s;
  } catch {
    return false;
  }
}

describe("isStringifyForm (lines written as they are by path --json, context --json)", () => {
  it("says no to every text JSON.stringify would write differently", () => {
    const no = [
      '{"a":1,"a":2}',
      '{"b":1,"1":2}',
      '{"a": 1}',
      " {}",
      "{}\r",
      '{"a":1.0}',
      '{"a":1e21}',
      '{"a":1E5}',
      '{"a":-0}',
      '{"a":01}',
      '{"a":"\\/"}',
      '{"a":"\\u0041"}',
      '{"a":"\\u000a"}',
      '{"a":"\\u001F"}',
      '{"a":"\\ud83d\\ude00"}',
      '{"a":"\ud83d"}',
      '{"a\\u0062":1,"ab":2}',
      '{"a":tru}',
      '{"a":1}x',
      '{"a":1',
      "",
      '{"a":1e400}',
    ];
    for (const s of no) {
      expect(roundTrips(s), s).toBe(false);
      expect(isStringifyForm(s), s).toBe(false);
    }
  });

  it("says yes to JSON.stringify's own text", () => {
    const values: unknown[] = [
      { a: 'x"\\\n\t\u0001\u001f\u007f\u2028/é😀', b: [1, -1.5e-7, 0.1, 1e21, 123456789012345680, true, false, null, {}, []] },
      { __proto__x: 1, "": 2, "-1": 3, "a b": { c: [[{}]] } },
      "s",
      0,
      [],
    ];
    for (const line of readFileSync(corpus("gen-v3-long.jsonl"), "utf8").split("\n")) if (line) values.push(JSON.parse(line));
    for (const v of values) {
      const text = JSON.stringify(v);
      if (!isStringifyForm(text)) expect.fail(`no for JSON.stringify's own text: ${text.slice(0, 80)}`);
    }
  });

  it("long strings: the same answers past the first few characters of a run", () => {
    const run = "abcdefghij".repeat(5);
    const no = ["\\u0041", "\\/", "\ud83d", "\ude00", "\ude00\ud83d", "\n", "\u0001", "\\u000a", "\\x"].map(
      (tail) => `{"a":"${run}${tail}${run}"}`,
    );
    for (const s of no) {
      expect(roundTrips(s), s).toBe(false);
      expect(isStringifyForm(s), s).toBe(false);
    }
    const yes = [`${run}"${run}\\${run}\n${run}😀${run}\u0001`, `${run}\u2028${run}é`, run.repeat(40)];
    for (const v of yes) expect(isStringifyForm(JSON.stringify({ a: v, b: [v] })), v.slice(0, 80)).toBe(true);
  });

  it("decimal fractions: yes exactly where the number prints as written", () => {
    let seed = 11;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
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
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const atoms = [
      '"a"',
      '"\\u0001"',
      '"\\u000a"',
      '"\\n"',
      '"\\/"',
      '"\\ud83d"',
      '"😀"',
      '"\ud83d"',
      "0",
      "-0",
      "01",
      "1.0",
      "1.5",
      "1e5",
      "1e+21",
      "0.1",
      "1234567890123456",
      "true",
      "null",
      "tru",
      " 1",
      '"\\\\"',
    ];
    const keys = ['"a"', '"b"', '"1"', '"__proto__"', '""', '"a\\"b"', '"\\u0061"', '"a "'];
    const gen = (d: number): string => {
      const k = rand(d > 4 ? 3 : 6);
      if (k < 3) return atoms[rand(atoms.length)] as string;
      const items: string[] = [];
      for (let i = rand(4); i > 0; i--)
        items.push(k === 3 ? gen(d + 1) : `${keys[rand(keys.length)]}${rand(20) ? ":" : " :"}${gen(d + 1)}`);
      return k === 3 ? `[${items.join(rand(20) ? "," : ", ")}]` : `{${items.join(",")}}`;
    };
    let yes = 0;
    for (let t = 0; t < 20_000; t++) {
      const s = gen(0);
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

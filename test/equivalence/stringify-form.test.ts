import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isStringifyFormBytes } from "../../src/io/scan/form.js";
import { isStringifyForm } from "../support/stringify-form-text.js";
import { corpus } from "../support/helpers.js";
import { expectSame } from "../support/expect-fast.js";

// isStringifyFormBytes answers for a valid value's UTF-8 what isStringifyForm answers for its text; both only say yes
// where JSON.stringify(JSON.parse(text)) is the text itself.

function roundTrips(s: string): boolean {
  try {
    return JSON.stringify(JSON.parse(s)) === s;
  } catch {
    return false;
  }
}

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
    const no = [
      '{"a":1,"a":2}',
      '{"b":1,"1":2}',
      '{"a": 1}',
      '{"a":1.0}',
      '{"a":1e21}',
      '{"a":1E5}',
      '{"a":-0}',
      '{"a":"\\/"}',
      '{"a":"\\u0041"}',
      '{"a":"\\u000a"}',
      '{"a":"\\u0008"}',
      '{"a":"\\u001F"}',
      '{"a":"\\ud83d\\ude00"}',
      '{"a\\u0062":1,"ab":2}',
      '{"a":1e400}',
      "[1 ,2]",
      '{"a":[1,2] }',
    ];
    for (const s of no) {
      expect(parses(s), s).toBe(true);
      expect(roundTrips(s), s).toBe(false);
      expect(answer(s), s).toBe(false);
    }
  });

  it("says yes to JSON.stringify's own text", () => {
    const values: unknown[] = [
      { a: 'x"\\\n\t\u0001\u001f\u007f\u2028/é😀', b: [1, -1.5e-7, 0.1, 1e21, 123456789012345680, true, false, null, {}, []] },
      { __proto__x: 1, "": 2, "-1": 3, "a b": { c: [[{}]] } },
      "s",
      0,
      [],
      {},
    ];
    for (const line of readFileSync(corpus("gen-v3-long.jsonl"), "utf8").split("\n")) if (line) values.push(JSON.parse(line));
    for (const v of values) {
      const text = JSON.stringify(v);
      if (!answer(text)) expect.fail(`no for JSON.stringify's own text: ${text.slice(0, 80)}`);
    }
  });

  it("long strings: escapes checked past the first few characters, and past a block of 16 bytes", () => {
    const run = "abcdefghij".repeat(5);
    const no = ["\\u0041", "\\/", "\\u000a", "\\u001B", "\\ud83d\\ude00"].map((tail) => `{"a":"${run}\\n${run}${tail}${run}"}`);
    for (const s of no) {
      expect(roundTrips(s), s).toBe(false);
      expect(answer(s), s).toBe(false);
    }
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
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const long = "0123456789abcdef".repeat(3);
    const atoms = [
      '"a"',
      '"\\u0001"',
      '"\\u001f"',
      '"\\u000a"',
      '"\\n"',
      '"\\/"',
      '"\\ud83d"',
      '"😀"',
      '"\ud83d"',
      `"${long}\\n${long}"`,
      `"${long}\\u0000${long}"`,
      `"${long}\\u0041${long}"`,
      "0",
      "-0",
      "1.0",
      "1.5",
      "-0.000001",
      "1e5",
      "1e+21",
      "0.1",
      "1234567890123456",
      "true",
      "false",
      "null",
      '"\\\\"',
    ];
    const keys = ['"a"', '"b"', '"1"', '"__proto__"', '""', '"a\\"b"', '"\\u0061"', '"a\\n"'];
    const gen = (d: number): string => {
      const k = rand(d > 4 ? 3 : 6);
      if (k < 3) return atoms[rand(atoms.length)] as string;
      const items: string[] = [];
      for (let i = rand(4); i > 0; i--)
        items.push(k === 3 ? gen(d + 1) : `${keys[rand(keys.length)]}${rand(20) ? ":" : " :"}${gen(d + 1)}`);
      return k === 3 ? `[${items.join(rand(20) ? "," : ", ")}]` : `{${items.join(",")}}`;
    };
    let yes = 0;
    for (let t = 0; t < 5_000; t++) {
      const s = gen(0);
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

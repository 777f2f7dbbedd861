import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { corpus } from "./helpers.js";

/**
 * The cases both stringify-form tests hold their check to: the text reference (isStringifyForm,
 * stringify-form-text.test.ts) and the byte check that ships (isStringifyFormBytes, stringify-form.test.ts). One list,
 * so that a case added for one check is asked of the other too. The expected answers are JSON's own
 * (`roundTrips`), never either check's.
 */

/** What both checks promise: true only where the text is JSON.stringify's own text of its JSON.parse value. */
export function roundTrips(s: string): boolean {
  try {
    return JSON.stringify(JSON.parse(s)) === s;
  } catch {
    return false;
  }
}

/** Fails unless `check` and JSON's round trip both say no to every text of `texts`. */
export function expectNotForm(check: (s: string) => boolean, texts: readonly string[]): void {
  for (const s of texts) {
    expect(roundTrips(s), s).toBe(false);
    expect(check(s), s).toBe(false);
  }
}

/** Fails on the first of `texts` (JSON.stringify's own texts) to which `check` says no. */
export function expectForm(check: (s: string) => boolean, texts: readonly string[]): void {
  for (const text of texts) if (!check(text)) expect.fail(`no for JSON.stringify's own text: ${text.slice(0, 80)}`);
}

/** Valid JSON texts that JSON.stringify writes differently (repeated or digit keys, white space, escapes, numbers). */
export const VALID_NOT_FORM: readonly string[] = [
  '{"a":1,"a":2}',
  '{"b":1,"1":2}',
  '{"a": 1}',
  " {}",
  "{}\r",
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

/** JSON.stringify's own texts: some hand-picked values and every line of a generated corpus file. */
export function stringifyTexts(): string[] {
  const values: unknown[] = [
    { a: 'x"\\\n\t\u0001\u001f\u007f\u2028/é😀', b: [1, -1.5e-7, 0.1, 1e21, 123456789012345680, true, false, null, {}, []] },
    { __proto__x: 1, "": 2, "-1": 3, "a b": { c: [[{}]] } },
    "s",
    0,
    [],
    {},
  ];
  for (const line of readFileSync(corpus("gen-v3-long.jsonl"), "utf8").split("\n")) if (line) values.push(JSON.parse(line));
  return values.map((v) => JSON.stringify(v));
}

/** A seeded linear congruential generator: `rand(n)` is in 0..n-1, the same sequence for the same seed. */
export function lcg(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
}

/** 48 characters: a string holding it spans whole 16-byte blocks of the byte check. */
const long = "0123456789abcdef".repeat(3);

/**
 * Valid JSON values for nearJson to build from: strings with escapes JSON.stringify does and does not write, long
 * ones past a 16-byte block, numbers it prints and does not print as written.
 */
export const NEAR_JSON_ATOMS: readonly string[] = [
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

/**
 * A generator of near-JSON texts built from `atoms` and object `keys`: nested arrays and objects, now and then with a
 * space before a colon or after a comma, so that some texts are JSON.stringify's form and some are not.
 */
export function nearJson(rand: (n: number) => number, atoms: readonly string[], keys: readonly string[]): () => string {
  const gen = (d: number): string => {
    const k = rand(d > 4 ? 3 : 6);
    if (k < 3) return atoms[rand(atoms.length)] as string;
    const items: string[] = [];
    for (let i = rand(4); i > 0; i--) items.push(k === 3 ? gen(d + 1) : `${keys[rand(keys.length)]}${rand(20) ? ":" : " :"}${gen(d + 1)}`);
    return k === 3 ? `[${items.join(rand(20) ? "," : ", ")}]` : `{${items.join(",")}}`;
  };
  return () => gen(0);
}

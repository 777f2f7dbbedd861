import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FORM, NOT_FORM, PLAIN_FORM, stringifyFormBytes } from "../../src/io/scan/form.js";
import { runCli } from "../support/helpers.js";
import { lcg } from "../support/stringify-form-cases.js";
import { tempDirs } from "../support/temp-dirs.js";

// context --json writes a message's bytes as they are (no decoding, no output filter) only where scan.wat's `plain`
// says the filter would leave their text as it is. The reference: the bytes decode as UTF-8 without a fault, and
// their text holds none of the characters TerminalFilter's "json" form escapes and no escape of a surrogate.

const FILTERED = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function plainByReference(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  if (FILTERED.test(text)) return false;
  for (const m of text.matchAll(/\\(?:u([0-9a-fA-F]{4})|[\s\S])/g)) if (m[1] !== undefined && /^[dD][89a-fA-F]/.test(m[1])) return false;
  return true;
}

/** The verdict for `bytes` (one JSON value) inside a longer line. */
function verdict(bytes: Uint8Array): number {
  const pre = Buffer.from('{"message":');
  const line = Buffer.concat([pre, bytes, Buffer.from("}")]);
  return stringifyFormBytes(line, pre.length, pre.length + bytes.length);
}

/** Characters around every boundary the check looks at: each filtered one, its neighbours, and the encodings' edges. */
const EDGES = [
  0x7e, 0x7f, 0x80, 0x9f, 0xa0, 0xff, 0x61b, 0x61c, 0x61d, 0x200d, 0x200e, 0x200f, 0x2010, 0x2028, 0x2029, 0x2029, 0x202a, 0x202e, 0x202f,
  0x2065, 0x2066, 0x2069, 0x206a, 0x7ff, 0x800, 0xfff, 0x1000, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x3ffff, 0x40000, 0xfffff, 0x100000,
  0x10ffff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0x5c, 0x22, 0x0a, 0x01, 0x41, 0xe9,
];

function randomText(rand: (n: number) => number): string {
  let s = "";
  const n = rand(40);
  for (let i = 0; i < n; i++) {
    const pick = rand(4);
    if (pick === 0) s += String.fromCodePoint(EDGES[rand(EDGES.length)] as number);
    else if (pick === 1) s += String.fromCharCode(rand(0x80));
    else if (pick === 2) s += "abcdefghijklmnop".slice(rand(16));
    else s += String.fromCodePoint(rand(0x110000) & ~(rand(2) === 0 ? 0 : 0x800));
  }
  return s;
}

describe("plain bytes (context --json writes them as they are)", () => {
  it("JSON.stringify's text of random strings: plain exactly where the reference says so", () => {
    const rand = lcg(11);
    let plain = 0;
    for (let t = 0; t < 20_000; t++) {
      const value = rand(3) === 0 ? { role: "user", content: [{ type: "text", text: randomText(rand) }] } : randomText(rand);
      const bytes = Buffer.from(JSON.stringify(value));
      const v = verdict(bytes);
      // JSON.stringify's text is in its form, but where it escapes a lone surrogate (the form check is wary of it).
      const lone = /\\u[dD][89a-fA-F]/.test(bytes.toString("latin1"));
      expect(v, JSON.stringify(value)).toBe(lone ? NOT_FORM : plainByReference(bytes) ? PLAIN_FORM : FORM);
      if (v === PLAIN_FORM) plain++;
    }
    // Both kinds were asked about.
    expect(plain).toBeGreaterThan(2_000);
    expect(plain).toBeLessThan(18_000);
  });

  it("each filtered character and each surrogate escape, at every place in and around a block of 16 bytes", () => {
    const cases = ["\u007f", "\u0080", "\u009f", "\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\ud800", "\udfff"];
    for (const c of cases)
      for (let at = 0; at < 40; at++) {
        const bytes = Buffer.from(JSON.stringify("x".repeat(at) + c + "y".repeat(40 - at)));
        expect(verdict(bytes), `${c.codePointAt(0)?.toString(16)} at ${at}`).toBe(c.length === 1 && c >= "\ud800" ? NOT_FORM : FORM);
      }
    for (const c of ["\u00a0", "\u061b", "\u2028", "\u2029", "\u2010", "\u206a", "\ud83d\ude00", "é"])
      expect(verdict(Buffer.from(JSON.stringify(`abc${c}def`))), c).toBe(PLAIN_FORM);
    // Escapes that are no surrogate's, and a backslash escaped before a "u".
    for (const s of ['"\\u001b"', '"\\u0000x"', '"\\\\ud800"', '"a\\n\\"b"', '"\\\\\\u001f"'])
      expect(verdict(Buffer.from(s)), s).toBe(PLAIN_FORM);
  });

  it("bytes that are not UTF-8 are never plain: stray continuation bytes, overlong forms, surrogates, past U+10FFFF, cut", () => {
    const bad = [
      [0x80],
      [0xbf],
      [0xc0, 0xaf],
      [0xc1, 0xbf],
      [0xc3],
      [0xc3, 0x41],
      [0xe0, 0x80, 0x80],
      [0xe0, 0x9f, 0xbf],
      [0xed, 0xa0, 0x80],
      [0xed, 0xbf, 0xbf],
      [0xe2, 0x82],
      [0xe2, 0x82, 0x41],
      [0xf0, 0x80, 0x80, 0x80],
      [0xf0, 0x8f, 0xbf, 0xbf],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5, 0x80, 0x80, 0x80],
      [0xf0, 0x9f, 0x98],
      [0xff],
    ];
    for (const seq of bad)
      for (const pad of [0, 3, 15, 20]) {
        const bytes = Buffer.concat([Buffer.from(`"${"a".repeat(pad)}`), Buffer.from(seq), Buffer.from('b"')]);
        expect(plainByReference(bytes), seq.join(" ")).toBe(false);
        expect(verdict(bytes), `${seq.map((b) => b.toString(16)).join(" ")} after ${pad}`).not.toBe(PLAIN_FORM);
      }
    // The largest and smallest of each length are.
    for (const seq of [
      [0xc2, 0xa0],
      [0xdf, 0xbf],
      [0xe0, 0xa0, 0x80],
      [0xef, 0xbf, 0xbf],
      [0xf0, 0x90, 0x80, 0x80],
      [0xf4, 0x8f, 0xbf, 0xbf],
    ]) {
      const bytes = Buffer.concat([Buffer.from('"a'), Buffer.from(seq), Buffer.from('b"')]);
      expect(verdict(bytes), seq.join(" ")).toBe(PLAIN_FORM);
    }
  });
});

describe("context --json with plain bytes = the same context read from stdin (every message parsed and written anew)", () => {
  const temp = tempDirs("pisess-plain-");

  function session(): string {
    const header = {
      type: "session",
      version: 3,
      id: "0194a000-0000-7000-8000-000000000001",
      timestamp: "2026-12-01T00:00:00.000Z",
      cwd: "/w",
    };
    const texts = [
      "plain text, é, 😀, \u2028",
      "a C1 control \u0085 and DEL \u007f",
      "bidi \u202e and marks \u200e \u061c \u2066",
      "a lone surrogate \ud800 and its half \udc00",
      "x".repeat(70_000),
      `${"é".repeat(40_000)}\u0085`,
      'escapes: \\ " \n \t \u0001',
    ];
    const lines = [JSON.stringify(header)];
    let parent: string | null = null;
    texts.forEach((text, i) => {
      const id = `e${i}`;
      const role = i % 2 === 0 ? "user" : "assistant";
      const message =
        role === "user"
          ? { role, content: [{ type: "text", text }], timestamp: 1 }
          : { role, content: [{ type: "text", text }], provider: "p", model: "m", stopReason: "stop", timestamp: 1 };
      lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-12-01T00:00:01.000Z", message }));
      parent = id;
    });
    // A line whose text is not UTF-8 (a byte 0xff in a string): decoded as U+FFFD either way.
    const bad = Buffer.from(
      `${JSON.stringify({ type: "message", id: "bad", parentId: parent, timestamp: "2026-12-01T00:00:02.000Z", message: { role: "user", content: [{ type: "text", text: "AB" }], timestamp: 2 } })}\n`,
    );
    const at = bad.indexOf("AB");
    bad[at] = 0xff;
    const file = join(temp(), "s.jsonl");
    writeFileSync(file, Buffer.concat([Buffer.from(`${lines.join("\n")}\n`), bad]));
    return file;
  }

  for (const form of ["--json", "--ndjson"]) {
    it(`${form}: the same bytes`, async () => {
      const file = session();
      const direct = await runCli(["context", file, form]);
      const piped = await runCli(["context", "-", form], { input: readFileSync(file) });
      expect(direct.code).toBe(piped.code);
      const name = JSON.stringify(file);
      expect(direct.stdout.includes("\\u0085")).toBe(true);
      expect(direct.stdout.replace(name, '"-"')).toBe(piped.stdout);
    });
  }
});

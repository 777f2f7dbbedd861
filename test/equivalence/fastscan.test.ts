import { readdirSync } from "node:fs";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contentText } from "../../src/model/extract.js";
import { CONDENSE_MIN_LINE, CUT_MIN_BYTES, condenseLine as condense, protectedKeys } from "../../src/io/scan/condense.js";
import { FULL_KEYS } from "../../src/model/fields.js";
import { loadSession } from "../../src/model/load.js";

const KEYS = protectedKeys(FULL_KEYS);
const condenseLine = (b: Uint8Array) => condense(b, KEYS);
import type { Session } from "../../src/model/session.js";
import { ROOT } from "../support/helpers.js";
import { binaryString } from "../support/binary-unit.js";

/**
 * What the fast path promises: JSON.parse(condensed) succeeds exactly when JSON.parse(line) does, and gives the same
 * value except that long strings (not keys, not under FULL_KEYS) are a prefix of at least 256 code units that is
 * not all white space.
 */
function sameUpToCuts(full: unknown, cut: unknown, protectedHere = false): boolean {
  if (typeof full === "string" && typeof cut === "string") {
    if (full === cut) return true;
    if (protectedHere) return false;
    return cut.length >= 256 && full.startsWith(cut) && cut.trim() !== "";
  }
  if (Array.isArray(full) && Array.isArray(cut)) {
    return full.length === cut.length && full.every((v, i) => sameUpToCuts(v, cut[i], protectedHere));
  }
  if (full !== null && cut !== null && typeof full === "object" && typeof cut === "object") {
    const a = Object.keys(full);
    const b = Object.keys(cut);
    if (!isDeepStrictEqual(a, b)) return false;
    return a.every((k) =>
      sameUpToCuts((full as Record<string, unknown>)[k], (cut as Record<string, unknown>)[k], protectedHere || FULL_KEYS.has(k)),
    );
  }
  return Object.is(full, cut);
}

function check(input: string): void {
  // The loader only condenses valid UTF-8; the reference is the line as decoded from its bytes (lone surrogates in
  // the JS string become U+FFFD on the way to bytes).
  const bytes = Buffer.from(input, "utf8");
  const line = bytes.toString("utf8");
  let full: unknown;
  let fullOk = true;
  try {
    full = JSON.parse(line);
  } catch {
    fullOk = false;
  }
  const c = condenseLine(bytes);
  if (c === null) return; // the loader then parses the whole line: nothing to compare
  condensed++;
  let cut: unknown;
  let cutOk = true;
  try {
    cut = JSON.parse(c);
  } catch {
    cutOk = false;
  }
  // expect() only on a difference, for its message.
  if (cutOk !== fullOk) expect(cutOk, `validity differs for ${JSON.stringify(line.slice(0, 200))}`).toBe(fullOk);
  if (fullOk && !sameUpToCuts(full, cut)) expect(false, `values differ for ${JSON.stringify(line.slice(0, 200))}`).toBe(true);
}

let condensed = 0;
const long = (n: number, unit = "x") => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const BIG = CUT_MIN_BYTES * 2;

describe("condenseLine", () => {
  it("cuts long strings and keeps keys, protected values and structure", () => {
    const line = JSON.stringify({
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: "2025-01-01T00:00:00.000Z",
      message: {
        role: "toolResult",
        toolCallId: long(BIG, "t"),
        content: [{ type: "text", text: long(BIG, "out\n") }],
        details: { x: [long(BIG)] },
      },
    });
    const c = condenseLine(Buffer.from(line));
    expect(c).not.toBeNull();
    expect((c as string).length).toBeLessThan(line.length - 4000);
    const v = JSON.parse(c as string);
    expect(v.message.toolCallId).toBe(long(BIG, "t"));
    expect(v.message.content[0].text.length).toBeGreaterThanOrEqual(256);
    check(line);
  });

  it("returns null when nothing is long, or the line is malformed where it would cut", () => {
    expect(condenseLine(Buffer.from('{"a":"short"}'))).toBeNull();
    // a raw control character in the part that would be dropped
    const bad = `{"a":"${long(BIG)}\u0001${long(100)}"}`;
    expect(condenseLine(Buffer.from(bad))).toBeNull();
    // an invalid escape there
    expect(condenseLine(Buffer.from(`{"a":"${long(BIG)}\\x${long(100)}"}`))).toBeNull();
    expect(condenseLine(Buffer.from(`{"a":"${long(BIG)}\\u12G4${long(100)}"}`))).toBeNull();
    // truncated inside a long string
    expect(condenseLine(Buffer.from(`{"a":"${long(BIG)}`))).toBeNull();
  });

  it("never cuts a string that is all white space in its kept prefix", () => {
    const line = JSON.stringify({
      type: "message",
      message: { role: "assistant", content: [{ type: "text", text: `${" ".repeat(BIG)}x` }] },
    });
    const c = condenseLine(Buffer.from(line));
    const v = JSON.parse(c ?? line);
    expect(v.message.content[0].text.trim()).toBe("x");
    check(line);
  });

  it("resolves duplicate keys as JSON.parse does (the last wins)", () => {
    check(`{"type":"message","id":"a","id":"${long(BIG)}","message":{"role":"user","content":"${long(BIG)}","content":"x"}}`);
    check(`{"text":"${long(BIG)}","text":"${long(BIG, "y")}"}`);
    check(`{"id":{"deep":["${long(BIG)}"]},"message":{"type":"${long(BIG)}"}}`);
    check(`{"\\u0069d":"${long(BIG)}","a":{"id":"${long(BIG)}","b":"${long(BIG)}"}}`);
  });

  it("agrees with JSON.parse on random and adversarial lines", () => {
    const pieceArb = fc.oneof(
      fc.constantFrom(
        '"',
        "\\",
        '\\"',
        "\\\\",
        "\\n",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\ud83d",
        "\\u12",
        "\\x",
        "\u0001",
        "\t",
        "\n",
        "é",
        "日本",
        "🚀",
        "\u2028",
        " ",
        ":",
        ",",
        "{",
        "}",
        "[",
        "]",
        "type",
        "id",
        "text",
      ),
      fc.string({ maxLength: 8 }),
    );
    const strArb = fc.array(pieceArb, { maxLength: 12 }).map((ps) => ps.join(""));
    const bigStr = fc
      .tuple(
        fc.integer({ min: CUT_MIN_BYTES - 8, max: CUT_MIN_BYTES * 3 }),
        fc.constantFrom("a", "\\n", "é", "日", "🚀", "\\u00e9", " ", "\\\\", '\\"', "x\\t"),
        fc.oneof(fc.constant(""), fc.constant("end"), strArb),
      )
      .map(([n, unit, tail]) => long(n, unit) + tail);
    const keyArb = fc.oneof(fc.constantFrom(...FULL_KEYS, "message", "content", "text", "details", "summary"), fc.string({ maxLength: 6 }));
    const valueArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom(null, true, false, 0, -1.5e3, 42),
        fc.string({ maxLength: 20 }),
        binaryString({ maxLength: 20 }),
        bigStr.map((s) => ({ __raw: `"${s}"` })),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.array(fc.tuple(keyArb, tie("value")), { maxLength: 5 }).map((kv) => ({ __obj: kv })),
      ),
    })).value;
    // Serialise by hand so raw (possibly invalid) strings and duplicate keys reach the line.
    const ser = (v: unknown): string => {
      if (v !== null && typeof v === "object" && "__raw" in (v as object)) return (v as { __raw: string }).__raw;
      if (v !== null && typeof v === "object" && "__obj" in (v as object)) {
        return `{${(v as { __obj: [string, unknown][] }).__obj.map(([k, x]) => `${JSON.stringify(k)}:${ser(x)}`).join(",")}}`;
      }
      if (Array.isArray(v)) return `[${v.map(ser).join(",")}]`;
      return JSON.stringify(v);
    };
    // Every line holds at least one long string, at the top or nested, so the fast path has work to do.
    const withLong = fc
      .tuple(fc.array(fc.tuple(keyArb, valueArb), { maxLength: 6 }), keyArb, bigStr, fc.nat(), fc.constantFrom("top", "array", "object"))
      .map(([kv, k, big, at, where]) => {
        const raw = { __raw: `"${big}"` };
        const v = where === "top" ? raw : where === "array" ? [1, raw] : { __obj: [[k, raw]] };
        const out = [...kv];
        out.splice(at % (out.length + 1), 0, [k, v]);
        return out as [string, unknown][];
      });
    const lineArb = fc
      .tuple(withLong, fc.nat(), fc.constantFrom("none", "none", "none", "truncate", "splice", "ws"))
      .map(([kv, cutAt, mut]) => {
        let s = ser({ __obj: kv });
        if (mut === "truncate") s = s.slice(0, cutAt % (s.length + 1));
        else if (mut === "splice") {
          const at = cutAt % (s.length + 1);
          s = s.slice(0, at) + ["\u0000", '"', "}", ",", "\\", "]"][cutAt % 6] + s.slice(at);
        } else if (mut === "ws") s = ` \t${s}\r `;
        return s;
      });
    const before = condensed;
    fc.assert(
      fc.property(lineArb, (line) => check(line)),
      { numRuns: 2500 },
    );
    // the fast path really ran on a good share of them
    expect(condensed - before).toBeGreaterThan(50);
  });
});

async function both(file: string): Promise<[Session<"full">, Session<"full">]> {
  const a = await loadSession({ kind: "file", path: file });
  const b = await loadSession({ kind: "file", path: file }, { fastScan: false });
  a.store.close();
  b.store.close();
  return [a, b];
}

function strip(s: Session): unknown {
  return { ...s, store: null };
}

describe("loader fast path", () => {
  it("gives the same session as the whole-line parse on every corpus fixture", async () => {
    const dir = join(ROOT, "fixtures", "corpus");
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
      const [a, b] = await both(join(dir, name));
      expect(isDeepStrictEqual(strip(a), strip(b)), name).toBe(true);
    }
  });

  it("gives the same session on generated files with long, tricky lines", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "pisess-fastscan-"));
    try {
      const file = join(tmp, "s.jsonl");
      const lines = fc.sample(
        fc.record({
          text: fc
            .tuple(fc.integer({ min: 0, max: 9000 }), fc.constantFrom("a", "\n", " ", "é", "🚀", "\u2028", '"', "\\", "\ud83d", "\t"))
            .map(([n, u]) => `${long(n, u)}end`),
          role: fc.constantFrom("user", "assistant", "toolResult", "bashExecution", "custom"),
          kind: fc.constantFrom("message", "compaction", "branch_summary", "custom_message", "label", "session_info"),
          bad: fc.constantFrom(0, 0, 0, 0, 1, 2, 3),
        }),
        { numRuns: 300, seed: 42 },
      );
      const out = ['{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'];
      lines.forEach((l, i) => {
        const id = `e${i}`;
        const parentId = i === 0 ? null : `e${i - 1}`;
        const ts = new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
        const o: Record<string, unknown> = { type: l.kind, id, parentId, timestamp: ts };
        if (l.kind === "message") {
          o.message =
            l.role === "assistant"
              ? {
                  role: l.role,
                  content: [
                    { type: "thinking", thinking: l.text },
                    { type: "text", text: l.text },
                    { type: "toolCall", id: `c${i}`, name: "bash", arguments: { command: l.text } },
                  ],
                  provider: "p",
                  model: "m",
                  usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { total: 0.1 } },
                  stopReason: "toolUse",
                  errorMessage: l.text,
                }
              : l.role === "bashExecution"
                ? { role: l.role, command: l.text, output: l.text }
                : {
                    role: l.role,
                    content: l.role === "user" ? l.text : [{ type: "text", text: l.text }],
                    toolCallId: `c${i}`,
                    toolName: "bash",
                    customType: "x",
                  };
        } else if (l.kind === "label") Object.assign(o, { targetId: "e0", label: l.text });
        else if (l.kind === "session_info") Object.assign(o, { name: l.text });
        else
          Object.assign(o, { summary: l.text, content: l.text, fromId: "root", firstKeptEntryId: "e0", tokensBefore: 5, customType: "c" });
        let s = JSON.stringify(o);
        if (l.bad === 1) s = s.slice(0, s.length - 7); // truncated
        if (l.bad === 2) s = s.replace('end"', 'e\u0001nd"'); // raw control character
        if (l.bad === 3) s = s.replace('"end', '"\\qend'); // bad escape
        out.push(s);
      });
      writeFileSync(file, `${out.join("\n")}\n`);
      const [a, b] = await both(file);
      expect(a.entries.length).toBeGreaterThan(200);
      expect(isDeepStrictEqual(strip(a), strip(b))).toBe(true);
      // previews are still cut from the start of the text
      const rec = a.entries.find((e) => e.type === "message" && e.role === "user" && (e.text?.length ?? 0) === 240);
      if (rec) expect(rec.text?.length).toBe(240);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("is only used for lines that are long enough", () => {
    expect(CONDENSE_MIN_LINE).toBeGreaterThan(CUT_MIN_BYTES);
    expect(
      contentText([
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ]),
    ).toBe("ab");
  });
});

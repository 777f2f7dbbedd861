import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineSplitter, type RawLine } from "../../src/io/scan/lines.js";

function split(chunks: Buffer[]): { lines: RawLine[]; facts: ReturnType<LineSplitter["end"]> } {
  const lines: RawLine[] = [];
  const s = new LineSplitter((l) => lines.push(l));
  for (const c of chunks) s.push(c);
  return { lines, facts: s.end() };
}

/** Cuts a buffer at the given positions. */
function cut(buf: Buffer, points: number[]): Buffer[] {
  const sorted = [...new Set(points.map((p) => Math.min(buf.length, Math.max(0, p))))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of sorted) {
    out.push(buf.subarray(prev, p));
    prev = p;
  }
  out.push(buf.subarray(prev));
  return out;
}

describe("LineSplitter", () => {
  it("splits on \\n only: U+2028 and U+2029 stay inside a line", () => {
    const text = '{"a":"x\u2028y\u2029z"}\n{"b":1}\n';
    const { lines } = split([Buffer.from(text)]);
    expect(lines.map((l) => l.text)).toEqual(['{"a":"x\u2028y\u2029z"}', '{"b":1}']);
  });

  it("strips a BOM and CRLF, and reports them", () => {
    const { lines, facts } = split([Buffer.from('\ufeff{"a":1}\r\n{"b":2}\r\n')]);
    expect(lines.map((l) => l.text)).toEqual(['{"a":1}', '{"b":2}']);
    expect(lines.map((l) => l.crlf)).toEqual([true, true]);
    expect(facts.bom).toBe(true);
    expect(lines[0]?.offset).toBe(3);
    expect(lines[1]?.offset).toBe(3 + 9);
  });

  it("keeps a final line without newline, marked unterminated", () => {
    const { lines, facts } = split([Buffer.from('{"a":1}\n{"b":')]);
    expect(lines.map((l) => [l.text, l.unterminated])).toEqual([
      ['{"a":1}', false],
      ['{"b":', true],
    ]);
    expect(facts.finalNewline).toBe(false);
    expect(facts.lines).toBe(2);
  });

  it("counts blank lines and an empty input", () => {
    expect(split([Buffer.from("\n\n")]).lines.map((l) => l.text)).toEqual(["", ""]);
    const empty = split([]);
    expect(empty.lines).toEqual([]);
    expect(empty.facts.lines).toBe(0);
  });

  it("flags invalid UTF-8 and decodes it to U+FFFD", () => {
    const { lines } = split([Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')])]);
    expect(lines[0]?.invalidUtf8).toBe(true);
    expect(lines[0]?.text).toBe('{"a":"\ufffd\ufffd"}');
  });

  it("handles a 20 MB line split over many chunks", () => {
    const big = "é".repeat(10 * 1024 * 1024); // 20 MB of UTF-8
    const buf = Buffer.from(`{"t":"${big}"}\n{"n":2}\n`);
    const chunks = cut(
      buf,
      Array.from({ length: 40 }, (_, i) => i * 524_287 + 1),
    );
    const { lines } = split(chunks);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.length).toBe(Buffer.byteLength(`{"t":"${big}"}`));
    expect(lines[0]?.text.length).toBe(big.length + 8);
    expect(lines[1]?.text).toBe('{"n":2}');
    expect(lines[1]?.offset).toBe((lines[0]?.length ?? 0) + 1);
  });

  it("gives the same lines, offsets and text however the input is chunked (property)", () => {
    const piece = fc.constantFrom("a", "é", "日", "🚀", "\u2028", "\r", "\n", "\r\n", '"', "\\", " ");
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(piece, { maxLength: 60 }),
        fc.array(fc.nat({ max: 200 }), { maxLength: 8 }),
        (bom, pieces, points) => {
          const body = Buffer.from(pieces.join(""));
          const buf = bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
          const whole = split([buf]);
          const chunked = split(cut(buf, points));
          expect(chunked.lines).toEqual(whole.lines);
          expect(chunked.facts).toEqual(whole.facts);
          // Reference: split the decoded text on \n only.
          const text = body.toString("utf8");
          const expected = text === "" ? [] : text.split("\n");
          if (text.endsWith("\n")) expected.pop();
          expect(whole.lines.map((l) => l.text)).toEqual(expected.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)));
          // Offsets point at the line's bytes in the original buffer.
          for (const l of whole.lines) {
            expect(buf.subarray(l.offset, l.offset + l.length).toString("utf8")).toBe(l.text);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

import fc from "fast-check";
import stringWidthLib from "string-width";
import { describe, expect, it } from "vitest";
import { fitSegments, fitWidth, stringWidth } from "../../src/render/width.js";
import { expectSame } from "../support/expect-fast.js";

/**
 * stringWidth answers printable ASCII itself and remembers short strings it measured: every answer must still be
 * string-width's, asked once or many times, for ASCII, box drawing, wide and zero-width characters, escapes.
 */

const pieces = [
  "a",
  " ",
  "~",
  "• ",
  "◆ ",
  "│  ",
  "├─ ",
  "└─ ",
  "⋯",
  "…",
  "日本",
  "é",
  "e\u0301",
  "👍",
  "\u200b",
  "\t",
  "\u001b[1m",
  "\u007f",
  "\u0085",
];

describe("stringWidth equals string-width", () => {
  it("random strings of ASCII and other pieces, measured twice", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 40 })), { maxLength: 12 }), (parts) => {
        const s = parts.join("");
        const want = stringWidthLib(s);
        expect(stringWidth(s)).toBe(want);
        expect(stringWidth(s)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });

  it("more short strings than it remembers at once", () => {
    for (let i = 0; i < 10_000; i++) {
      const s = `• ${String.fromCharCode(0x4e00 + (i % 500))}${i}`;
      expectSame(stringWidth(s), stringWidthLib(s), s);
    }
  });

  it("cutting: fitWidth and fitSegments", () => {
    expect(fitWidth("• 日本語のテキスト", 7)).toBe("• 日本…");
    expect(
      fitSegments(
        [
          ["│  ", (s) => s],
          ["• ", (s) => `<${s}>`],
          ["abcdef", (s) => s],
        ],
        7,
      ),
    ).toBe("│  <• >a…");
  });
});

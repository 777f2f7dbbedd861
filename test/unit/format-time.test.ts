import { describe, expect, it } from "vitest";
import { formatTime } from "../../src/render/context-text.js";
import { expectSame } from "../support/expect-fast.js";

/** The format as Date writes it: ISO 8601 in UTC, "T" as a space, no milliseconds. */
function viaDate(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "?";
  return d
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
}

describe("formatTime (context titles)", () => {
  it("writes every time as Date's ISO string does, day and year boundaries included", () => {
    const times = [
      0,
      999,
      86_399_999,
      86_400_000,
      951_782_400_000,
      951_868_800_000,
      4_107_542_400_000,
      253_402_300_799_999,
      253_402_300_800_000,
      -1,
      -62_198_755_200_000,
      8.64e15,
      -8.64e15,
      1e12 + 0.7,
    ];
    let seed = 3;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      times.push((seed / 0x7fffffff) * 2.6e14 * (i % 5 === 0 ? -1 : 1), 1.7e12 + i * 7_919_000);
    }
    for (const t of times) expectSame(formatTime(t), viaDate(t), String(t));
    expect(formatTime(Number.NaN)).toBe("?");
    expect(formatTime(8.64e15 + 1)).toBe("?");
    expect(formatTime(Number.POSITIVE_INFINITY)).toBe("?");
  });
});

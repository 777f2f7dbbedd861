import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { entryTime } from "../../src/model/time.js";

/** The Date constructor's answer, which the index must keep (pi sorts by it). */
const byDate = (ts: unknown): number => new Date(ts as string).getTime();

const digit = fc.integer({ min: 0, max: 9 }).map(String);
/** Strings of pi's timestamp shape with any digits (month 13, day 31, hour 24, year 0042 …) and now and then another character. */
const isoLike = fc
  .tuple(
    fc.array(digit, { minLength: 17, maxLength: 17 }),
    fc.option(fc.tuple(fc.nat(23), fc.constantFrom("x", "-", "+", " ", "Z", "T", "9")), { nil: undefined }),
  )
  .map(([d, swap]) => {
    const s = `${d.slice(0, 4).join("")}-${d.slice(4, 6).join("")}-${d.slice(6, 8).join("")}T${d.slice(8, 10).join("")}:${d.slice(10, 12).join("")}:${d.slice(12, 14).join("")}.${d.slice(14, 17).join("")}Z`;
    return swap === undefined ? s : s.slice(0, swap[0]) + swap[1] + s.slice(swap[0] + 1);
  });
/** Valid instants across years 1000-9999, written as pi writes them. */
const written = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) }).map((t) => new Date(t).toISOString());

describe("entryTime", () => {
  it("is new Date(ts).getTime() for timestamps as pi writes them", () => {
    fc.assert(
      fc.property(written, (ts) => Object.is(entryTime(ts), byDate(ts))),
      { numRuns: 5000 },
    );
  });
  it("is new Date(ts).getTime() for strings of that shape with any digits or a changed character", () => {
    fc.assert(
      fc.property(isoLike, (ts) => Object.is(entryTime(ts), byDate(ts))),
      { numRuns: 20000 },
    );
  });
  it("is new Date(ts).getTime() for other values and forms", () => {
    const odd: unknown[] = [
      undefined,
      null,
      0,
      1748779200995,
      "",
      "2025-06-01",
      "2025-06-01T12:00:00Z",
      "2025-06-01T12:00:00.000+01:00",
      "2025-02-29T12:00:00.000Z",
      "2024-02-29T12:00:00.000Z",
      "2025-04-31T00:00:00.000Z",
      "0099-01-01T00:00:00.000Z",
      "+02025-06-01T12:00:00.000Z",
      "2025-06-01T24:00:00.000Z",
      "2025-06-01T23:59:60.000Z",
      "２025-06-01T12:00:00.000Z",
      true,
      {},
      [],
    ];
    for (const ts of odd) expect(Object.is(entryTime(ts), byDate(ts)), String(ts)).toBe(true);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ minLength: 24, maxLength: 24 })), (ts) => Object.is(entryTime(ts), byDate(ts))),
    );
  });
});

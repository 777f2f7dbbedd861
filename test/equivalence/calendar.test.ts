import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calendar, isoWeek, QUARTER_MS, quarterOf } from "../../src/ops/fleet-time.js";

/** The reference: Intl asked for the local date of the quarter hour's first instant, every time. */
function reference(timeZone: string, ms: number): { day: string; week: string; month: string } {
  const fmt = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
  const parts = Object.fromEntries(fmt.formatToParts(new Date(quarterOf(ms) * QUARTER_MS)).map((p) => [p.type, p.value]));
  const [y, m, d] = [Number(parts.year), Number(parts.month), Number(parts.day)];
  return { day: `${parts.year}-${parts.month}-${parts.day}`, week: isoWeek(y, m, d), month: `${parts.year}-${parts.month}` };
}

// Zones with clock changes of an hour, half an hour (Lord Howe), at midnight (Havana, Santiago), quarter-hour
// offsets (Kathmandu, Chatham), a day skipped (Apia, end of 2011), and none.
const ZONES = [
  "UTC",
  "Europe/Berlin",
  "America/New_York",
  "America/Havana",
  "America/Santiago",
  "Australia/Lord_Howe",
  "Asia/Kathmandu",
  "Pacific/Chatham",
  "Pacific/Apia",
  "Asia/Tehran",
];

describe("the calendar's buckets (offset per UTC day) equal Intl's for every quarter hour", () => {
  it("on random instants from 1990 to 2040", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) }), (zone, ms) => {
        expect(calendar(zone)(ms)).toEqual(reference(zone, ms));
      }),
      { numRuns: 3000 },
    );
  });

  it("on every quarter hour of the days around clock changes", () => {
    const days = [Date.UTC(2026, 2, 29), Date.UTC(2026, 9, 25), Date.UTC(2026, 2, 8), Date.UTC(2026, 10, 1), Date.UTC(2011, 11, 29)];
    for (const zone of ZONES) {
      const cal = calendar(zone);
      for (const day of days)
        for (let ms = day - 2 * 86_400_000; ms < day + 2 * 86_400_000; ms += QUARTER_MS)
          expect(cal(ms + 123), `${zone} ${new Date(ms).toISOString()}`).toEqual(reference(zone, ms));
    }
  });
});

import { spawnSync } from "node:child_process";
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

/**
 * The machine's own zone is the process's: TZ cannot change under a worker thread (vitest's), so each zone runs in a
 * process of its own, on the built module (dist/, made by npm test before it runs the tests).
 */
const LOCAL_CHECK = `
import { calendar, dayOffsets, isoWeek, QUARTER_MS, quarterOf } from ${JSON.stringify(new URL("../../dist/ops/fleet-time.js", import.meta.url).href)};
const zone = process.env.TZ;
const fmt = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" });
const reference = (ms) => {
  const p = Object.fromEntries(fmt.formatToParts(new Date(quarterOf(ms) * QUARTER_MS)).map((x) => [x.type, x.value]));
  return JSON.stringify({ day: p.year + "-" + p.month + "-" + p.day, week: isoWeek(+p.year, +p.month, +p.day), month: p.year + "-" + p.month });
};
const local = calendar(undefined), localDays = dayOffsets(undefined), named = dayOffsets(zone);
const bad = [];
const days = [Date.UTC(2026, 2, 29), Date.UTC(2026, 9, 25), Date.UTC(2026, 2, 8), Date.UTC(2026, 10, 1), Date.UTC(2011, 11, 29)];
let n = 0;
const check = (ms) => {
  n++;
  if (JSON.stringify(local(ms)) !== reference(ms)) bad.push(new Date(ms).toISOString());
  const d = Math.floor(ms / 86400000);
  if (localDays(d) !== named(d)) bad.push("day " + d);
};
for (const day of days) for (let ms = day - 2 * 86400000; ms < day + 2 * 86400000; ms += QUARTER_MS) check(ms + 123);
for (let k = 0; k < 2000; k++) check(Date.UTC(1990, 0, 1) + Math.floor(((k * 7919) % 2000) / 2000 * (Date.UTC(2040, 0, 1) - Date.UTC(1990, 0, 1))));
console.log(JSON.stringify({ zone, resolved: Intl.DateTimeFormat().resolvedOptions().timeZone, n, bad: bad.slice(0, 5) }));
`;

describe("the machine's own zone (no zone given: Date's local time) equals the same zone asked of Intl by name", () => {
  it("on every quarter hour of the days around clock changes, and on instants from 1990 to 2040, with TZ set to each zone", () => {
    for (const zone of ZONES) {
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", LOCAL_CHECK], {
        encoding: "utf8",
        env: { ...process.env, TZ: zone },
      });
      expect(r.stderr).toBe("");
      const out = JSON.parse(r.stdout) as { zone: string; n: number; bad: string[] };
      expect(out.n).toBeGreaterThan(2000);
      expect([zone, out.bad]).toEqual([zone, []]);
    }
  });
});

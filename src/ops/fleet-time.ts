/**
 * Calendar buckets of an instant in an IANA time zone: day "YYYY-MM-DD", ISO week "YYYY-Www" (weeks start on
 * Monday; the year is the ISO week-year) and month "YYYY-MM". Each spend entry is bucketed by its own timestamp.
 */

export type Period = "day" | "week" | "month";

/** Whether Intl knows the zone (IANA names such as "Europe/Berlin", or "UTC"). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The buckets of one zone; the formatter is built once (it is the costly part). */
export function calendar(timeZone: string | undefined): (ms: number) => { day: string; week: string; month: string } {
  const fmt = new Intl.DateTimeFormat("en-CA", {
    ...(timeZone !== undefined ? { timeZone } : {}),
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  // Many entries share a local day: cache by the UTC hour (zone offsets are whole quarter hours, so cache by minute/15).
  const cache = new Map<number, { day: string; week: string; month: string }>();
  return (ms) => {
    const slot = Math.floor(ms / 900_000);
    const hit = cache.get(slot);
    if (hit) return hit;
    let y = 0;
    let m = 0;
    let d = 0;
    for (const p of fmt.formatToParts(new Date(ms))) {
      if (p.type === "year") y = Number(p.value);
      else if (p.type === "month") m = Number(p.value);
      else if (p.type === "day") d = Number(p.value);
    }
    const out = { day: `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`, week: isoWeek(y, m, d), month: `${pad(y, 4)}-${pad(m, 2)}` };
    if (cache.size > 100_000) cache.clear();
    cache.set(slot, out);
    return out;
  };
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, "0");
}

/** ISO 8601 week of a calendar date: the week (Monday first) holding its Thursday, numbered within that Thursday's year. */
export function isoWeek(y: number, m: number, d: number): string {
  const date = Date.UTC(y, m - 1, d);
  const dow = (new Date(date).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const thursday = new Date(date + (3 - dow) * 86_400_000);
  const wy = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(wy, 0, 1)) / (7 * 86_400_000)) + 1;
  return `${pad(wy, 4)}-W${pad(week, 2)}`;
}

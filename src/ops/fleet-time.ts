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

export const QUARTER_MS = 900_000;

/** The quarter hour of UTC an instant falls in (what the calendar buckets by). */
export function quarterOf(ms: number): number {
  return Math.floor(ms / QUARTER_MS);
}

export interface Buckets {
  day: string;
  week: string;
  month: string;
}

export const DAY_MS = 86_400_000;

/**
 * The buckets of one zone. An instant's buckets are those of its quarter hour's first instant (zone offsets are whole
 * quarter hours), so they are a function of the quarter alone: the index sums spend per quarter hour before it is
 * bucketed (src/reports/usage-index.ts) and gets the buckets every record would. Asking Intl for every quarter was
 * most of a count: the zone's offset is asked at the first and last quarter of each UTC day, and when they are the
 * same (every day but those a clock change falls on) it holds for the whole day.
 */
export function calendar(timeZone: string | undefined): (ms: number) => Buckets {
  const offsetAt = zoneOffset(timeZone);
  const dayOffset = dayOffsets(timeZone, offsetAt);
  const byDay = new Map<number, Buckets>();
  const changeQuarters = new Map<number, number>();
  return (ms) => {
    const quarter = quarterOf(ms);
    const start = quarter * QUARTER_MS;
    const off = dayOffset(utcDayOf(quarter));
    let local: number;
    if (off !== null) local = start + off;
    else {
      local = changeQuarters.get(quarter) ?? start + offsetAt(start);
      if (changeQuarters.size > 100_000) changeQuarters.clear();
      changeQuarters.set(quarter, local);
    }
    const localDay = Math.floor(local / DAY_MS);
    let out = byDay.get(localDay);
    if (!out) {
      const t = new Date(localDay * DAY_MS);
      const [y, m, d] = [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()];
      out = { day: `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`, week: isoWeek(y, m, d), month: `${pad(y, 4)}-${pad(m, 2)}` };
      if (byDay.size > 100_000) byDay.clear();
      byDay.set(localDay, out);
    }
    return out;
  };
}

/** The UTC day a quarter hour is in (days since the epoch). */
export function utcDayOf(quarter: number): number {
  return Math.floor((quarter * QUARTER_MS) / DAY_MS);
}

function zoneFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat("en-US", {
    ...(timeZone !== undefined ? { timeZone } : {}),
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  });
}

/**
 * The zone's offset (ms) over a whole UTC day, or null on a day its offset changes: the calendar's rule, which the
 * index's per-day sums (src/reports/usage-index.ts) follow to put quarter hours into local days in SQL.
 */
export function dayOffsets(timeZone: string | undefined, offsetAt = zoneOffset(timeZone)): (utcDay: number) => number | null {
  const offsets = new Map<number, number | null>();
  return (utcDay) => {
    let off = offsets.get(utcDay);
    if (off === undefined) {
      const first = utcDay * DAY_MS;
      const a = offsetAt(first);
      off = a === offsetAt(first + DAY_MS - QUARTER_MS) ? a : null;
      if (offsets.size > 100_000) offsets.clear();
      offsets.set(utcDay, off);
    }
    return off;
  };
}

/**
 * The zone's offset (ms) at an instant. The machine's own zone (no zone given) is Date's local time, which V8 takes
 * from the same ICU zone as Intl's default: making an Intl.DateTimeFormat loads the zone data, 10-18 ms of every
 * usage run that asks for days or weeks. A zone given by name is asked of Intl.
 */
function zoneOffset(timeZone: string | undefined): (ms: number) => number {
  if (timeZone === undefined)
    return (ms) => {
      const minutes = new Date(ms).getTimezoneOffset();
      // 0, not -0, in UTC.
      return minutes === 0 ? 0 : -minutes * 60_000;
    };
  const fmt = zoneFormat(timeZone);
  return (ms) => wallClock(fmt, ms) - ms;
}

/** The zone's wall clock at `ms`, as milliseconds on the UTC axis (its offset is the difference). */
function wallClock(fmt: Intl.DateTimeFormat, ms: number): number {
  const v: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(ms))) if (p.type !== "literal") v[p.type] = Number(p.value);
  const t = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0–99 as 1900–1999.
  t.setUTCFullYear(v.year ?? 1970, (v.month ?? 1) - 1, v.day ?? 1);
  t.setUTCHours(v.hour ?? 0, v.minute ?? 0, v.second ?? 0, 0);
  return t.getTime();
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

/**
 * `new Date(ts).getTime()`, as pi sorts entries: computed directly for the form pi writes, YYYY-MM-DDTHH:MM:SS.sssZ,
 * within ranges where that is plainly the same (years 1000-9999, days 1-28); anything else goes to Date. The
 * Date constructor's string parser is a large part of indexing a long session. Every entry time goes through here:
 * the loaders' and the context's.
 */
export function entryTime(ts: unknown): number {
  if (typeof ts !== "string" || ts.length !== 24) return new Date(ts as string).getTime();
  if (
    ts.charCodeAt(4) !== 0x2d ||
    ts.charCodeAt(7) !== 0x2d ||
    ts.charCodeAt(10) !== 0x54 ||
    ts.charCodeAt(13) !== 0x3a ||
    ts.charCodeAt(16) !== 0x3a ||
    ts.charCodeAt(19) !== 0x2e ||
    ts.charCodeAt(23) !== 0x5a
  ) {
    return new Date(ts).getTime();
  }
  let bad = 0;
  const dig = (i: number): number => {
    const d = ts.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) bad = 1;
    return d;
  };
  const y = dig(0) * 1000 + dig(1) * 100 + dig(2) * 10 + dig(3);
  const mo = dig(5) * 10 + dig(6);
  const d = dig(8) * 10 + dig(9);
  const h = dig(11) * 10 + dig(12);
  const mi = dig(14) * 10 + dig(15);
  const s = dig(17) * 10 + dig(18);
  const ms = dig(20) * 100 + dig(21) * 10 + dig(22);
  if (bad !== 0 || y < 1000 || mo < 1 || mo > 12 || d < 1 || d > 28 || h > 23 || mi > 59 || s > 59) return new Date(ts).getTime();
  // Date.UTC's own arithmetic, without the call: entries in a row are mostly on one day, whose start is kept.
  const key = (y * 16 + mo) * 32 + d;
  if (key !== lastDay.key) {
    lastDay.key = key;
    lastDay.ms = daysFromCivil(y, mo, d) * 86400000;
  }
  return lastDay.ms + ((h * 60 + mi) * 60 + s) * 1000 + ms;
}

const lastDay = { key: -1, ms: 0 };

/** Days from 1970-01-01 to year y (≥ 1), month m (1-12), day d of the proleptic Gregorian calendar (Hinnant). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

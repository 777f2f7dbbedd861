/**
 * Exact sums of doubles (costs). A floating-point sum depends on the order it adds in; an exact one does not, so a
 * count made in any order, in any number of parts (worker threads, the index's SQL pre-sums, batches of files),
 * comes out the same to the bit: the double nearest the true sum.
 *
 * Most costs are exact multiples of 2^-80 below 2^20 (every recorded cost of a realistic price and token count):
 * they add as integers of that unit (`fixed`), the same integers the index's SQL sums as HUGEINT. Anything else
 * (a tiny or huge value, a subnormal) is exact in units of 2^-1074 (`fine`); infinities and NaN add as doubles.
 */

/** The unit of `fixed`: 2^-FIXED_BITS. */
export const FIXED_BITS = 80;
/** Values at or above 2^FIXED_MAX_BITS go to `fine`: no HUGEINT sum of fewer than 2^27 rows can overflow. */
export const FIXED_MAX_BITS = 20;

const FIXED_SCALE = 2 ** FIXED_BITS;
const FIXED_LIMIT = 2 ** FIXED_MAX_BITS;

/** Plain data (it crosses worker threads' message channels). */
export interface ExactSum {
  /** Units of 2^-80. */
  fixed: bigint;
  /** Units of 2^-1074. */
  fine: bigint;
  /** Infinities and NaN, added as doubles. */
  special: number;
}

export function exactZero(): ExactSum {
  return { fixed: 0n, fine: 0n, special: 0 };
}

/** `x` in units of 2^-80 when it is one exactly (and below the limit), else undefined. */
export function fixedUnits(x: number): bigint | undefined {
  if (!(Math.abs(x) < FIXED_LIMIT)) return undefined;
  // Scaling by a power of two is exact: the product is an integer exactly when x is a multiple of the unit.
  const scaled = x * FIXED_SCALE;
  return Number.isInteger(scaled) ? BigInt(scaled) : undefined;
}

const view = new DataView(new ArrayBuffer(8));

/** A finite double in units of 2^-1074 (every finite double is an integer of them). */
function fineUnits(x: number): bigint {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exponent = (hi >>> 20) & 0x7ff;
  const mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  const units = exponent === 0 ? mantissa : (mantissa | (1n << 52n)) << BigInt(exponent - 1);
  return hi >>> 31 === 1 ? -units : units;
}

export function addExact(s: ExactSum, x: number): void {
  if (x === 0) return;
  if (!Number.isFinite(x)) {
    s.special += x;
    return;
  }
  const f = fixedUnits(x);
  if (f !== undefined) s.fixed += f;
  else s.fine += fineUnits(x);
}

/** Adds an integer count of 2^-80 units (an SQL sum of fixedUnits). */
export function addFixed(s: ExactSum, units: bigint): void {
  s.fixed += units;
}

export function addSum(s: ExactSum, o: ExactSum): void {
  s.fixed += o.fixed;
  s.fine += o.fine;
  s.special += o.special;
}

/** The double nearest `n` × 2^exp (ties to even). */
function scaledToNumber(n: bigint, exp: number): number {
  if (n === 0n) return 0;
  const negative = n < 0n;
  let m = negative ? -n : n;
  let e = exp;
  const bits = m.toString(2).length;
  if (bits > 55) {
    // Keep 54 bits and a sticky bit for everything shifted out: Number() then rounds as the whole would.
    const shift = bits - 55;
    const rest = m & ((1n << BigInt(shift)) - 1n);
    m = (m >> BigInt(shift)) | (rest === 0n ? 0n : 1n);
    e += shift;
  }
  // Two steps, so that no power of two on the way is out of range.
  const half = Math.trunc(e / 2);
  const v = Number(m) * 2 ** half * 2 ** (e - half);
  return negative ? -v : v;
}

/** The double nearest the sum. */
export function exactValue(s: ExactSum): number {
  const total = s.fine === 0n ? scaledToNumber(s.fixed, -FIXED_BITS) : scaledToNumber((s.fixed << 994n) + s.fine, -1074);
  return s.special === 0 ? total : s.special + total;
}

import { isDeepStrictEqual } from "node:util";
import { expect } from "vitest";

/**
 * Matchers for comparisons in loops and on large values, with the same verdicts as vitest's: node's
 * isDeepStrictEqual (or Object.is) answers first, in microseconds where an expect() call costs several and vitest's
 * deep equality seconds on a big context; vitest's matcher runs only when that says "different", and then passes or
 * fails with its own diff and the message naming the case. What isDeepStrictEqual calls equal toEqual does too: it
 * is the stricter of the two (prototypes, undefined properties, array holes, -0).
 */

/** expect(got, message).toEqual(want). */
export function expectEqual(got: unknown, want: unknown, message?: string): void {
  if (!isDeepStrictEqual(got, want)) expect(got, message).toEqual(want);
}

/** expect(got, message).toBe(want). */
export function expectSame(got: unknown, want: unknown, message?: string): void {
  if (!Object.is(got, want)) expect(got, message).toBe(want);
}

/** expect(got, message).toStrictEqual(want). */
export function expectStrictEqual(got: unknown, want: unknown, message?: string): void {
  if (!isDeepStrictEqual(got, want)) expect(got, message).toStrictEqual(want);
}

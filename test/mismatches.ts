import { expect } from "vitest";

/**
 * One assertion for the many cases of a loop: each case's value must be the one wanted (Object.is, as toBe does),
 * and a failure lists the cases that are not (the first 20, with how many there were). An expect() call costs vitest
 * several microseconds of bookkeeping, and loops of tens of thousands of them were a visible part of the suite's time.
 */
export class Mismatches {
  private readonly found: { case: string; got: unknown; want: unknown }[] = [];
  private checked = 0;

  /** Records the case when `got` is not `want`; `label` names it in the failure (made only then, when a function). */
  is(got: unknown, want: unknown, label: string | (() => string)): void {
    this.checked++;
    if (!Object.is(got, want)) this.found.push({ case: typeof label === "string" ? label : label(), got, want });
  }

  /** Fails if a recorded case differed, or if there was no case at all. */
  expectNone(): void {
    expect(this.checked, "cases checked").toBeGreaterThan(0);
    expect(this.found.slice(0, 20), `${this.found.length} of ${this.checked} cases differ`).toEqual([]);
  }
}

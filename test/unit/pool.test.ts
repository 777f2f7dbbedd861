import { describe, expect, it } from "vitest";
import { runOnThreads } from "../../src/reports/pool.js";

const WORKER = new URL("../support/pool-workers/answer.mjs", import.meta.url);
const batches = (n: number): string[][] => Array.from({ length: n }, (_, i) => [`f${i}`]);

/** Fails instead of waiting for the test timeout when the run never ends. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms))]);
}

describe("runOnThreads (pool.ts)", () => {
  it("delivers every result in batch order", async () => {
    const started = new Int32Array(new SharedArrayBuffer(4));
    const seen: number[] = [];
    await within(
      runOnThreads<number>(WORKER, 3, { started }, batches(50), (r, b) => {
        expect(r).toBe(1);
        seen.push(b);
      }),
      20_000,
    );
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it("a slow batch holds back the other workers: few results wait out of order", async () => {
    const started = new Int32Array(new SharedArrayBuffer(4));
    let begunWhenFirstDelivered = -1;
    await within(
      runOnThreads<number>(WORKER, 2, { started, slowMs: 400 }, batches(200), (_r, b) => {
        if (b === 0) begunWhenFirstDelivered = Atomics.load(started, 0);
      }),
      20_000,
    );
    // While batch 0 took 400 ms the other worker could have run through all 199 others; bounded, it stops a few
    // batches ahead (two per worker, pool.ts AHEAD).
    expect(begunWhenFirstDelivered).toBeGreaterThan(1);
    expect(begunWhenFirstDelivered).toBeLessThanOrEqual(4);
    expect(Atomics.load(started, 0)).toBe(200);
  });

  it("a worker that exits by itself fails the run instead of leaving it waiting", async () => {
    const started = new Int32Array(new SharedArrayBuffer(4));
    const run = runOnThreads<number>(WORKER, 2, { started, exitAt: 5 }, batches(20), () => {});
    await expect(within(run, 10_000)).rejects.toThrow(/worker thread stopped \(exit code 0\)/);
  });

  it("an error a worker answers fails the run", async () => {
    const started = new Int32Array(new SharedArrayBuffer(4));
    await expect(
      within(
        runOnThreads<number>(WORKER, 2, { started, errorAt: 3 }, batches(10), () => {}),
        10_000,
      ),
    ).rejects.toThrow("cannot read f");
  });

  it("an error from onResult fails the run", async () => {
    const onResult = (): void => {
      throw new Error("disk full");
    };
    const started = new Int32Array(new SharedArrayBuffer(4));
    await expect(within(runOnThreads<number>(WORKER, 2, { started }, batches(10), onResult), 10_000)).rejects.toThrow("disk full");
  });
});

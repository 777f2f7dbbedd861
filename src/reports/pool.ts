import { access } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { parentPort, Worker } from "node:worker_threads";

/**
 * Worker threads for fleet commands (usage, tables): files go out in batches to whichever worker is free, and the
 * results come back to the caller in batch order, so the output never depends on which thread finished first.
 * A worker module (serveBatches) answers each `{ batch, files }` with `{ batch, result }` or `{ batch, error }`.
 */

/** Files per batch: small enough to share the work evenly, large enough to keep messages few. */
export const BATCH = 32;
/**
 * Batches sent but not yet delivered, per worker: a slow batch lets the others run only this far ahead, so results
 * held out of order stay few (their memory is bounded) while no worker waits for another in the common case.
 */
const AHEAD = 2;
/** Below this many files, starting workers costs more than it saves. */
const MIN_FILES_FOR_THREADS = 64;

/**
 * From this many sessions read, `ls` and `grep` read them on worker threads (when `threads` is not given). Their
 * workers' start costs more than the fleet commands' (each loads the full detail's code): `ls --json` on 2 cores,
 * 500 sessions took 45 ms more on two workers, 1,000 34 ms less, 2,000 220 ms less, 10,000 2.2 s less (medians of 4
 * interleaved pairs).
 */
const LISTING_THREADS_FROM = 1000;

/** Threads for `ls` and `grep` to read `files` sessions on: `threads` when given, else threadCount's from 1,000. */
export function listingThreads(threads: number | undefined, files: number): number {
  if (threads !== undefined) return threadCount(threads, files);
  return files >= LISTING_THREADS_FROM ? threadCount(undefined, files) : 1;
}

/** Threads to use: `threads` when given, else the cores available (at most 4) for a large enough fleet. */
export function threadCount(threads: number | undefined, files: number): number {
  if (threads !== undefined) return Math.max(1, Math.floor(threads));
  return files >= MIN_FILES_FOR_THREADS ? Math.min(availableParallelism(), 4) : 1;
}

/** A worker module beside this one (absent when running from TypeScript sources: the work then stays in this thread). */
export async function workerModule(name: string): Promise<URL | undefined> {
  const url = new URL(`./${name}`, import.meta.url);
  try {
    await access(url);
    return url;
  } catch {
    return undefined;
  }
}

export function batchesOf<F = string>(files: readonly F[]): F[][] {
  const out: F[][] = [];
  for (let i = 0; i < files.length; i += BATCH) out.push(files.slice(i, i + BATCH));
  return out;
}

interface Answer<R> {
  batch: number;
  result?: R;
  error?: string;
}

/**
 * Buffers a result moves to the caller's thread instead of copying them (`moved`), and gets back once the caller is
 * done with them (`returned`), to fill again: fresh memory costs far more to touch than memory in use.
 */
export interface BufferLoan<R> {
  moved(result: R): ArrayBuffer[];
  returned(buffers: ArrayBuffer[]): void;
}

/** A message to a worker: a batch to run (files, or what a report sends of each), or buffers given back (BufferLoan). */
type ToWorker<F = string> = { batch: number; files: F[] } | { returned: ArrayBuffer[] };

/** The loop of a worker module: answers each batch it is sent with `run`'s result (or its error). */
export function serveBatches<R, F = string>(run: (files: F[]) => Promise<R>, loan?: BufferLoan<R>): void {
  const port = parentPort;
  port?.on("message", (msg: ToWorker<F>) => {
    if ("returned" in msg) {
      loan?.returned(msg.returned);
      return;
    }
    run(msg.files).then(
      (result) => port.postMessage({ batch: msg.batch, result } satisfies Answer<R>, loan?.moved(result) ?? []),
      (err: unknown) => port.postMessage({ batch: msg.batch, error: err instanceof Error ? err.message : String(err) } satisfies Answer<R>),
    );
  });
}

/**
 * Runs `batches` on `n` workers of module `url`; `onResult` is called once per batch, in batch order, one call at a
 * time (it may write to files). Fails on a worker's error, and on a worker that stops before the work is done.
 * `giveBack`: the buffers of a result (moved here by the worker's BufferLoan) to send back to the worker it came
 * from once `onResult` is done with it.
 */
export async function runOnThreads<R, F = string>(
  url: URL,
  n: number,
  init: unknown,
  batches: readonly F[][],
  onResult: (result: R, batch: number) => Promise<void> | void,
  giveBack?: (result: R) => ArrayBuffer[],
): Promise<void> {
  const workers = Array.from({ length: Math.max(1, Math.min(n, batches.length)) }, () => new Worker(url, { workerData: init }));
  const limit = workers.length * AHEAD;
  const pending = new Map<number, R>();
  /** Which worker answered each pending batch (for giveBack). */
  const from = new Map<number, Worker>();
  const idle: Worker[] = [];
  let next = 0;
  let finished = 0;
  let delivering = false;
  let settled = false;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (err: unknown): void => {
        settled = true;
        reject(err instanceof Error ? err : new Error(String(err)));
      };
      const pump = (): void => {
        if (settled) return;
        if (finished === batches.length) {
          settled = true;
          resolve();
          return;
        }
        while (idle.length > 0 && next < batches.length && next < finished + limit) {
          const b = next++;
          (idle.pop() as Worker).postMessage({ batch: b, files: batches[b] as F[] } satisfies ToWorker<F>);
        }
      };
      const deliver = async (): Promise<void> => {
        if (delivering) return;
        delivering = true;
        try {
          while (!settled && pending.has(finished)) {
            const r = pending.get(finished) as R;
            const w = from.get(finished) as Worker;
            pending.delete(finished);
            from.delete(finished);
            await onResult(r, finished);
            if (giveBack !== undefined && !settled) {
              const returned = giveBack(r);
              if (returned.length > 0) w.postMessage({ returned } satisfies ToWorker, returned);
            }
            finished++;
            pump();
          }
        } catch (err) {
          fail(err);
        } finally {
          delivering = false;
        }
      };
      for (const w of workers) {
        w.on("message", (a: Answer<R>) => {
          if (a.error !== undefined) return fail(new Error(a.error));
          pending.set(a.batch, a.result as R);
          from.set(a.batch, w);
          idle.push(w);
          pump();
          void deliver();
        });
        w.on("error", fail);
        w.on("messageerror", fail);
        // A worker that ends by itself (process.exit inside it, or killed) would otherwise leave its batch unanswered.
        w.on("exit", (code) => {
          if (!settled) fail(new Error(`a worker thread stopped (exit code ${code}) before the work was done`));
        });
        idle.push(w);
      }
      pump();
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

import { access } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/**
 * Worker threads for fleet commands (usage, tables): files go out in batches to whichever worker is free, and the
 * results come back to the caller in batch order, so the output never depends on which thread finished first.
 * A worker module answers each `{ batch, files }` with `{ batch, result }` or `{ batch, error }`, and stops on null.
 */

/** Files per batch: small enough to share the work evenly, large enough to keep messages few. */
export const BATCH = 32;
/** Below this many files, starting workers costs more than it saves. */
const MIN_FILES_FOR_THREADS = 64;

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

export function batchesOf(files: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < files.length; i += BATCH) out.push(files.slice(i, i + BATCH));
  return out;
}

interface Answer<R> {
  batch: number;
  result?: R;
  error?: string;
}

/** Runs `batches` on `n` workers of module `url`; `onResult` is called once per batch, in batch order. */
export async function runOnThreads<R>(
  url: URL,
  n: number,
  init: unknown,
  batches: readonly string[][],
  onResult: (result: R, batch: number) => Promise<void> | void,
): Promise<void> {
  const pending = new Map<number, R>();
  let next = 0;
  let delivered = 0;
  // Results delivered one after the other (onResult may write to files).
  let chain: Promise<void> = Promise.resolve();
  const deliver = (): void => {
    while (pending.has(delivered)) {
      const r = pending.get(delivered) as R;
      pending.delete(delivered);
      const b = delivered++;
      chain = chain.then(() => onResult(r, b));
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(n, batches.length)) }, () => new Worker(url, { workerData: init }));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const send = (): void => {
              const b = next++;
              w.postMessage(b < batches.length ? { batch: b, files: batches[b] } : null);
              if (b >= batches.length) resolve();
            };
            w.on("message", (a: Answer<R>) => {
              if (a.error !== undefined) {
                reject(new Error(a.error));
                return;
              }
              pending.set(a.batch, a.result as R);
              deliver();
              // Back-pressure: a worker far ahead of the delivered results waits for them.
              chain.then(send, reject);
            });
            w.on("error", reject);
            send();
          }),
      ),
    );
    await chain;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { BatchHit, BatchLinter, SecretPattern } from "../check/secrets.js";

/**
 * A batch to lint (its strings: posting copies them anyway, so the worker joins them, not this thread), and its
 * answer (lintBatch's hits).
 */
export interface ToLinter {
  id: number;
  parts: readonly string[];
}
export type FromLinter = { id: number; hits: BatchHit[] } | { id: number; error: string };

/**
 * Batches the worker holds at most (the one it lints and those queued behind it). The scanning thread lints a
 * batch itself when the worker has this many, so a slow worker never makes batches pile up (memory stays bounded),
 * and the worker, with one queued, is not idle while the scanning thread lints.
 */
const IN_FLIGHT = 3;

/** Worker threads for `pisess secrets`: `threads` when given (0: none), else one when there is a core to spare. */
export function lintThreads(threads: number | undefined): number {
  if (threads !== undefined) return Math.max(0, Math.floor(threads));
  return availableParallelism() > 1 ? 1 : 0;
}

/**
 * Lints the batches of a secrets scan in worker threads (secrets-worker.ts, at `url`), started on the first batch
 * offered: a small session, whose strings make no full batch, starts none. Batches go to the worker with the fewest
 * in flight; each answer goes back to its batch's promise, so the order of the hits does not depend on the threads
 * (the scanner sorts them).
 */
export class WorkerLinter implements BatchLinter {
  private workers: { worker: Worker; busy: number }[] = [];
  private readonly waiting = new Map<number, { resolve: (m: BatchHit[]) => void; reject: (e: Error) => void }>();
  private next = 0;
  private failed: Error | undefined;

  constructor(
    private readonly url: URL,
    private readonly threads: number,
    private readonly patterns: readonly SecretPattern[],
  ) {}

  offer(parts: readonly string[]): Promise<BatchHit[]> | undefined {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    if (this.workers.length === 0) this.start();
    const w = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    if (w.busy >= IN_FLIGHT) return undefined;
    w.busy++;
    const id = this.next++;
    return new Promise<BatchHit[]>((resolve, reject) => {
      this.waiting.set(id, {
        resolve: (m) => {
          w.busy--;
          resolve(m);
        },
        reject,
      });
      w.worker.postMessage({ id, parts } satisfies ToLinter);
    });
  }

  /** Stops the workers (their pending batches, if any, fail). */
  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    this.fail(new Error("the secrets scan ended before a worker thread answered"));
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  private start(): void {
    for (let i = 0; i < Math.max(1, this.threads); i++) {
      const worker = new Worker(this.url, { workerData: { patterns: this.patterns } });
      worker.on("message", (a: FromLinter) => {
        const p = this.waiting.get(a.id);
        this.waiting.delete(a.id);
        if ("error" in a) p?.reject(new Error(a.error));
        else p?.resolve(a.hits);
      });
      worker.on("error", (err) => this.fail(err));
      worker.on("messageerror", (err) => this.fail(err));
      // A worker that ends by itself (killed, out of memory) would otherwise leave its batches unanswered.
      worker.on("exit", (code) => this.fail(new Error(`a worker thread stopped (exit code ${code}) before the scan was done`)));
      this.workers.push({ worker, busy: 0 });
    }
  }

  private fail(err: Error): void {
    this.failed ??= err;
    for (const p of this.waiting.values()) p.reject(err);
    this.waiting.clear();
  }
}

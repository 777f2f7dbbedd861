import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";

/**
 * Folders of temporary copies of session data (the CSV that `sql` and `tables` stage, a `tables --out` being
 * written) that go however the run ends: its own cleanup, an error, process.exit, or SIGINT, SIGTERM or SIGHUP,
 * whose default action would end the process with no cleanup at all. They can hold hundreds of megabytes of
 * session metadata and tool-call arguments.
 */

const live = new Set<string>();
/** Folders being made (mkdtemp under way): the handlers stay while any is. */
let making = 0;
let held = false;
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function removeAll(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  removeAll();
  release();
  // Raised again with nothing of ours listening, so the run ends as the signal ends it (status 128 + n).
  process.kill(process.pid, signal);
}

function hold(): void {
  if (held) return;
  held = true;
  process.on("exit", removeAll);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function release(): void {
  held = false;
  process.off("exit", removeAll);
  for (const s of SIGNALS) process.off(s, onSignal);
}

/** A new folder `prefix` + random characters, removed however the run ends (or by dropScratch). */
export async function scratchDir(prefix: string): Promise<string> {
  hold();
  making++;
  try {
    const dir = await mkdtemp(prefix);
    live.add(dir);
    return dir;
  } finally {
    making--;
    if (live.size === 0 && making === 0) release();
  }
}

/** Removes a scratchDir folder now. */
export async function dropScratch(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  forgetScratch(dir);
}

/** A scratchDir folder that is no longer temporary (renamed into place): nothing to remove on exit. */
export function forgetScratch(dir: string): void {
  if (live.delete(dir) && live.size === 0 && making === 0) release();
}

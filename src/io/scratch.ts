import { rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";

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

/**
 * A new folder named `prefix` and random characters. mkdtemp's (mode 0700), or, for a folder that becomes an output
 * (`output`), one with the mode any new folder gets (the umask's).
 */
async function newDir(prefix: string, output: boolean): Promise<string> {
  if (!output) return mkdtemp(prefix);
  for (;;) {
    const dir = `${prefix}${randomBytes(6).toString("hex")}`;
    try {
      await mkdir(dir);
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}

/**
 * A new folder `prefix` + random characters, removed however the run ends (or by dropScratch) unless it is kept
 * (forgetScratch). `output`: it is to become an output, with the mode a new folder gets, not mkdtemp's 0700.
 */
export async function scratchDir(prefix: string, output = false): Promise<string> {
  hold();
  making++;
  try {
    const dir = await newDir(prefix, output);
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

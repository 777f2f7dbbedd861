import { closeSync, constants, fstatSync, openSync, type Stats, stat } from "node:fs";
import { assertRegular } from "./errors.js";
import type * as FsPromises from "node:fs/promises";

let loaded: typeof FsPromises | undefined;

/**
 * node:fs/promises, loaded on first use: it brings a dozen of Node's internal modules, a start-up cost to every run
 * that never needs it (tree, context, path and info read their file with synchronous reads).
 */
export async function fsp(): Promise<typeof FsPromises> {
  loaded ??= await import("node:fs/promises");
  return loaded;
}

// node:fs's callback stat as a promise, for what every run does with its own file: node:fs/promises would bring its
// dozen internal modules at start-up.

/** fs.stat. */
export function statOf(p: string): Promise<Stats> {
  return new Promise((resolve, reject) => stat(p, (err, st) => (err ? reject(err) : resolve(st))));
}

/**
 * The flags every input file is opened with: read-only, and non-blocking, so that opening a FIFO returns at once
 * instead of waiting for a writer (on a regular file O_NONBLOCK changes nothing). The descriptor's fstat then
 * refuses anything that is not a regular file (assertRegular), before a read could block.
 */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Opens a regular file for reading (READ_FLAGS): its descriptor and fstat; NotRegularFile for anything else. */
export function openRegularSync(path: string): { fd: number; st: Stats } {
  const fd = openSync(path, READ_FLAGS);
  try {
    const st = fstatSync(fd);
    assertRegular(path, st);
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

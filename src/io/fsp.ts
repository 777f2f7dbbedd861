import { close, closeSync, constants, fstat, fstatSync, open, openSync, read, type Stats, stat } from "node:fs";
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

// node:fs's callback calls as promises, for what every run does with its own file (stat it; info and the fork checks
// read its first line): node:fs/promises would bring its dozen internal modules at start-up.

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

/** fs.open of a regular file for reading (READ_FLAGS, then fstat): the descriptor; NotRegularFile for anything else. */
export function openRead(path: string): Promise<number> {
  return new Promise((resolve, reject) =>
    open(path, READ_FLAGS, (err, fd) => {
      if (err) return reject(err);
      fstat(fd, (e, st) => {
        try {
          if (e) throw e;
          assertRegular(path, st);
          resolve(fd);
        } catch (bad) {
          close(fd, () => reject(bad));
        }
      });
    }),
  );
}

/** fs.read into the whole of `buf` from `position`: the bytes read. */
export function readAt(fd: number, buf: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, buf.length, position, (err, n) => (err ? reject(err) : resolve(n))));
}

/** fs.close. */
export function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (err) => (err ? reject(err) : resolve())));
}

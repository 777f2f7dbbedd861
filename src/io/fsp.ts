import { close, open, read, type Stats, stat } from "node:fs";
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

/** fs.open for reading: the descriptor. */
export function openRead(path: string): Promise<number> {
  return new Promise((resolve, reject) => open(path, "r", (err, fd) => (err ? reject(err) : resolve(fd))));
}

/** fs.read into the whole of `buf` from `position`: the bytes read. */
export function readAt(fd: number, buf: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, buf.length, position, (err, n) => (err ? reject(err) : resolve(n))));
}

/** fs.close. */
export function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (err) => (err ? reject(err) : resolve())));
}

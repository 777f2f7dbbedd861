import { type Stats, stat } from "node:fs";
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

/** fs.stat as a promise, through node:fs's callback: for a run's own file, without loading node:fs/promises. */
export function statOf(p: string): Promise<Stats> {
  return new Promise((resolve, reject) => stat(p, (err, st) => (err ? reject(err) : resolve(st))));
}

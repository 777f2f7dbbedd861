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

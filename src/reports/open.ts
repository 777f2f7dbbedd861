import type { Readable } from "node:stream";
import { loadSession, type LoadOptions } from "../model/load.js";
import type { Detail } from "../model/detail.js";
import type { Session } from "../model/session.js";

/**
 * How a report that takes file names opens them: the CLI passes its own (stdin for "-", progress, one-line errors).
 * The session knows the detail asked for, as loadSession's does.
 */
export type OpenSession = <D extends Detail = "full">(
  file: string,
  opts?: Pick<LoadOptions<D>, "detail" | "onEntry">,
) => Promise<Session<D>>;

/** Opens a session file (read-only, streamed) or a readable stream and builds its index. */
export async function openSession<D extends Detail = "full">(input: string | Readable, options: LoadOptions<D> = {}): Promise<Session<D>> {
  return typeof input === "string"
    ? loadSession({ kind: "file", path: input }, options)
    : loadSession({ kind: "stream", name: options.name ?? "-", stream: input }, options);
}

/** The library's default opener: files only, read-only. */
export const openFile: OpenSession = <D extends Detail = "full">(file: string, opts: Pick<LoadOptions<D>, "detail" | "onEntry"> = {}) =>
  openSession<D>(file, {
    ...(opts.detail !== undefined ? { detail: opts.detail } : {}),
    ...(opts.onEntry !== undefined ? { onEntry: opts.onEntry } : {}),
  });

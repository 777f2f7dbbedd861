import type { Readable } from "node:stream";
import { loadSession, type LoadOptions } from "../model/load.js";
import type { Session } from "../model/session.js";

/** How a report that takes file names opens them: the CLI passes its own (stdin for "-", progress, one-line errors). */
export type OpenSession = (file: string, opts?: Pick<LoadOptions, "detail" | "onEntry">) => Promise<Session>;

/** Opens a session file (read-only, streamed) or a readable stream and builds its index. */
export async function openSession(input: string | Readable, options: LoadOptions = {}): Promise<Session> {
  return typeof input === "string"
    ? loadSession({ kind: "file", path: input }, options)
    : loadSession({ kind: "stream", name: options.name ?? "-", stream: input }, options);
}

/** The library's default opener: files only, read-only. */
export const openFile: OpenSession = (file, opts = {}) =>
  openSession(file, {
    ...(opts.detail !== undefined ? { detail: opts.detail } : {}),
    ...(opts.onEntry !== undefined ? { onEntry: opts.onEntry } : {}),
  });

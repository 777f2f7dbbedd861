import { fstatSync, statSync, writeSync } from "node:fs";

/**
 * stdout where it is a regular file or /dev/null (`> out.json`, and every benchmark run): there Node's process.stdout
 * is a SyncWriteStream, one fs.writeSync per write, but making it loads Node's stream modules, ~10M instructions (an
 * eighth of a whole `node -e 0`). This writes the same bytes the same way without them. Such an output has no
 * reader to leave (no EPIPE), never asks to wait (no "drain") and is no terminal. A failed write throws where it was
 * made and is kept in `errored`, and the run ends with one line and exit 2 (cli.ts).
 */
class FileStdout {
  readonly isTTY = false;
  readonly columns = undefined;
  /** The error a write failed with (as a Node stream keeps it): the run then fails, however the error was caught. */
  errored: Error | null = null;
  write(chunk: string | Uint8Array, cb?: unknown): boolean {
    try {
      // Two calls for writeSync's two overloads (a string, a buffer): neither takes the union.
      if (typeof chunk === "string") writeSync(1, chunk);
      else writeSync(1, chunk);
    } catch (err) {
      this.errored ??= err as Error;
      throw err;
    }
    if (typeof cb === "function") cb();
    return true;
  }
  // The only events listened to are "error" (EPIPE) and "drain", neither of which a file or /dev/null emits.
  on(): this {
    return this;
  }
  off(): this {
    return this;
  }
}

/** A FileStdout where fd 1 is a regular file or /dev/null, else undefined (a terminal, a pipe, a socket, …). */
export function fileStdout(): NodeJS.WriteStream | undefined {
  try {
    const out = fstatSync(1);
    const isFile = out.isFile();
    if (!isFile && !out.isCharacterDevice()) return undefined;
    if (!isFile) {
      // The one character device known to be no terminal; a terminal needs Node's own stream.
      const devNull = statSync("/dev/null");
      if (out.rdev !== devNull.rdev || out.ino !== devNull.ino || out.dev !== devNull.dev) return undefined;
    }
  } catch {
    return undefined;
  }
  // Only the members FileStdout has are used of a run's stdout (write, isTTY, columns, on/off, errored).
  return new FileStdout() as unknown as NodeJS.WriteStream;
}

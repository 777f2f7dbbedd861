import type { Stats } from "node:fs";

/**
 * A path that names something other than a regular file: a FIFO (whose reader would wait for a writer forever), a
 * socket, a device or a folder. Thrown before any read; its message is the reason users see.
 */
export class NotRegularFile extends Error {
  readonly code = "ENOTREG";
  constructor(
    readonly path: string,
    st: Stats,
  ) {
    super(
      st.isDirectory()
        ? "is a directory (expected a session .jsonl file)"
        : `not a regular file (${fileKind(st)}); pisess reads only regular files`,
    );
  }
}

function fileKind(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  return "not a file";
}

/**
 * A file that became shorter than the snapshot being read of it (pi rewrites a v1/v2 file in place when it opens
 * it): what was read is no longer the file, so every command stops on it rather than answer from a mix.
 */
export class FileShrank extends Error {
  readonly code = "ESHRANK";
  constructor(
    readonly path: string,
    offset: number,
  ) {
    super(`file shrank while being read (offset ${offset})`);
  }
}

/** Throws NotRegularFile unless `st` is a regular file's. */
export function assertRegular(path: string, st: Stats): void {
  if (!st.isFile()) throw new NotRegularFile(path, st);
}

/** An I/O failure as the one-line reason users see ("no such file", "permission denied", …). */
export function ioReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ENOSPC":
      return "no space left on device";
    case "ENOTREG":
    case "ESHRANK":
      return (e as Error).message;
    default:
      return e instanceof Error ? e.message : String(err);
  }
}

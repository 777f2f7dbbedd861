import { createHash } from "node:crypto";
import { closeSync, readSync, realpathSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { PiEnv } from "./discover.js";
import { openRegularSync } from "./fsp.js";

/**
 * What `pisess index` needs of a file's bytes and of the cache folder: the marks that tell an unchanged, grown or
 * rewritten session apart without loading it, and where the index database lives (never beside sessions).
 */

/** A header line longer than this is fingerprinted by its first bytes (a header is a few hundred bytes). */
const HEADER_LIMIT = 64 * 1024;
/** How far back from the end the last line end is looked for, a chunk at a time. */
const TAIL_CHUNK = 64 * 1024;

export interface FileMarks {
  size: number;
  mtimeMs: number;
  /** SHA-256 (hex, first 32) of the first line's bytes, its newline included when there is one. */
  fingerprint: string;
  /** Byte offset just after the last newline: where a read of what is appended would start. */
  lastLineEnd: number;
  /**
   * Given `resumeAt` (where an earlier read stopped, just after a newline): whether the byte before it is still a
   * newline, in a file now longer than that (the cheap check that the lines read before were not rewritten).
   */
  lineEndAt?: boolean;
  /**
   * The file's size, mtime, identity and change time (device, inode, ctime): no write, rename onto it or replacement
   * leaves them all as they were (no program can set ctime back), so while they stay, the bytes do.
   */
  statId: string;
}

function statIdOf(st: Stats): string {
  return `${st.size}:${st.mtimeMs}:${st.dev}:${st.ino}:${st.ctimeMs}`;
}

/**
 * The file's size and mtime when it is still as it was read (the same statId), from one stat, without opening it. Opening 10,000 files to read their headers was most of an update that found nothing.
 */
export function unchangedSince(path: string, statId: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = statSync(path);
    return st.isFile() && statIdOf(st) === statId ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/** A "/", then nothing, ".", or "..", then a "/" or the end: a path with one is not in resolve's form. */
const NOT_NORMAL = /\/\.{0,2}(?:\/|$)/;

/**
 * resolve(cwd, p), without its work where `p` is already absolute and normal (every file a listing of an absolute
 * folder gives): resolve's own JavaScript, on each of 10,000 paths, was 10-20 ms of an update that found nothing.
 */
export function absolutePath(cwd: string, p: string): string {
  return sep === "/" && p.charCodeAt(0) === 0x2f && !NOT_NORMAL.test(p) ? p : resolve(cwd, p);
}

/** A header is a few hundred bytes: this much is read first, and more (up to HEADER_LIMIT) only without a newline. */
const HEADER_FIRST = 4096;

function readAt(fd: number, buf: Buffer, from: number, to: number): number {
  let n = from;
  while (n < to) {
    const got = readSync(fd, buf, n, to - n, n);
    if (got === 0) break;
    n += got;
  }
  return n;
}

/** One buffer for every header read (the reads are synchronous): a new 64 KB per file was a third of a scan. */
let headerBuf: Buffer | undefined;

function headerFingerprint(fd: number, size: number): string {
  headerBuf ??= Buffer.allocUnsafe(HEADER_LIMIT);
  const buf = headerBuf.subarray(0, Math.min(size, HEADER_LIMIT));
  let n = readAt(fd, buf, 0, Math.min(buf.length, HEADER_FIRST));
  let nl = buf.subarray(0, n).indexOf(0x0a);
  if (nl === -1 && n < buf.length) {
    n = readAt(fd, buf, n, buf.length);
    nl = buf.subarray(0, n).indexOf(0x0a);
  }
  return createHash("sha256")
    .update(buf.subarray(0, nl === -1 ? n : nl + 1))
    .digest("hex")
    .slice(0, 32);
}

/** The last byte, then (when it is not a newline) the tail a chunk at a time, into buffers kept between files. */
let lastByte: Buffer | undefined;
let tailBuf: Buffer | undefined;

function lastLineEnd(fd: number, size: number): number {
  // A session almost always ends in a newline: one byte tells. A 64 KB read (into a new buffer) for each file was
  // three quarters of the marks of a first build (10,000 sessions: 275 -> 73 ms).
  lastByte ??= Buffer.allocUnsafe(1);
  if (size > 0 && readSync(fd, lastByte, 0, 1, size - 1) === 1 && lastByte[0] === 0x0a) return size;
  tailBuf ??= Buffer.allocUnsafe(TAIL_CHUNK);
  const buf = tailBuf;
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - TAIL_CHUNK);
    const n = readSync(fd, buf, 0, end - start, start);
    const nl = buf.subarray(0, n).lastIndexOf(0x0a);
    if (nl !== -1) return start + nl + 1;
    end = start;
  }
  return 0;
}

/**
 * A session file's marks, read through one read-only descriptor (sizes as its fstat gives them). `known`: the marks
 * of the last run; when the size and mtime are still those, its last line end is too (the end is not read again).
 */
export function fileMarks(
  path: string,
  known?: { size: number; mtimeMs: number; lastLineEnd: number; resumeAt?: number | null },
): FileMarks {
  const { fd, st } = openRegularSync(path);
  try {
    const same = known !== undefined && known.size === st.size && known.mtimeMs === st.mtimeMs;
    const end = same ? known.lastLineEnd : lastLineEnd(fd, st.size);
    const marks: FileMarks = {
      size: st.size,
      mtimeMs: st.mtimeMs,
      fingerprint: headerFingerprint(fd, st.size),
      lastLineEnd: end,
      statId: statIdOf(st),
    };
    const at = known?.resumeAt;
    // Only for a file that changed or ended in a held-back line: an unchanged file is not read again.
    if ((!same || known.lastLineEnd !== known.size) && typeof at === "number" && at > 0 && st.size > at) {
      const b = Buffer.alloc(1);
      marks.lineEndAt = readSync(fd, b, 0, 1, at - 1) === 1 && b[0] === 0x0a;
    }
    return marks;
  } finally {
    closeSync(fd);
  }
}

/** `$XDG_CACHE_HOME/pisess`, else `~/.cache/pisess`. */
export function cacheDir(env: PiEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg?.startsWith("/")) return join(xdg, "pisess");
  return join(env.HOME || homedir(), ".cache", "pisess");
}

/** The default index database. */
export function defaultIndexPath(env: PiEnv): string {
  return join(cacheDir(env), "index.duckdb");
}

/** Whether an index database is there (a regular file). */
export function indexExists(db: string): boolean {
  try {
    return statSync(db).isFile();
  } catch {
    return false;
  }
}

/** The real path of `p`, or of its nearest existing ancestor with the rest appended (a path yet to be made). */
function realish(p: string): string {
  let head = resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), rest.reverse().join(sep));
    } catch {
      const up = dirname(head);
      if (up === head) return resolve(p);
      rest.push(head.slice(up.length + (up.endsWith(sep) ? 0 : 1)));
      head = up;
    }
  }
}

/** Whether `p` is `dir` or inside it, both taken as real paths (symbolic links followed). */
export function isInside(p: string, dir: string): boolean {
  const r = relative(realish(dir), realish(p));
  return r === "" || (!r.startsWith("..") && !r.startsWith(sep) && r !== "..");
}

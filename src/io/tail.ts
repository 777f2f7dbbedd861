import { type FSWatcher, readSync, watch } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { assertRegular, FileShrank } from "./errors.js";
import { READ_FLAGS } from "./fsp.js";
import { type HeldTail, LineSplitter, type RawLine } from "./scan/index.js";

/**
 * Opens a followed file: never blocking in open (READ_FLAGS), and refusing anything but a regular file, so that a
 * FIFO can never hold the tail (and with it --until-idle and the signals) in an open or read that waits forever.
 */
async function openFollowed(path: string): Promise<{ fh: FileHandle; ino: number }> {
  const fh = await open(path, READ_FLAGS);
  try {
    const st = await fh.stat();
    assertRegular(path, st);
    return { fh, ino: st.ino };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** What reading the new bytes of a followed file found, in order. */
export type TailEvent =
  /** A complete line (never a part of one: an unfinished line is held until its newline arrives). */
  | { kind: "line"; raw: RawLine }
  /**
   * The file was cut shorter than what was read, rewritten, or replaced by another file (new inode): it is read
   * again from its start. `held`: the unfinished line of the old content, which will never complete.
   */
  | { kind: "reset"; reason: "truncated" | "replaced"; held: HeldTail | null }
  /** The path no longer exists (seen twice, one wait apart). Nothing more is read. */
  | { kind: "gone"; held: HeldTail | null };

/**
 * One file a tail opened, read back by offset through the tail's own descriptor: the bytes of the file whose lines
 * the tail split, even once the path names another file. The tail closes it (after the batch that replaced it has
 * been handled: see FileTail.read); a read after that throws rather than read whatever the descriptor names then.
 */
export class TailFile {
  private closed = false;
  constructor(
    readonly path: string,
    readonly fh: FileHandle,
  ) {}

  /** The text of bytes [offset, offset + length) of this file. */
  text(offset: number, length: number): string {
    if (this.closed) throw new Error(`${this.path}: read back after the file was replaced and closed`);
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fh.fd, buf, done, length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    if (done < length) throw new FileShrank(this.path, offset + done);
    return buf.toString("utf8");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.fh.close();
  }
}

const CHUNK = 1 << 16;
/** At most this many bytes per read(): a big file is taken in steps, so a batch of lines never holds all of it. */
const MAX_READ = 4 << 20;

/**
 * Follows a file as another program appends to it: each read() reads only the bytes added since the last one,
 * from the descriptor it holds, and splits them into complete lines (UTF-8 decoded once the whole line is in, so a
 * character split between two writes is never decoded half). Opens read-only; never writes.
 *
 * Changes are noticed through fs.watch where the platform offers it, and by polling in any case (fs.watch misses
 * a replaced file and is not available on every file system): wait() returns at the first of a watch event, the
 * poll interval, or an abort.
 */
export class FileTail {
  private splitter: LineSplitter;
  private batch: TailEvent[] = [];
  /** Bytes of the current file consumed (complete lines and the held unfinished one). */
  private offset = 0;
  /** The last byte consumed, to notice a rewrite that leaves the file at least as long. */
  private lastByte = -1;
  private lastMtime = -1;
  private missing = 0;
  /** The file's size at the last look. */
  private size = 0;
  private watcher: FSWatcher | null = null;
  private wake: (() => void) | null = null;
  private changed = false;
  private readonly buf = Buffer.allocUnsafe(CHUNK);
  private file: TailFile;
  /** Files replaced by the current one, closed at the next read (their lines may still be read back until then). */
  private retired: TailFile[] = [];

  private constructor(
    readonly path: string,
    fh: FileHandle,
    private ino: number,
    private readonly useWatch: boolean,
  ) {
    this.file = new TailFile(path, fh);
    this.splitter = this.newSplitter();
    this.arm();
  }

  static async open(path: string, opts: { watch?: boolean } = {}): Promise<FileTail> {
    const { fh, ino } = await openFollowed(path);
    return new FileTail(path, fh, ino, opts.watch !== false);
  }

  private newSplitter(): LineSplitter {
    return new LineSplitter((raw) => this.batch.push({ kind: "line", raw }));
  }

  /** The file whose lines the last read() ended with: where their offsets point. */
  get current(): TailFile {
    return this.file;
  }

  /** The unfinished line held now, if any. */
  held(): HeldTail | null {
    return this.splitter.held();
  }

  /** The last read stopped short of the file's size (MAX_READ): call read() again without waiting. */
  get behind(): boolean {
    return this.offset < this.size;
  }

  /** Reads what was appended since the last call (everything, on the first). */
  async read(): Promise<TailEvent[]> {
    await this.closeRetired();
    this.batch = [];
    this.changed = false;
    let pathIno: number | null = null;
    try {
      pathIno = (await stat(this.path)).ino;
      this.missing = 0;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      this.missing++;
    }
    await this.drain();
    // A replaced file is read to its end before the new one is opened (its last lines come first).
    if (pathIno !== null && pathIno !== this.ino) while (this.behind) await this.drain();
    if (pathIno === null) {
      if (this.missing >= 2) this.batch.push({ kind: "gone", held: this.splitter.held() });
    } else if (pathIno !== this.ino) {
      let opened: { fh: FileHandle; ino: number };
      try {
        // A file replaced by a FIFO (or anything else) stops the follow with its reason, as at the start.
        opened = await openFollowed(this.path);
      } catch (err) {
        // Replaced, then removed before it could be opened: gone, as a missing path is (the next read says so).
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        this.missing++;
        return this.batch;
      }
      this.batch.push({ kind: "reset", reason: "replaced", held: this.splitter.held() });
      // Not closed yet: the lines of this batch from the old file are read back through it.
      this.retired.push(this.file);
      this.file = new TailFile(this.path, opened.fh);
      this.ino = opened.ino;
      this.restart();
      this.disarm();
      this.arm();
      await this.drain();
    }
    return this.batch;
  }

  private restart(): void {
    this.splitter = this.newSplitter();
    this.offset = 0;
    this.size = 0;
    this.lastByte = -1;
    this.lastMtime = -1;
  }

  /** Reads the held descriptor from the offset to its current size (noticing a truncation or rewrite first). */
  private async drain(): Promise<void> {
    const st = await this.file.fh.stat();
    if (
      st.size < this.offset ||
      (st.mtimeMs !== this.lastMtime && this.offset > 0 && (await this.byteAt(this.offset - 1)) !== this.lastByte)
    ) {
      this.batch.push({ kind: "reset", reason: "truncated", held: this.splitter.held() });
      this.restart();
    }
    this.lastMtime = st.mtimeMs;
    this.size = st.size;
    const size = Math.min(st.size, this.offset + MAX_READ);
    while (this.offset < size) {
      const { bytesRead } = await this.file.fh.read(this.buf, 0, Math.min(CHUNK, size - this.offset), this.offset);
      if (bytesRead === 0) break;
      this.splitter.push(this.buf.subarray(0, bytesRead));
      this.offset += bytesRead;
      this.lastByte = this.buf[bytesRead - 1] as number;
    }
  }

  private async byteAt(pos: number): Promise<number> {
    const one = Buffer.alloc(1);
    const { bytesRead } = await this.file.fh.read(one, 0, 1, pos);
    return bytesRead === 1 ? (one[0] as number) : -1;
  }

  private arm(): void {
    if (!this.useWatch) return;
    try {
      this.watcher = watch(this.path, { persistent: true }, () => this.notify());
      // A watch that fails later (file gone, too many watches) leaves the polling to notice changes.
      this.watcher.on("error", () => this.disarm());
    } catch {
      this.watcher = null;
    }
  }

  private disarm(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  private notify(): void {
    this.changed = true;
    this.wake?.();
  }

  /** Waits for a change: a watch event, `ms` elapsed, or `signal` aborted, whichever comes first. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.changed || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done);
      this.wake = done;
    });
  }

  private async closeRetired(): Promise<void> {
    for (const f of this.retired) await f.close();
    this.retired = [];
  }

  async close(): Promise<void> {
    this.disarm();
    await this.closeRetired();
    await this.file.close();
  }
}

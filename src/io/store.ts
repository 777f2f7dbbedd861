import { closeSync, openSync, readSync } from "node:fs";

/** Bytes read at once when a caller walks the file forward line by line (validate, export); small, as many sessions may be open. */
const WINDOW = 64 << 10;

/**
 * Reads byte ranges of a file back, read-only, through one lazily opened descriptor. Short ranges are served from a
 * window read ahead of them, so a walk over every line in file order costs one read per megabyte rather than one
 * per line (a million-entry session: a million system calls). A reader of a file that may be rewritten under it
 * (follow) turns the window off.
 */
export class FileRangeReader {
  private fd: number | null = null;
  private window: Buffer | null = null;
  private windowStart = 0;
  private windowEnd = 0;

  constructor(
    private readonly path: string,
    private readonly readAhead = true,
  ) {}

  read(offset: number, length: number): string {
    if (this.fd === null) this.fd = openSync(this.path, "r");
    if (!this.readAhead || length > WINDOW >> 2) return this.direct(offset, length);
    if (offset < this.windowStart || offset + length > this.windowEnd) this.fill(offset, length);
    const w = this.window as Buffer;
    return w.toString("utf8", offset - this.windowStart, offset - this.windowStart + length);
  }

  private fill(offset: number, length: number): void {
    this.window ??= Buffer.allocUnsafe(WINDOW);
    const fd = this.fd as number;
    let done = 0;
    while (done < WINDOW) {
      const n = readSync(fd, this.window, done, WINDOW - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    this.windowStart = offset;
    this.windowEnd = offset + done;
    if (done < length) {
      this.windowEnd = 0;
      throw new Error(`${this.path}: file shrank while being read (offset ${offset + done})`);
    }
  }

  private direct(offset: number, length: number): string {
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd as number, buf, done, length - done, offset + done);
      if (n === 0) throw new Error(`${this.path}: file shrank while being read (offset ${offset + done})`);
      done += n;
    }
    return buf.toString("utf8");
  }

  close(): void {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    this.window = null;
    this.windowStart = this.windowEnd = 0;
  }
}

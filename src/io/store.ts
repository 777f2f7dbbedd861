import { closeSync, openSync, readSync } from "node:fs";

/** Reads byte ranges of a file back, read-only, through one lazily opened descriptor. */
export class FileRangeReader {
  private fd: number | null = null;

  constructor(private readonly path: string) {}

  read(offset: number, length: number): string {
    if (this.fd === null) this.fd = openSync(this.path, "r");
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, buf, done, length - done, offset + done);
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
  }
}

import { closeSync, readSync } from "node:fs";
import { FileShrank } from "./errors.js";
import { openRegularSync } from "./fsp.js";
import { giveReadRegion, READ_REGION_SIZE, readRegionAgain, takeReadRegion } from "./scan/index.js";

/** Bytes read at once when reads walk forward through the file (a path, a context, a diff, in file order). */
const WINDOW = 1 << 18;

/**
 * Reads byte ranges of a file back, read-only, through one lazily opened descriptor. Reads that walk forward are
 * served from a window read ahead of them, so a walk over every line in file order (validate, a million-entry path)
 * costs one system call per window rather than one per line. A reader of a file that may be rewritten under it
 * (follow) turns the window off.
 */
export class FileRangeReader {
  private fd: number | null = null;
  /** The last window read ahead: bytes [winStart, winStart + winLength) of the file. */
  private win: Buffer | null = null;
  /**
   * Whether win is the skeleton scanner's read region (io/scan takeReadRegion), taken when no line reader holds it:
   * the lines read back there are scanned where they are (a context's messages, each scanned for its stand-in and
   * its form, were copied into the scanner's memory twice each). Given back at close.
   */
  private inRegion = false;
  private winStart = 0;
  private winLength = 0;
  /** Where the previous read ended: a read starting at or shortly after it is part of a forward walk. */
  private lastEnd = -1;

  constructor(
    private readonly path: string,
    private readonly readAhead = true,
  ) {}

  read(offset: number, length: number): string {
    return this.readBytes(offset, length).toString("utf8");
  }

  /** The bytes of the range: a view of the read-ahead window (valid until the next read) or a buffer of their own. */
  readBytes(offset: number, length: number): Buffer {
    if (this.fd === null) this.fd = openRegularSync(this.path).fd;
    // The scanner's memory grew since (a copy of a long line): the region's old Buffer is detached, its bytes stay.
    if (this.inRegion && this.win !== null && this.win.length === 0) this.win = readRegionAgain();
    const win = this.win;
    if (win !== null && offset >= this.winStart && offset + length <= this.winStart + this.winLength) {
      this.lastEnd = offset + length;
      return win.subarray(offset - this.winStart, offset - this.winStart + length);
    }
    // A million small reads in file order cost a system call each; read ahead once the reads walk forward.
    // Scattered reads (a tree's jumps) keep reading exactly what they need.
    const forward = this.lastEnd >= 0 && offset >= this.lastEnd && offset - this.lastEnd < WINDOW;
    this.lastEnd = offset + length;
    if (this.readAhead && forward && length < WINDOW) {
      this.win ??= this.window();
      // WINDOW bytes, also of the larger region: a read ahead reads ahead this much whatever holds it.
      const got = this.fill(this.win, 0, WINDOW, offset, length);
      this.winStart = offset;
      this.winLength = got;
      return this.win.subarray(0, length);
    }
    const buf = Buffer.allocUnsafe(length);
    this.fill(buf, 0, length, offset, length);
    return buf;
  }

  /** Reads up to `want` bytes at `offset` into `buf`; at least `need` of them (fewer only at the end of the file). */
  private fill(buf: Buffer, at: number, want: number, offset: number, need: number): number {
    let done = 0;
    while (done < want) {
      const n = readSync(this.fd as number, buf, at + done, want - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    if (done < need) throw new FileShrank(this.path, offset + done);
    return done;
  }

  /** The window's buffer: the scanner's read region where it is free, else one of its own. */
  private window(): Buffer {
    const region = takeReadRegion(READ_REGION_SIZE);
    this.inRegion = region !== null;
    return region ?? Buffer.allocUnsafe(WINDOW);
  }

  close(): void {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    if (this.inRegion) {
      this.inRegion = false;
      this.win = null;
      giveReadRegion();
    }
  }
}

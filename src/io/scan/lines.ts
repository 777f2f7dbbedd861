import { closeSync, fstatSync, readSync } from "node:fs";
import { isAscii, isUtf8 } from "node:buffer";
import type { Readable } from "node:stream";
import { assertRegular, FileShrank } from "../errors.js";
import { fsp, openRegularSync, READ_FLAGS } from "../fsp.js";
import { giveReadRegion, readRegionAgain, takeReadRegion } from "./skeleton.js";

/**
 * One physical line of a JSONL file. Lines are split on "\n" only: U+2028/U+2029 are legal inside JSON strings,
 * and a multi-byte UTF-8 sequence never contains the byte 0x0A, so decoding each line on its own is exact even
 * when the line straddled two chunks.
 */
export interface RawLine {
  /** 1-based physical line number. */
  line: number;
  /** Byte offset of the first byte of the line (after the BOM on line 1) in the source. */
  offset: number;
  /** Number of content bytes, without the "\n" and without a trailing "\r". */
  length: number;
  /** Decoded text (invalid UTF-8 becomes U+FFFD, as Node and pi decode it). */
  text: string;
  /** The line ended in "\r\n". */
  crlf: boolean;
  /** The line had no terminating "\n" (only ever the last line). */
  unterminated: boolean;
  /** The bytes were not valid UTF-8. */
  invalidUtf8: boolean;
  /**
   * The content bytes (no "\r\n"). Only set by a splitter made with `{ lazyText: true }`, and only valid during
   * the sink call: the buffer may be a view into a chunk that is reused afterwards.
   */
  bytes?: Buffer;
  /** The content bytes are pure ASCII (set with `lazyText`). */
  ascii?: boolean;
}

/**
 * Lower-level sink (readLineBytes): the line's content bytes are `buf[start, end)` (no "\r\n"), valid only during the call (the
 * chunk is reused afterwards). `flags` holds LINE_CRLF, LINE_UNTERMINATED and LINE_INVALID_UTF8. No object is made
 * per line.
 */
type ByteLineSink = (buf: Buffer, start: number, end: number, line: number, offset: number, flags: number) => void;
export const LINE_CRLF = 1;
export const LINE_UNTERMINATED = 2;
export const LINE_INVALID_UTF8 = 4;

interface SplitterOptions {
  /**
   * Decode `text` only when it is first read, from `bytes` (which must then be read during the sink call). Lets a
   * consumer look at the bytes of a long line without decoding it.
   */
  lazyText?: boolean;
}

/** A line whose text is decoded on first access. */
export class LazyLine implements RawLine {
  private decoded: string | undefined = undefined;
  constructor(
    readonly line: number,
    readonly offset: number,
    readonly length: number,
    readonly crlf: boolean,
    readonly unterminated: boolean,
    readonly invalidUtf8: boolean,
    readonly bytes: Buffer,
    readonly ascii: boolean,
  ) {}
  get text(): string {
    if (this.decoded === undefined) this.decoded = this.bytes.toString(this.ascii ? "latin1" : "utf8");
    return this.decoded;
  }
}

export interface LineSourceFacts {
  bom: boolean;
  /** Bytes read (the snapshot, cut at its last complete line when a live tail was held back). */
  bytes: number;
  lines: number;
  finalNewline: boolean;
  /** The unterminated last line of a live file, left out of the snapshot (see LIVE_WINDOW_MS). */
  heldTail?: HeldTail;
  /** A file's size and modification time as it was opened (not for a stream): no caller needs to stat it again. */
  stat?: FileStat;
}

export interface FileStat {
  size: number;
  mtimeMs: number;
}

/** An incomplete last line that was not read as a line: its would-be number, byte offset and length. */
export interface HeldTail {
  line: number;
  offset: number;
  length: number;
}

/**
 * The snapshot rule. A file is read up to the size it had when reading began (bytes appended meanwhile are not
 * read). If it was modified less than LIVE_WINDOW_MS before that moment, it is taken to be one a program (pi) is
 * still writing: an unterminated last line is a write in progress, so it is held back (cut at the last complete
 * line) and reported as `heldTail` instead of being read as a line. An older file's unterminated last line is read
 * as usual (a crash or a full disk left it; the loader reports it if it does not parse). A file that ends before its
 * snapshot size, or is shorter than it once read, shrank while being read (pi rewrites v1/v2 files in place): the
 * read throws FileShrank, for every command alike (the store's reads back throw it too).
 */
export const LIVE_WINDOW_MS = 5000;

export interface SnapshotOptions {
  /** The time (ms since the epoch) the file's mtime is compared with; default: the clock when the file is opened. */
  now?: number;
}

/**
 * Where a read of a file's appended bytes starts: just after a line end an earlier read reached (`offset`, the lines
 * before it `line`, and whether that read found a BOM), so that lines, offsets and facts are a whole read's.
 */
export interface LineStart {
  offset: number;
  line: number;
  bom: boolean;
}

/**
 * For tests only: called with the path once a snapshot's size is taken and before its bytes are read, so that a
 * test can grow the file at the worst moment. Null otherwise.
 */
export const snapshotHook: { afterSize: ((path: string) => void) | null } = { afterSize: null };

/** Whether a file modified at `mtimeMs` counts as being written at `now` (a clock set back counts as live). */
function isLive(mtimeMs: number, now: number): boolean {
  return now - mtimeMs < LIVE_WINDOW_MS;
}

type LineSink = (line: RawLine) => void;

const NL = 0x0a;
const CR = 0x0d;

/**
 * The one line splitter: bytes go into its buffer (a file is read straight into it, a stream's chunks are copied in)
 * and each complete line goes to the sink as a byte range of that buffer, valid during the call. The unfinished line
 * is moved to the front between reads; the buffer grows for a longer line.
 */
class LineCutter {
  buf: Buffer;
  /** buf[0, filled) holds the unfinished line (and, before the BOM check, the first bytes). */
  filled = 0;
  /** Source offset of buf[0]. */
  private base = 0;
  private lineNo = 0;
  private bomChecked = false;
  /** Bytes after the BOM. */
  private content = 0;
  readonly facts: LineSourceFacts = { bom: false, bytes: 0, lines: 0, finalNewline: false };

  /** Whether buf is the skeleton scanner's read region (skeleton.ts takeReadRegion): lines are scanned where read. */
  private inRegion: boolean;

  constructor(
    private readonly sink: ByteLineSink,
    private readonly size: number,
    start?: LineStart,
  ) {
    const region = takeReadRegion(size);
    this.inRegion = region !== null;
    this.buf = region ?? takeBuffer(size);
    if (start !== undefined && start.offset > 0) {
      this.base = start.offset;
      this.lineNo = start.line;
      this.bomChecked = true;
      this.facts.bom = start.bom;
      this.facts.bytes = start.offset;
      // Content before the start: a line ended there.
      this.content = 1;
    }
  }

  /**
   * The read region again where the scanner's memory grew since (its old Buffer is then detached, of length 0; the
   * bytes are where they were). No scan of a line read there grows it; anything else in the same thread might.
   */
  private current(): Buffer {
    if (this.inRegion && this.buf.length === 0) this.buf = readRegionAgain();
    return this.buf;
  }

  /** Free room at buf[filled…], grown when there is none. */
  room(): number {
    const buf = this.current();
    if (this.filled === buf.length) {
      const bigger = Buffer.allocUnsafeSlow(buf.length * 2);
      buf.copy(bigger, 0, 0, this.filled);
      this.buf = bigger;
      if (this.inRegion) {
        this.inRegion = false;
        giveReadRegion();
      }
    }
    return this.buf.length - this.filled;
  }

  /** `n` bytes were written at buf[filled…]: emits the lines they complete. */
  took(n: number): void {
    this.current();
    this.facts.bytes += n;
    const end = this.filled + n;
    let start = 0;
    if (!this.bomChecked) {
      // The BOM can in principle be split across the first reads: bytes that may begin one wait for the rest.
      const b = this.buf;
      if (end < 3 && (end === 0 || (b[0] === 0xef && (end < 2 || b[1] === 0xbb)))) {
        this.filled = end;
        return;
      }
      start = this.checkBom(end);
    } else this.content += n;
    const from = this.lines(start, end);
    if (from > 0) {
      const buf = this.current();
      buf.copy(buf, 0, from, end);
      this.base += from;
    }
    this.filled = end - from;
  }

  /** Checks for a BOM at the start; returns where the content starts. */
  private checkBom(end: number): number {
    this.bomChecked = true;
    const b = this.buf;
    const bom = end >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
    this.facts.bom = bom;
    this.content += end - (bom ? 3 : 0);
    return bom ? 3 : 0;
  }

  /** Emits the complete lines of buf[start, end); returns where the unfinished line starts. */
  private lines(start: number, end: number): number {
    let buf = this.buf;
    const last = end > start ? buf.lastIndexOf(NL, end - 1) : -1;
    let from = start;
    if (last < start) return from;
    const wholeValid = isUtf8(buf.subarray(start, last));
    let nl = buf.indexOf(NL, start);
    while (nl !== -1 && nl <= last) {
      this.lineNo++;
      let flags = 0;
      let stop = nl;
      if (stop > from && buf[stop - 1] === CR) {
        stop--;
        flags |= LINE_CRLF;
      }
      if (!wholeValid && !isUtf8(buf.subarray(from, stop))) flags |= LINE_INVALID_UTF8;
      this.sink(buf, from, stop, this.lineNo, this.base + from, flags);
      buf = this.current();
      from = nl + 1;
      nl = from <= last ? buf.indexOf(NL, from) : -1;
    }
    return from;
  }

  /** Where the unfinished line starts in buf (past a BOM still at the front). */
  private tailFrom(): number {
    return this.base === 0 && this.facts.bom ? 3 : 0;
  }

  /** The unfinished line held so far (bytes after the last newline), or null when there is none. */
  held(): HeldTail | null {
    const from = this.bomChecked ? this.tailFrom() : 0;
    if (this.filled - from <= 0) return null;
    return { line: this.lineNo + 1, offset: this.base + from, length: this.filled - from };
  }

  /**
   * Ends the source. With `holdTail`, an unfinished last line is not emitted but described in `facts.heldTail`
   * (and left out of `facts.bytes`).
   */
  end(holdTail: boolean): LineSourceFacts {
    this.current();
    const facts = this.facts;
    const end = this.filled;
    const from = this.bomChecked ? this.tailFrom() : this.lines(this.checkBom(end), end);
    if (from < end && holdTail) {
      facts.heldTail = { line: this.lineNo + 1, offset: this.base + from, length: end - from };
      facts.bytes -= end - from;
      facts.finalNewline = this.lineNo > 0;
    } else if (from < end) {
      this.lineNo++;
      let flags = LINE_UNTERMINATED;
      let stop = end;
      if (this.buf[stop - 1] === CR) {
        stop--;
        flags |= LINE_CRLF;
      }
      if (!isUtf8(this.buf.subarray(from, stop))) flags |= LINE_INVALID_UTF8;
      this.sink(this.buf, from, stop, this.lineNo, this.base + from, flags);
      facts.finalNewline = false;
    } else facts.finalNewline = this.content > 0;
    facts.lines = this.lineNo;
    this.filled = 0;
    return facts;
  }

  /** Hands the buffer on to the next file (once, after the last sink call). */
  release(): void {
    if (this.inRegion) {
      this.inRegion = false;
      giveReadRegion();
    } else giveBuffer(this.buf, this.size);
  }
}

/**
 * Feeds a stream's chunks to the line cutter and emits each line as a RawLine (with `lazyText`, its bytes are a copy:
 * the cutter's buffer is reused).
 */
export class LineSplitter {
  private readonly cutter: LineCutter;
  readonly facts: LineSourceFacts;

  constructor(sink: LineSink, options: SplitterOptions = {}) {
    const lazy = options.lazyText === true;
    this.cutter = new LineCutter((buf, start, stop, line, offset, flags) => {
      const content = buf.subarray(start, stop);
      // Pure-ASCII lines decode faster as latin1; the check is one native scan.
      const ascii = isAscii(content);
      const crlf = (flags & LINE_CRLF) !== 0;
      const unterminated = (flags & LINE_UNTERMINATED) !== 0;
      const invalidUtf8 = (flags & LINE_INVALID_UTF8) !== 0;
      if (lazy) {
        sink(new LazyLine(line, offset, stop - start, crlf, unterminated, invalidUtf8, Buffer.from(content), ascii));
        return;
      }
      const text = content.toString(ascii ? "latin1" : "utf8");
      sink({ line, offset, length: stop - start, text, crlf, unterminated, invalidUtf8 });
    }, 1 << 16);
    this.facts = this.cutter.facts;
  }

  push(chunk: Buffer): void {
    const c = this.cutter;
    for (let off = 0; off < chunk.length; ) {
      const k = Math.min(c.room(), chunk.length - off);
      chunk.copy(c.buf, c.filled, off, off + k);
      off += k;
      c.took(k);
    }
  }

  /** The unfinished line held so far (bytes after the last newline), or null when there is none. */
  held(): HeldTail | null {
    return this.cutter.held();
  }

  /**
   * Ends the source. With `holdTail`, an unfinished last line is not emitted but described in `facts.heldTail`
   * (and left out of `facts.bytes`).
   */
  end(holdTail = false): LineSourceFacts {
    return this.cutter.end(holdTail);
  }
}

/** A file is opened read-only by path; anything else (stdin) comes as a stream. */
export type Source = { kind: "file"; path: string } | { kind: "stream"; name: string; stream: Readable };

/**
 * Streams a source and calls `sink` for every line; resolves with the facts about the whole source. A file is read
 * as a snapshot (LIVE_WINDOW_MS); a stream has no size or mtime and is read to its end.
 */
export async function readLines(
  source: Source,
  sink: LineSink,
  chunkSize = 1 << 20,
  options: SplitterOptions & SnapshotOptions = {},
): Promise<LineSourceFacts> {
  const splitter = new LineSplitter(sink, options);
  if (source.kind !== "file") {
    for await (const chunk of source.stream) {
      splitter.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : (chunk as Buffer));
    }
    return splitter.end();
  }
  const fh = await (await fsp()).open(source.path, READ_FLAGS);
  let live: boolean;
  try {
    const st = await fh.stat();
    assertRegular(source.path, st);
    splitter.facts.stat = { size: st.size, mtimeMs: st.mtimeMs };
    live = isLive(st.mtimeMs, options.now ?? Date.now());
    snapshotHook.afterSize?.(source.path);
    if (st.size > 0) {
      const stream = fh.createReadStream({ start: 0, end: st.size - 1, highWaterMark: chunkSize, autoClose: false });
      for await (const chunk of stream) splitter.push(chunk as Buffer);
    }
    if (splitter.facts.bytes < st.size) throw new FileShrank(source.path, splitter.facts.bytes);
    const after = (await fh.stat()).size;
    if (after < st.size) throw new FileShrank(source.path, after);
  } finally {
    await fh.close();
  }
  return splitter.end(live);
}

/**
 * Reads a file line by line into one reused buffer (grown for a longer line) and passes each line as a byte range
 * of it (the line cutter's): no chunk, copy or object per line.
 */
export async function readLineBytes(
  path: string,
  sink: ByteLineSink,
  chunkSize = 1 << 20,
  options: SnapshotOptions = {},
  start?: LineStart,
): Promise<LineSourceFacts> {
  // Synchronous open, stat and close: through promises they cost several times the CPU, which counts when a fleet
  // command reads ten thousand files (the reads themselves were already synchronous).
  const { fd, st } = openRegularSync(path);
  const cutter = new LineCutter(sink, chunkSize, start);
  try {
    cutter.facts.stat = { size: st.size, mtimeMs: st.mtimeMs };
    const live = isLive(st.mtimeMs, options.now ?? Date.now());
    snapshotHook.afterSize?.(path);
    const from = start?.offset ?? 0;
    if (st.size < from) throw new FileShrank(path, st.size);
    /** Bytes of the snapshot not read yet, and where the next read starts. */
    let left = st.size - from;
    let at = from;
    let reads = 0;
    while (left > 0) {
      const room = cutter.room();
      // Synchronous reads: waiting on the thread pool for every chunk costs more than the copy itself. The event
      // loop still gets a turn every few chunks.
      const bytesRead = readSync(fd, cutter.buf, cutter.filled, Math.min(room, left), at);
      at += bytesRead;
      if (bytesRead === 0) throw new FileShrank(path, st.size - left);
      left -= bytesRead;
      if (++reads % 16 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      cutter.took(bytesRead);
    }
    const facts = cutter.end(live);
    // Shortened after its bytes were read (one fstat): the lines read are not the file's any more.
    const after = fstatSync(fd).size;
    if (after < st.size) throw new FileShrank(path, after);
    return facts;
  } finally {
    closeSync(fd);
    cutter.release();
  }
}

/**
 * Read buffers of finished readLineBytes calls, kept for the next (one allocation per file keeps the GC busy over a
 * fleet). A sink never keeps a line's bytes beyond its call, so a buffer can be handed on once its read is done.
 */
const spare: Buffer[] = [];
const SPARE_MAX = 4;

function takeBuffer(size: number): Buffer {
  for (let i = spare.length - 1; i >= 0; i--) {
    const b = spare[i] as Buffer;
    if (b.length === size) {
      spare.splice(i, 1);
      return b;
    }
  }
  return Buffer.allocUnsafeSlow(size);
}

function giveBuffer(buf: Buffer, size: number): void {
  // A buffer grown for a long line goes back to the GC.
  if (buf.length === size && spare.length < SPARE_MAX) spare.push(buf);
}

import { closeSync, fstatSync, readSync } from "node:fs";
import { isAscii, isUtf8 } from "node:buffer";
import type { Readable } from "node:stream";
import { assertRegular, FileShrank } from "../errors.js";
import { fsp, openRegularSync, READ_FLAGS } from "../fsp.js";

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

/** Feeds chunks and emits lines; keeps the bytes of an unfinished line between chunks. */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private lineNo = 0;
  private lineStart = 0;
  private sawAnyByte = false;
  private bomChecked = false;
  readonly facts: LineSourceFacts = { bom: false, bytes: 0, lines: 0, finalNewline: false };

  private readonly lazy: boolean;

  constructor(
    private readonly sink: LineSink,
    options: SplitterOptions = {},
  ) {
    this.lazy = options.lazyText === true;
  }

  push(chunk: Buffer): void {
    let data = chunk;
    this.facts.bytes += chunk.length;
    if (!this.bomChecked) {
      // The BOM can in principle be split across the first chunks; wait for three bytes.
      const head = this.pendingBytes > 0 ? Buffer.concat([...this.pending, chunk]) : chunk;
      if (head.length === 0) return;
      if (head.length < 3 && head.length > 0 && isBomPrefix(head)) {
        this.pending = [head];
        this.pendingBytes = head.length;
        return;
      }
      this.pending = [];
      this.pendingBytes = 0;
      data = head;
      this.bomChecked = true;
      if (data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
        this.facts.bom = true;
        data = data.subarray(3);
        this.lineStart = 3;
      }
    }
    if (data.length > 0) this.sawAnyByte = true;
    let from = 0;
    for (;;) {
      const nl = data.indexOf(NL, from);
      if (nl === -1) break;
      let lineBuf: Buffer;
      if (this.pendingBytes > 0) {
        this.pending.push(data.subarray(from, nl));
        lineBuf = Buffer.concat(this.pending, this.pendingBytes + (nl - from));
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        lineBuf = data.subarray(from, nl);
      }
      this.emit(lineBuf, false);
      from = nl + 1;
    }
    if (from < data.length) {
      const rest = data.subarray(from);
      // Copy: the stream may reuse its chunk buffers.
      this.pending.push(Buffer.from(rest));
      this.pendingBytes += rest.length;
    }
  }

  /** The unfinished line held so far (bytes after the last newline), or null when there is none. */
  held(): HeldTail | null {
    return this.pendingBytes === 0 ? null : { line: this.lineNo + 1, offset: this.lineStart, length: this.pendingBytes };
  }

  /**
   * Ends the source. With `holdTail`, an unfinished last line is not emitted but described in `facts.heldTail`
   * (and left out of `facts.bytes`).
   */
  end(holdTail = false): LineSourceFacts {
    if (!this.bomChecked && this.pendingBytes > 0) {
      this.bomChecked = true;
      this.sawAnyByte = true;
    }
    if (holdTail && this.pendingBytes > 0) {
      this.facts.heldTail = { line: this.lineNo + 1, offset: this.lineStart, length: this.pendingBytes };
      this.facts.bytes -= this.pendingBytes;
      this.pending = [];
      this.pendingBytes = 0;
      this.facts.finalNewline = this.lineNo > 0;
    } else if (this.pendingBytes > 0) {
      const lineBuf = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      this.emit(lineBuf, true);
      this.facts.finalNewline = false;
    } else {
      this.facts.finalNewline = this.sawAnyByte;
    }
    this.facts.lines = this.lineNo;
    return this.facts;
  }

  private emit(buf: Buffer, unterminated: boolean): void {
    this.lineNo++;
    const crlf = buf.length > 0 && buf[buf.length - 1] === CR;
    const content = crlf ? buf.subarray(0, buf.length - 1) : buf;
    // Pure-ASCII lines decode faster as latin1; the check is one native scan.
    const ascii = isAscii(content);
    const invalidUtf8 = !ascii && !isUtf8(content);
    const offset = this.lineStart;
    this.lineStart = this.lineStart + buf.length + (unterminated ? 0 : 1);
    if (this.lazy) {
      this.sink(new LazyLine(this.lineNo, offset, content.length, crlf, unterminated, invalidUtf8, content, ascii));
      return;
    }
    const text = content.toString(ascii ? "latin1" : "utf8");
    this.sink({ line: this.lineNo, offset, length: content.length, text, crlf, unterminated, invalidUtf8 });
  }
}

function isBomPrefix(b: Buffer): boolean {
  return b[0] === 0xef && (b.length < 2 || b[1] === 0xbb);
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
 * of it: no chunk, copy or object per line. Same lines, numbers, offsets and facts as LineSplitter.
 */
export async function readLineBytes(
  path: string,
  sink: ByteLineSink,
  chunkSize = 1 << 20,
  options: SnapshotOptions = {},
): Promise<LineSourceFacts> {
  const facts: LineSourceFacts = { bom: false, bytes: 0, lines: 0, finalNewline: false };
  // Synchronous open, stat and close: through promises they cost several times the CPU, which counts when a fleet
  // command reads ten thousand files (the reads themselves were already synchronous).
  const { fd, st } = openRegularSync(path);
  let buf = takeBuffer(chunkSize);
  try {
    facts.stat = { size: st.size, mtimeMs: st.mtimeMs };
    const live = isLive(st.mtimeMs, options.now ?? Date.now());
    snapshotHook.afterSize?.(path);
    /** Bytes of the snapshot not read yet. */
    let left = st.size;
    /** buf[0, filled) holds the unfinished line (and, before the BOM check, the first bytes). */
    let filled = 0;
    /** File offset of buf[0]. */
    let base = 0;
    let lineNo = 0;
    let bomChecked = false;
    let content = 0;
    let eof = false;
    let reads = 0;
    while (!eof) {
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafeSlow(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      // Synchronous reads: waiting on the thread pool for every chunk costs more than the copy itself. The event
      // loop still gets a turn every few chunks.
      const bytesRead = left === 0 ? 0 : readSync(fd, buf, filled, Math.min(buf.length - filled, left), null);
      if (bytesRead === 0 && left > 0) throw new FileShrank(path, st.size - left);
      left -= bytesRead;
      if (++reads % 16 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      facts.bytes += bytesRead;
      const end = filled + bytesRead;
      if (bytesRead === 0) eof = true;
      let start = 0;
      if (!bomChecked) {
        if (end < 3 && !eof) {
          filled = end;
          continue;
        }
        bomChecked = true;
        if (end >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
          facts.bom = true;
          start = 3;
        }
        content += end - start;
      } else content += bytesRead;
      const last = end > start ? buf.lastIndexOf(NL, end - 1) : -1;
      let from = start;
      if (last >= start) {
        const wholeValid = isUtf8(buf.subarray(start, last));
        let nl = buf.indexOf(NL, start);
        while (nl !== -1 && nl <= last) {
          lineNo++;
          let flags = 0;
          let stop = nl;
          if (stop > from && buf[stop - 1] === CR) {
            stop--;
            flags |= LINE_CRLF;
          }
          if (!wholeValid && !isUtf8(buf.subarray(from, stop))) flags |= LINE_INVALID_UTF8;
          sink(buf, from, stop, lineNo, base + from, flags);
          from = nl + 1;
          nl = from <= last ? buf.indexOf(NL, from) : -1;
        }
      }
      if (eof) {
        if (from < end && live) {
          facts.heldTail = { line: lineNo + 1, offset: base + from, length: end - from };
          facts.bytes -= end - from;
          facts.finalNewline = lineNo > 0;
        } else if (from < end) {
          lineNo++;
          let flags = LINE_UNTERMINATED;
          let stop = end;
          if (buf[stop - 1] === CR) {
            stop--;
            flags |= LINE_CRLF;
          }
          if (!isUtf8(buf.subarray(from, stop))) flags |= LINE_INVALID_UTF8;
          sink(buf, from, stop, lineNo, base + from, flags);
          facts.finalNewline = false;
        } else facts.finalNewline = content > 0;
        break;
      }
      if (from > 0) {
        buf.copy(buf, 0, from, end);
        base += from;
      }
      filled = end - from;
    }
    facts.lines = lineNo;
    // Shortened after its bytes were read (one fstat): the lines read are not the file's any more.
    const after = fstatSync(fd).size;
    if (after < st.size) throw new FileShrank(path, after);
    return facts;
  } finally {
    closeSync(fd);
    giveBuffer(buf, chunkSize);
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

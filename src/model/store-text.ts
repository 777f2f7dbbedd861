/**
 * What the session's store reads back at the level of bytes and JSON text, for the layers above the model: an
 * entry's JSON text, a message's text or stand-in read from its line, a line by number. The byte scanners and JSON
 * lexers (src/io/scan) are reached only through the loader (load.ts, skeleton.ts) and the store (this module,
 * bloat-bytes.ts, row-bytes.ts): ops, check, reports, render, web and commands import none of them
 * (test/layers.test.ts).
 */
import {
  isStringifyFormBytes,
  messageStandIn,
  messageStandInFromBytes,
  NOT_FORM,
  PLAIN_FORM,
  readLines,
  stringifyFormBytes,
} from "../io/scan/index.js";
import { toJson } from "./json-text.js";
import { parseEntry, readEntry, type Session } from "./session.js";
import type { EntryRec } from "./detail.js";

export type { FileStat, HeldTail, LineSourceFacts } from "../io/scan/index.js";
/** The line splitters and the snapshot rule's window, as the library offers them (src/index.ts). */
export { LineSplitter, LIVE_WINDOW_MS, readLines, type RawLine, type Source } from "../io/scan/index.js";

/**
 * A stream's line at least this long is parsed and written natively rather than encoded and checked (the limit the
 * text check had: in a short run a line of long tool output cost a check in JavaScript several times what
 * JSON.parse and JSON.stringify take together). A file's line is checked in its bytes whatever its length.
 */
const NATIVE_CHECK_FROM = 2048;

/**
 * The JSON text of an entry as migrated in memory: its line as it is where that is already what JSON.stringify would
 * write (no migration for a current-version file, and the line in JSON.stringify's form), else parsed and written.
 */
export function entryJson(session: Session, rec: EntryRec): string {
  if (typeof session.version === "number" && session.version >= 3) {
    // From the file: its bytes checked as they are, decoded only to be written (neither JSON.parse nor stringify).
    const bytes = session.store.rawBytes?.(rec);
    if (bytes !== undefined) {
      if (isStringifyFormBytes(bytes, 0, bytes.length)) return bytes.toString("utf8");
    } else {
      // A stream's store holds the line's text: its UTF-8 is checked (one checker for both stores). A long line
      // costs less parsed and written natively (the same bytes where it was in that form already).
      const raw = session.store.rawLine(rec);
      if (raw.length < NATIVE_CHECK_FROM) {
        const b = Buffer.from(raw, "utf8");
        if (isStringifyFormBytes(b, 0, b.length)) return raw;
      }
    }
    return toJson(parseEntry(session, rec, session.store.rawLine(rec))) as string;
  }
  return toJson(readEntry(session, rec)) as string;
}

/**
 * Where, in a line read to `value`, JSON.stringify's text of `value` stands (null where it does not): that part of
 * the line can be written for it as it is (a message whose line is not read from its bytes: an edited path, a stream).
 */
export function nativeFormSpan(line: string, value: unknown): { start: number; end: number } | null {
  const text = toJson(value);
  if (text === undefined) return null;
  const at = line.indexOf(text);
  return at < 0 ? null : { start: at, end: at + text.length };
}

/**
 * An entry reader for buildContext that also notes, for each message entry whose line is already in JSON.stringify's
 * form (current version: no migration, `spans`), where its message's text is in the line; `json` writes a message
 * read that way by slicing its line again instead of serializing the parsed object (a million of them on a long
 * path). Any other message, an edited or rebuilt one included (not the very object read), is serialized.
 *
 * `standIns` (a path without context edits, output through `json` or the display only): a message whose content is
 * not null is held as a stand-in with only what the report reads of it (model/standin.ts), read from the line's
 * bytes where it can be (no JSON.parse); `json` writes it from its line, `whole` reads it again for the display. A
 * million parsed messages were most of the memory, and parsing them most of the time.
 */
export function messageLines(
  session: Session,
  spans: boolean,
  standIns: boolean,
  /** Ids whose messages are never stand-ins: the targets of context edits, which rebuild them from what is read. */
  notStandIns: ReadonlySet<string> = new Set(),
): {
  read: (rec: EntryRec) => Record<string, unknown>;
  json: (m: unknown, rec: EntryRec) => string | undefined;
  /**
   * The message's JSON text as the UTF-8 bytes of its line, where they are plain (io/scan stringifyFormBytes): the
   * JSON output writes them as they are. A view of the read-ahead window: valid until the next read of the file.
   */
  bytes: (m: unknown, rec: EntryRec) => Uint8Array | undefined;
  whole: (m: unknown, rec: EntryRec) => unknown;
} | null {
  // JSON output of an older version's lines is serialized (they are migrated): no spans, and so no stand-ins.
  if (spans && (typeof session.version !== "number" || session.version < 3)) return null;
  if (!spans && !standIns) return null;
  const n = session.entries.length;
  const held: unknown[] = [];
  /** held[i] is a stand-in (1), one read from the line's bytes (2), or not (0). */
  const isStandIn = new Uint8Array(standIns ? n : 0);
  const holds = (m: unknown, rec: EntryRec): boolean => m !== undefined && m !== null && rec.index < held.length && held[rec.index] === m;
  // A current version's lines need no migration: a stand-in can be read from the bytes (no JSON.parse); for JSON,
  // only where the message's bytes are JSON.stringify's text of it (isStringifyFormBytes): they are written as
  // they are, and neither JSON.parse nor JSON.stringify runs.
  const fromBytes = standIns && session.version >= 3 && session.store.rawBytes !== undefined;
  // Where each message's JSON text is in its line: in its bytes for a stand-in read from them (2; `json` writes
  // them, `whole` parses only them, not the entry around them), else, with spans, in the line's text.
  const start = spans || fromBytes ? new Int32Array(n) : null;
  const end = spans || fromBytes ? new Int32Array(n) : null;
  const span = fromBytes ? new Int32Array(2) : undefined;
  /** plain[i]: the bytes of a stand-in read from them are plain (stringifyFormBytes): `bytes` gives them. */
  const plain = spans && fromBytes ? new Uint8Array(n) : null;
  return {
    read(rec) {
      // Read again, a message may take the other way (its span then counts characters of the line's text).
      if (plain !== null && rec.index < n) plain[rec.index] = 0;
      const mayStandIn = standIns && (rec.id === undefined || !notStandIns.has(rec.id));
      if (fromBytes && mayStandIn && span !== undefined && rec.type === "message" && rec.index < n) {
        const bytes = (session.store.rawBytes as (r: EntryRec) => Buffer)(rec);
        const standIn = messageStandInFromBytes(bytes, 0, bytes.length, span);
        const form = standIn !== null && spans ? stringifyFormBytes(bytes, span[0] as number, span[1] as number) : NOT_FORM;
        if (standIn !== null && (!spans || form !== NOT_FORM)) {
          if (plain !== null && form === PLAIN_FORM) plain[rec.index] = 1;
          while (held.length <= rec.index) held.push(undefined);
          held[rec.index] = standIn;
          isStandIn[rec.index] = 2;
          if (start !== null && end !== null) {
            start[rec.index] = span[0] as number;
            end[rec.index] = span[1] as number;
          }
          return { message: standIn };
        }
      }
      const raw = session.store.rawLine(rec);
      const o = parseEntry(session, rec, raw);
      const m = o.message;
      if (rec.type === "message" && rec.index < n && m !== null && typeof m === "object") {
        let span: { start: number; end: number } | null = null;
        if (spans && start !== null && end !== null) {
          span = nativeFormSpan(raw, m);
          if (span) {
            start[rec.index] = span.start;
            end[rec.index] = span.end;
          }
        }
        const mo = m as Record<string, unknown>;
        // With spans, only a message written from its line may be a stand-in.
        const standIn =
          mayStandIn && (span !== null || !spans) && mo.content !== null && mo.content !== undefined ? messageStandIn(mo) : null;
        if (span || standIn) {
          // Filled by push up to the index: `new Array(n)` of a large n makes a slow dictionary-backed array.
          while (held.length <= rec.index) held.push(undefined);
          held[rec.index] = standIn ?? m;
          if (standIn) {
            isStandIn[rec.index] = 1;
            return { message: standIn };
          }
        }
      }
      return o;
    },
    json(m, rec) {
      if (!spans || start === null || end === null || !holds(m, rec)) return undefined;
      // A stand-in read from the bytes: its message's bytes, known to be in JSON.stringify's form.
      if (isStandIn[rec.index] === 2)
        return (session.store.rawBytes as (r: EntryRec) => Buffer)(rec).toString("utf8", start[rec.index], end[rec.index]);
      return session.store.rawLine(rec).slice(start[rec.index], end[rec.index]);
    },
    bytes(m, rec) {
      if (plain === null || start === null || end === null || plain[rec.index] !== 1 || !holds(m, rec)) return undefined;
      return (session.store.rawBytes as (r: EntryRec) => Buffer)(rec).subarray(start[rec.index], end[rec.index]);
    },
    whole(m, rec) {
      if (!holds(m, rec) || isStandIn[rec.index] === 0) return m;
      if (start !== null && end !== null && isStandIn[rec.index] === 2) {
        const bytes = (session.store.rawBytes as (r: EntryRec) => Buffer)(rec);
        // Cut at ASCII braces: decoded alone, the message's bytes give the characters they give in the whole line.
        return JSON.parse(bytes.toString("utf8", start[rec.index], end[rec.index]));
      }
      return parseEntry(session, rec, session.store.rawLine(rec)).message;
    },
  };
}

/** The text of line `line` of the file at `path` (null past its end): a line that holds no entry, read again. */
export async function lineTextAt(path: string, line: number): Promise<string | null> {
  let text: string | null = null;
  await readLines({ kind: "file", path }, (l) => {
    if (l.line === line) text = l.text;
  });
  return text;
}

/** The texts of several lines of the file at `path`, in one reading (lines that hold no entry: blank, malformed). */
export async function linesTextAt(path: string, lines: ReadonlySet<number>): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (lines.size === 0) return out;
  await readLines({ kind: "file", path }, (l) => {
    if (lines.has(l.line)) out.set(l.line, l.text);
  });
  return out;
}

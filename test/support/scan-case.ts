import type { EntryFields } from "../../src/model/types.js";
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { makeRec } from "../../src/model/load.js";
import type { ScanDetail } from "../../src/model/fields.js";
import { skeletonRec } from "../../src/model/skeleton.js";
import type { EntryRec } from "../../src/model/detail.js";

/**
 * What the scanner tests share: a line scanned as the loader scans it and the record a whole parse makes of it,
 * generated JSON text with keys JSON.stringify cannot write (repeated, escaped), damage, and the WebAssembly path.
 */

/** Where a scanned test line sits: its index among the entries, its line number and byte offset in the file. */
const INDEX = 5;
const LINE = 7;
const OFFSET = 11;

interface Scanned {
  /** The scanner's record of the line, or null where it leaves the line to the whole parse. */
  rec: EntryFields | null;
  /** What JSON.parse makes of the line; undefined where it throws. */
  parsed: unknown;
  bytes: Buffer;
}

/** `line` scanned in `detail`, inside a buffer with bytes on both sides: the scanner must stay in its range. */
export function scanLine(line: string, detail: ScanDetail): Scanned {
  const bytes = Buffer.from(line, "utf8");
  const buf = Buffer.concat([Buffer.from('{"'), bytes, Buffer.from('"}')]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    parsed = undefined;
  }
  return { rec: skeletonRec(buf, 2, 2 + bytes.length, INDEX, LINE, OFFSET, detail), parsed, bytes };
}

/** The record the whole parse makes of the same line, at the same place. */
export function parsedRec(parsed: Record<string, unknown>, bytes: Buffer): EntryRec {
  return makeRec(parsed, { line: LINE, offset: OFFSET, length: bytes.length }, INDEX);
}

/** A key as JSON text; `escaped` writes its first character as a \u escape (the scanner must then step aside). */
export const keyText = (k: string, escaped: boolean): string =>
  escaped && k.length > 0 ? `"\\u${k.charCodeAt(0).toString(16).padStart(4, "0")}${k.slice(1)}"` : JSON.stringify(k);

/** Object text from [key text, value text] pairs: keys in the given order, repeats allowed, `ws` around tokens. */
export function objectText(pairs: [string, string][], ws: string): string {
  return `{${ws}${pairs.map(([k, v]) => `${k}${ws}:${ws}${v}`).join(`,${ws}`)}${ws}}`;
}

/** Lines of `lines` with one byte deleted, one of `bytes` inserted, or the line cut, at a random place. */
export function damaged(lines: fc.Arbitrary<string>, bytes: string[]): fc.Arbitrary<string> {
  return fc.tuple(lines, fc.nat(), fc.constantFrom("delete", "insert", "truncate"), fc.constantFrom(...bytes)).map(([l, pos, op, byte]) => {
    const at = pos % (l.length + 1);
    return op === "delete" ? l.slice(0, at) + l.slice(at + 1) : op === "insert" ? l.slice(0, at) + byte + l.slice(at) : l.slice(0, at);
  });
}

/**
 * Session files: a header, then one to twelve of `lines`, each given its own id chained to the one before (the
 * lines carry "id":"e1" and "parentId":"e0"), now and then one cut short.
 */
export function sessionsOf(lines: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const header =
    '{"type":"session","version":3,"id":"00000000-0000-4000-8000-000000000001","timestamp":"2026-01-11T08:00:00.000Z","cwd":"/p"}';
  return fc.array(fc.tuple(lines, fc.nat(), fc.boolean()), { minLength: 1, maxLength: 12 }).map((ls) => {
    const body = ls.map(([l, cut, damage], i) => {
      const withIds = l.replace('"id":"e1"', `"id":"e${i + 1}"`).replace('"parentId":"e0"', `"parentId":"e${i}"`);
      return damage && cut % 4 === 0 ? withIds.slice(0, cut % withIds.length) : withIds;
    });
    return `${[header, ...body].join("\n")}\n`;
  });
}

let written = 0;
/** Writes `text` as a new file in `dir` with an old mtime: not live, so a damaged last line is read, not held back. */
export function writeSettled(dir: string, text: string): string {
  const f = join(dir, `f${written++}.jsonl`);
  writeFileSync(f, text);
  utimesSync(f, new Date("2026-01-01"), new Date("2026-01-01"));
  return f;
}

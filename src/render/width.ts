import { createRequire } from "node:module";

const load = createRequire(import.meta.url);
let measure: ((s: string) => number) | undefined;

/**
 * Terminal columns of a string (string-width). string-width builds its Unicode tables when it loads, which costs
 * more than a whole JSON run, so it loads on the first measurement: output that never cuts text never pays for it.
 */
export function stringWidth(s: string): number {
  // Printable ASCII is one column a character: string-width's own first answer, without loading it.
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s.length;
  measure ??= (load("string-width") as typeof import("string-width")).default;
  if (s.length > MEMO_MAX_LENGTH) return measure(s);
  // Short strings repeat from line to line (a tree's "• " marker and gutters, a role, a label): measured once. For
  // any character past ASCII, string-width segments the string into graphemes (Intl.Segmenter), which was most of
  // a million-line tree's time at a terminal's width.
  let w = memo.get(s);
  if (w === undefined) {
    w = measure(s);
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(s, w);
  }
  return w;
}

const MEMO_MAX_LENGTH = 32;
const MEMO_SIZE = 4096;
const memo = new Map<string, number>();

/** Cuts plain (uncoloured) text to `max` terminal columns, ending in "…" when cut. Wide characters count twice. */
export function fitWidth(text: string, max: number): string {
  if (max <= 0) return "";
  if (stringWidth(text) <= max) return text;
  const segmenter = new Intl.Segmenter();
  let out = "";
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > max - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** A piece of a line: plain text and how to colour it. */
export type Segment = [text: string, color: (s: string) => string];

/**
 * Joins segments into one line of at most `max` columns (undefined: no limit). Cutting happens on the plain
 * text, so colour codes never count towards the width and are never cut in half.
 */
export function fitSegments(segments: Segment[], max: number | undefined): string {
  let out = "";
  let left = max ?? Infinity;
  for (let i = 0; i < segments.length; i++) {
    const [text, color] = segments[i] as Segment;
    if (text === "") continue;
    const w = max === undefined ? 0 : stringWidth(text);
    if (w <= left) {
      out += color(text);
      left -= w;
      continue;
    }
    out += color(fitWidth(text, left));
    break;
  }
  return out;
}

/**
 * Breaks each line of coloured text into lines of at most `max` columns (a character at a time, as a table's hard
 * wrap does), never inside an SGR sequence: a wrap that counts the codes' characters, or cuts through one, leaves a
 * stray ESC on the terminal. The codes stay where they were; the table carries colours over its line breaks.
 */
export function wrapColoured(text: string, max: number): string {
  if (max <= 0) return text;
  const segmenter = new Intl.Segmenter();
  const out: string[] = [];
  for (const line of text.split("\n")) {
    let cur = "";
    let used = 0;
    for (const piece of sgrPieces(line)) {
      if (piece.charCodeAt(0) === 0x1b) {
        cur += piece;
        continue;
      }
      for (const { segment } of segmenter.segment(piece)) {
        const w = stringWidth(segment);
        if (used + w > max && used > 0) {
          out.push(cur);
          cur = "";
          used = 0;
        }
        cur += segment;
        used += w;
      }
    }
    out.push(cur);
  }
  return out.join("\n");
}

/** A line as its pieces: each SGR sequence (`ESC [ digits/semicolons m`) alone, the text between them. */
function sgrPieces(line: string): string[] {
  const out: string[] = [];
  let from = 0;
  let search = 0;
  for (let at = line.indexOf("\u001b[", search); at >= 0; at = line.indexOf("\u001b[", search)) {
    let end = at + 2;
    while (end < line.length && /[0-9;]/.test(line.charAt(end))) end++;
    // Not an SGR sequence: text, its ESC counted as a character (the output filter shows it as one).
    if (line.charAt(end) !== "m") {
      search = at + 1;
      continue;
    }
    if (at > from) out.push(line.slice(from, at));
    out.push(line.slice(at, end + 1));
    from = end + 1;
    search = from;
  }
  if (from < line.length) out.push(line.slice(from));
  return out;
}

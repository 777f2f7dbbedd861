import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileMarks } from "../../src/io/index-file.js";
import { tempDirs } from "../support/temp-dirs.js";

/** The marks `pisess index` tells a file's changes by: where its last line ends, and its header's fingerprint. */

const tmp = tempDirs("pisess-marks-test-");

function marksOf(text: string | Buffer) {
  const f = join(tmp(), "s.jsonl");
  writeFileSync(f, text);
  return fileMarks(f);
}

const sha = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 32);

describe("fileMarks", () => {
  it("puts the last line end just after the last newline, wherever it is", () => {
    const long = "x".repeat(150_000);
    const cases: [string, number][] = [
      ["", 0],
      ["\n", 1],
      ['{"a":1}\n', 8],
      ['{"a":1}\n{"b"', 8],
      ["no newline at all", 0],
      // The last newline more than two 64 KB chunks before the end.
      [`h\n${long}`, 2],
      [`h\n${long}\n`, 150_003],
      [`${long}\n${long}`, 150_001],
    ];
    for (const [text, end] of cases) expect([text.slice(0, 12), marksOf(text).lastLineEnd]).toEqual([text.slice(0, 12), end]);
  });

  it("fingerprints the first line with its newline, or the whole text without one", () => {
    expect(marksOf('{"type":"session"}\n{"x":1}\n').fingerprint).toBe(sha('{"type":"session"}\n'));
    expect(marksOf('{"type":"session"}').fingerprint).toBe(sha('{"type":"session"}'));
  });

  it("files read one after another each get their own end (the buffers are shared)", () => {
    const ends = ["a\nb", "a\n", "abc", "a\nbb\nc"].map((t) => marksOf(t).lastLineEnd);
    expect(ends).toEqual([2, 2, 0, 5]);
  });
});

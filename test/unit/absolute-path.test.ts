import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { absolutePath } from "../../src/io/index-file.js";

/** absolutePath skips resolve's work on paths already in its form: whatever the path, the answer is resolve's. */
describe("absolutePath", () => {
  const cwd = "/home/dev/work";

  it("equals path.resolve on paths made of slashes, dots and names", () => {
    const part = fc.constantFrom("/", ".", "..", "a", "b.jsonl", "-x-", " ", "\u00e9");
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const p = parts.join("");
        expect(absolutePath(cwd, p)).toBe(resolve(cwd, p));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    "/a/b.jsonl",
    "/a//b.jsonl",
    "/a/./b.jsonl",
    "/a/../b.jsonl",
    "/a/b/",
    "/a/b/.",
    "/a/b/..",
    "/",
    "/...",
    "/a/.hidden/b.jsonl",
    "/a/..b/c",
    "rel/b.jsonl",
    "./b.jsonl",
    "",
  ])("equals path.resolve on %j", (p) => {
    expect(absolutePath(cwd, p)).toBe(resolve(cwd, p));
  });

  it("gives an absolute normal path as it is, and resolves any other", () => {
    const p = ["/tmp", "sessions", "--p--", "s.jsonl"].join("/");
    expect(absolutePath(cwd, p)).toBe(p);
    expect(absolutePath(cwd, "/tmp//x")).toBe("/tmp/x");
  });
});

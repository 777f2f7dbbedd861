import { describe, expect, it } from "vitest";
import { wrapColoured } from "../../src/render/width.js";
import { fixture, runCli } from "../support/helpers.js";

// pisess's own colour sequences (chalk, level 1): what a coloured run may hold, each whole.
const SGR = /\u001b\[[0-9;]*m/g;

describe("diff --color always --width N: colour codes are never cut (#32.16)", () => {
  const files = ["branches.jsonl", "compaction.jsonl", "two-roots.jsonl"].map((f) => fixture("diff", f));
  for (const file of files)
    for (const extra of [["--leaves"], ["--side-by-side"], []])
      it(`${file.split("/").pop()} ${extra.join(" ")}`, async () => {
        for (const width of [20, 24, 30, 36, 40, 50, 60, 80]) {
          const args = ["diff", file, ...extra, "--width", String(width)];
          const coloured = (await runCli([...args, "--color", "always"])).stdout;
          const plain = (await runCli([...args, "--color", "never"])).stdout;
          const stripped = coloured.replace(SGR, "");
          // No ESC but whole SGR sequences, and the same text as without colour (no code cut into visible text).
          expect(stripped.includes("\u001b"), `width ${width}`).toBe(false);
          expect(stripped, `width ${width}`).toBe(plain);
        }
      });

  it("wrapColoured breaks text by columns, never inside a colour code", () => {
    expect(wrapColoured("\u001b[1mleft (4 after fork)\u001b[22m", 6)).toBe("\u001b[1mleft (\n4 afte\nr fork\n)\u001b[22m");
    expect(wrapColoured("ab\u001b[31mcd\u001b[39m", 3)).toBe("ab\u001b[31mc\nd\u001b[39m");
    expect(wrapColoured("会话格式", 5)).toBe("会话\n格式");
    expect(wrapColoured("plain\nx", 3)).toBe("pla\nin\nx");
    // An ESC that starts no SGR sequence is text, measured as string-width measures it, never kept whole as a code.
    expect(wrapColoured("a\u001b[2Jb", 3)).toBe("a\u001b[2\nJb");
  });
});

import { describe, expect, it } from "vitest";
import { fixture } from "../support/helpers.js";
import { treeOut } from "../support/inproc.js";

// fixtures/tree/deep-comb.jsonl: a spine s0 → s34 of user messages, each s0…s33 also the parent of one side entry
// b0…b33 (older than the next spine entry). The active leaf is s34, so the spine is listed first and every spine
// entry is one branch level deeper than the one before: s_k at depth k, b_k at depth k + 1.
describe("tree text past 32 branch levels", () => {
  it("draws the innermost 32 levels after the real depth, and lines up to 32 levels as before", async () => {
    const r = await treeOut(fixture("tree", "deep-comb.jsonl"), {});
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toHaveLength(70); // 69 entries and the final newline
    const bars = (n: number) => "│  ".repeat(n);
    // Written out by hand from the layout rules, not taken from a run.
    expect(lines[0]).toBe("• s0000000 user: s0");
    expect(lines[1]).toBe("├─ • s0000001 user: s1");
    expect(lines[2]).toBe("│  ├─ • s0000002 user: s2");
    expect(lines[32]).toBe(`${bars(31)}├─ • s0000032 user: s32`);
    expect(lines[33]).toBe(`33⋯ ${bars(31)}├─ • s0000033 user: s33`);
    expect(lines[34]).toBe(`34⋯ ${bars(31)}├─ ◆ s0000034 [leaf] user: s34`);
    expect(lines[35]).toBe(`34⋯ ${bars(31)}└─ b0000033 user: b33`);
    expect(lines[36]).toBe(`33⋯ ${bars(31)}└─ b0000032 user: b32`);
    expect(lines[37]).toBe(`${bars(31)}└─ b0000031 user: b31`);
    expect(lines[67]).toBe("│  └─ b0000001 user: b1");
    expect(lines[68]).toBe("└─ b0000000 user: b0");
    expect(lines[69]).toBe("");
    // No line is wider than the 32 drawn levels plus the depth marker.
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(4 + 32 * 3 + 40);
  });
});

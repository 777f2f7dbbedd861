import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { budgetReport, type BudgetReport } from "../../src/reports/budget.js";

/** budgetReport on hand-written sessions: which turn's bill is shown, and the parts' names. Values worked out by hand. */
const fromLines = (lines: object[]) =>
  loadSession({ kind: "stream", name: "-", stream: Readable.from([Buffer.from(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`)]) });

const header = { type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/nowhere" };
let n = 0;
const entry = (id: string, parentId: string | null, message: object) => ({
  type: "message",
  id,
  parentId,
  timestamp: `2025-01-01T00:00:0${n++ % 10}.000Z`,
  message,
});
const usage = (input: number, cacheRead: number, cacheWrite: number) => ({ input, output: 5, cacheRead, cacheWrite, totalTokens: 0 });
const keep = { value: 20000, from: "test" };

describe("budgetReport", () => {
  it("the bill: the first assistant child by file order that records input; the others on other branches counted", async () => {
    const s = await fromLines([
      header,
      entry("u1", null, { role: "user", content: "abcdefgh", timestamp: 1 }),
      // An aborted reply without input, then two replies on two branches.
      entry("a0", "u1", { role: "assistant", content: [], stopReason: "aborted", usage: usage(0, 0, 0) }),
      entry("a1", "u1", { role: "assistant", content: [{ type: "text", text: "x" }], usage: usage(10, 200, 30) }),
      entry("a2", "u1", { role: "assistant", content: [{ type: "text", text: "y" }], usage: usage(1, 2, 3) }),
    ]);
    const d = budgetReport(s, { leaf: "u1", keepRecent: keep }).data as BudgetReport;
    expect(d.total).toBe(2);
    expect(d.billed).toEqual({
      turn: { line: 4, id: "a1" },
      estimate: 2,
      input: 10,
      cacheRead: 200,
      cacheWrite: 30,
      billed: 240,
      ratio: 120,
      others: 1,
    });
    // The last entry has no child: nothing billed after it.
    expect((budgetReport(s, { keepRecent: keep }).data as BudgetReport).billed).toBeNull();
  });

  it("parts: tool results by tool, images apart, custom messages by customType, a bash run", async () => {
    const s = await fromLines([
      header,
      entry("u1", null, {
        role: "user",
        content: [
          { type: "text", text: "1234" },
          { type: "image", data: "", mimeType: "image/png" },
        ],
      }),
      entry("a1", "u1", {
        role: "assistant",
        content: [{ type: "toolCall", id: "c", name: "read", arguments: { path: "a" } }],
        usage: usage(1, 0, 0),
      }),
      entry("r1", "a1", { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "12345678" }] }),
      {
        type: "custom_message",
        id: "c1",
        parentId: "r1",
        timestamp: "2025-01-01T00:01:00.000Z",
        customType: "todo",
        content: "1234",
        display: true,
      },
      entry("b1", "c1", { role: "bashExecution", command: "ls", output: "ab", exitCode: 0 }),
    ]);
    const d = budgetReport(s, { keepRecent: keep }).data as BudgetReport;
    expect(d.parts.map((p) => [p.kind, p.name, p.tokens])).toEqual([
      ["image", null, 1200],
      // "read" + {"path":"a"} = 4 + 12 characters.
      ["tool-calls", null, 4],
      ["tool-result", "read", 2],
      // Ties (1 token, 4 characters each) by kind name.
      ["bash", null, 1],
      ["custom", "todo", 1],
      ["user-text", null, 1],
    ]);
    expect(d.total).toBe(1209);
    expect(d.top[0]).toEqual({ line: 2, id: "u1", kind: "user", tool: null, tokens: 1201, share: 0.9934 });
    expect(d.top[1]).toMatchObject({ line: 3, kind: "assistant", tool: "read", tokens: 4 });
  });
});

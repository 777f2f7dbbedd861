import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { readEntry } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { buildContext } from "../../src/ops/context.js";
import { convertToLlm } from "../../src/ops/llm.js";
import { pathTo } from "../../src/ops/path.js";

/** pi 1.6.0's context rules, one at a time, on sessions written out here (expected values by hand). */

const HEADER = { type: "session", version: 3, id: "s", timestamp: "2026-11-21T10:00:00.000Z", cwd: "/w" };
let clock = 0;
function e(id: string, parentId: string | null, type: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  clock++;
  return { type, id, parentId, timestamp: `2026-11-21T10:00:${String(clock % 60).padStart(2, "0")}.000Z`, ...fields };
}
const msg = (id: string, parentId: string | null, message: Record<string, unknown>) =>
  e(id, parentId, "message", { message: { timestamp: 1, ...message } });
const user = (id: string, parentId: string | null, content: unknown) => msg(id, parentId, { role: "user", content });

async function contextAt(entries: Record<string, unknown>[], leafId?: string) {
  const text = `${[HEADER, ...entries].map((o) => JSON.stringify(o)).join("\n")}\n`;
  const session = await loadSession({ kind: "stream", name: "-", stream: Readable.from([Buffer.from(text)]) });
  const leaf = leafId === undefined ? (session.defaultLeaf as EntryRec) : (session.byId.get(leafId) as EntryRec);
  const p = pathTo(session, leaf);
  if (!p.ok) throw new Error("cycle");
  return buildContext(session, p.path, (r) => readEntry(session, r));
}
const contents = (ctx: { messages: unknown[] }) => ctx.messages.map((m) => (m as { content?: unknown }).content);

describe("context_edit", () => {
  it("replaces content; a string becomes a text block for assistant and toolResult only", async () => {
    const ctx = await contextAt([
      user("u1", null, "secret"),
      msg("a1", "u1", { role: "assistant", content: [{ type: "text", text: "long" }] }),
      msg("t1", "a1", { role: "toolResult", toolCallId: "c", toolName: "bash", content: [{ type: "text", text: "out" }], isError: false }),
      e("c1", "t1", "custom_message", { customType: "note", content: "old note", display: true }),
      e("x1", "c1", "context_edit", { targetId: "u1", replacement: { content: "[redacted]" } }),
      e("x2", "x1", "context_edit", { targetId: "a1", replacement: { content: "short" } }),
      e("x3", "x2", "context_edit", { targetId: "t1", replacement: { content: "o" } }),
      e("x4", "x3", "context_edit", { targetId: "c1", replacement: { content: "new note" } }),
    ]);
    expect(contents(ctx)).toEqual(["[redacted]", [{ type: "text", text: "short" }], [{ type: "text", text: "o" }], "new note"]);
    expect(ctx.editedBy.map((r) => r?.id)).toEqual(["x1", "x2", "x3", "x4"]);
    expect(contents({ messages: ctx.originals })).toEqual([
      "secret",
      [{ type: "text", text: "long" }],
      [{ type: "text", text: "out" }],
      "old note",
    ]);
    expect(ctx.edits.map((x) => x.status)).toEqual(["applied", "applied", "applied", "applied"]);
  });

  it("null removes the target's messages; the latest edit of a target wins, even when it comes first", async () => {
    const ctx = await contextAt([
      user("u1", null, "one"),
      e("x1", "u1", "context_edit", { targetId: "u2", replacement: { content: "first edit" } }),
      user("u2", "x1", "two"),
      e("x2", "u2", "context_edit", { targetId: "u2", replacement: { content: "second edit" } }),
      e("x3", "x2", "context_edit", { targetId: "u1", replacement: null }),
    ]);
    expect(contents(ctx)).toEqual(["second edit"]);
    expect(ctx.removed.map((g) => [g.source.id, g.edit.id, g.at])).toEqual([["u1", "x3", 0]]);
    expect(ctx.edits.map((x) => [x.edit.id, x.status, x.removes])).toEqual([
      ["x1", "superseded", false],
      ["x2", "applied", false],
      ["x3", "applied", true],
    ]);
  });

  it("does nothing to roles without editable content, but null removes any entry's messages", async () => {
    const bash = { role: "bashExecution", command: "ls", output: "a", exitCode: 0, cancelled: false, truncated: false };
    const ctx = await contextAt([
      msg("b1", null, bash),
      e("s1", "b1", "branch_summary", { fromId: "b1", summary: "went elsewhere" }),
      e("x1", "s1", "context_edit", { targetId: "b1", replacement: { content: "ignored" } }),
      e("x2", "x1", "context_edit", { targetId: "s1", replacement: null }),
    ]);
    expect(ctx.messages).toHaveLength(1);
    expect((ctx.messages[0] as { command: string }).command).toBe("ls");
    expect(ctx.editedBy).toEqual([undefined]);
  });

  it("a target elsewhere or missing changes nothing; an edit without replacement is reported, not applied", async () => {
    const ctx = await contextAt([
      user("u1", null, "root"),
      user("side", "u1", "side branch"),
      user("u2", "u1", "main"),
      e("x1", "u2", "context_edit", { targetId: "side", replacement: null }),
      e("x2", "x1", "context_edit", { targetId: "nope", replacement: null }),
      e("x3", "x2", "context_edit", { targetId: "u2" }),
    ]);
    expect(contents(ctx)).toEqual(["root", "main"]);
    expect(ctx.edits.map((x) => x.status)).toEqual(["target-outside-context", "target-missing", "applied"]);
    expect(ctx.edits.map((x) => x.piThrows)).toEqual([undefined, undefined, true]);
    expect(ctx.problems).toEqual([]);
  });
});

describe("compaction and system messages (pi 1.6)", () => {
  const sys = (id: string, parentId: string | null, content: string) => msg(id, parentId, { role: "system", content });

  it("the compaction's systemMessage comes before its summary; system messages in the kept range are left out", async () => {
    const ctx = await contextAt([
      sys("s0", null, "prompt v1"),
      user("u1", "s0", "old"),
      sys("s1", "u1", "prompt v2"),
      user("u2", "s1", "kept"),
      e("c1", "u2", "compaction", {
        summary: "S",
        firstKeptEntryId: "u1",
        tokensBefore: 10,
        systemMessage: { role: "system", content: "prompt v2 replayed", timestamp: 5 },
      }),
      user("u3", "c1", "after"),
    ]);
    expect(ctx.messages.map((m) => (m as { role: string }).role)).toEqual(["system", "compactionSummary", "user", "user", "user"]);
    expect(contents(ctx)).toEqual(["prompt v2 replayed", undefined, "old", "kept", "after"]);
    expect(ctx.sources.map((r) => r.id)).toEqual(["c1", "c1", "u1", "u2", "u3"]);
    // The LLM view (1.6) passes system messages on.
    expect((convertToLlm(ctx.messages)[0] as { role: string }).role).toBe("system");
  });

  it("an older compaction inside the kept range contributes nothing; a compaction keeping its own id keeps nothing", async () => {
    const older = await contextAt([
      user("u1", null, "a"),
      e("c1", "u1", "compaction", { summary: "first", firstKeptEntryId: "u1", tokensBefore: 1 }),
      user("u2", "c1", "b"),
      e("c2", "u2", "compaction", { summary: "second", firstKeptEntryId: "u1", tokensBefore: 2 }),
    ]);
    expect(older.messages.map((m) => (m as { summary?: string; content?: string }).summary ?? (m as { content: string }).content)).toEqual([
      "second",
      "a",
      "b",
    ]);
    const none = await contextAt([
      user("u1", null, "a"),
      e("c1", "u1", "compaction", { summary: "all", firstKeptEntryId: "c1", tokensBefore: 1 }),
    ]);
    expect(none.messages).toHaveLength(1);
    expect(none.problems).toEqual([]);
  });

  it('null or missing content is normalised as pi does: [] for user/assistant/toolResult, "" for system', async () => {
    const ctx = await contextAt([
      msg("s0", null, { role: "system", content: null }),
      msg("u1", "s0", { role: "user", content: null }),
      msg("a1", "u1", { role: "assistant" }),
      e("c1", "a1", "custom_message", { customType: "t", display: false }),
    ]);
    expect(contents(ctx)).toEqual(["", [], [], []]);
  });
});

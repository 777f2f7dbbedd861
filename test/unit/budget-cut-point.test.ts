import { describe, expect, it } from "vitest";
import { estimateTokens, messageParts } from "../../src/ops/budget.js";
import { type CutEntry, findCutPoint, planCompaction, resolveKeepRecent } from "../../src/ops/cut-point.js";

/** Hand-made projected entries; expected values worked out by hand from pi 1.6.0's findProjectedCutPoint. */
const msg = (role: string, tokens: number, id?: string): CutEntry => ({ type: "message", role, roles: [role], tokens, visible: true, id });
const meta = (type: string): CutEntry => ({ type, roles: [], tokens: 0, visible: false, id: type });

describe("findCutPoint (pi 1.6.0's findProjectedCutPoint)", () => {
  it("cuts at the nearest cut point once the newest entries reach the budget; an assistant cut splits its turn", () => {
    const e = [msg("user", 50), msg("assistant", 50), msg("toolResult", 60), msg("assistant", 20)];
    expect(findCutPoint(e, 0, 4, 100)).toEqual({ firstKeptEntryIndex: 1, turnStartIndex: 0, isSplitTurn: true });
  });

  it("tool results alone past the budget keep their assistant's call (the last cut point), not everything", () => {
    const e = [msg("user", 10), msg("assistant", 10), msg("toolResult", 500)];
    expect(findCutPoint(e, 0, 3, 100)).toEqual({ firstKeptEntryIndex: 1, turnStartIndex: 0, isSplitTurn: true });
  });

  it("under the budget: everything from the first cut point, no split", () => {
    expect(findCutPoint([msg("user", 10), msg("assistant", 10)], 0, 2, 100)).toEqual({
      firstKeptEntryIndex: 0,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
  });

  it("metadata just before the cut goes with the kept part, up to a compaction or a visible entry", () => {
    const e = [msg("user", 50), meta("model_change"), meta("label"), msg("user", 60), msg("assistant", 60)];
    // Cut at 3 (user), then back over the label and the model change.
    expect(findCutPoint(e, 0, 5, 100)).toEqual({ firstKeptEntryIndex: 1, turnStartIndex: 0, isSplitTurn: true });
    const c: CutEntry = { type: "compaction", roles: ["compactionSummary"], tokens: 10, visible: true, id: "c" };
    expect(findCutPoint([c, meta("label"), msg("user", 200)], 1, 3, 100)).toEqual({
      firstKeptEntryIndex: 1,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
  });

  it("no cut point: keep from the start", () => {
    expect(findCutPoint([meta("label"), msg("toolResult", 10)], 0, 2, 5)).toEqual({
      firstKeptEntryIndex: 0,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
  });

  it("a recovery attempt edited out after the cut moves the cut past it, unless an edit replaces something else", () => {
    const omitted: CutEntry = { type: "message", role: "assistant", roles: [], tokens: 0, visible: true, id: "c" };
    const edit = (targetId: string, replaces: boolean): CutEntry => ({ ...meta("context_edit"), targetId, replaces });
    const base = [msg("user", 10), msg("assistant", 150), omitted];
    expect(findCutPoint([...base, edit("c", false)], 0, 4, 100)).toEqual({ firstKeptEntryIndex: 2, turnStartIndex: 0, isSplitTurn: true });
    expect(findCutPoint([...base, edit("x", true)], 0, 4, 100)).toEqual({ firstKeptEntryIndex: 1, turnStartIndex: 0, isSplitTurn: true });
  });
});

describe("planCompaction (pi 1.6.0's prepareCompaction)", () => {
  const tokens = (e: readonly CutEntry[]) => (i: number) => (e[i] as CutEntry).tokens;

  it("after the compaction in effect: kept and summarised tokens, the split turn's start", () => {
    const c: CutEntry = { type: "compaction", roles: ["system", "compactionSummary"], tokens: 30, visible: true, id: "c" };
    const e = [c, msg("user", 50, "u1"), msg("assistant", 50, "a1"), msg("user", 80, "u2")];
    expect(planCompaction(e, "message", 100, tokens(e))).toEqual({
      ok: true,
      firstKept: 2,
      turnStart: 1,
      keptTokens: 130,
      summarizedTokens: 50,
      boundaryStart: 1,
    });
  });

  it("nothing to do: right after a compaction, or nothing before the cut", () => {
    const e = [msg("user", 10, "u"), msg("assistant", 10, "a")];
    expect(planCompaction(e, "compaction", 100, tokens(e))).toEqual({ ok: false, reason: "leaf-is-compaction" });
    expect(planCompaction(e, "message", 100, tokens(e))).toEqual({ ok: false, reason: "nothing-to-summarize" });
  });
});

describe("resolveKeepRecent (pi 1.6.0's getCompactionKeepRecentTokens)", () => {
  const files = [
    { file: "/g/settings.json", compaction: { keepRecentTokens: 5000 } },
    { file: "/p/.pi/settings.json", compaction: { modelOverrides: { "anthropic/claude-x": { keepRecentTokens: 8000 } } } },
  ];
  it("a model's override, else the ordinary setting (later files win), else 20000", () => {
    expect(resolveKeepRecent(files, { provider: "anthropic", modelId: "claude-x" })).toEqual({ value: 8000, from: "/p/.pi/settings.json" });
    expect(resolveKeepRecent(files, { provider: "openai", modelId: "gpt" })).toEqual({ value: 5000, from: "/g/settings.json" });
    expect(resolveKeepRecent([...files, { file: "/q", compaction: { keepRecentTokens: 7 } }], null)).toEqual({ value: 7, from: "/q" });
    expect(resolveKeepRecent([], null)).toEqual({ value: 20000, from: "default" });
  });
  it("a value pi would throw on is an error", () => {
    expect(resolveKeepRecent([{ file: "/g", compaction: { keepRecentTokens: -1 } }], null)).toEqual({
      error: "/g: invalid compaction.keepRecentTokens: -1 (pi expects a non-negative integer)",
    });
    expect("error" in resolveKeepRecent([{ file: "/g", compaction: { keepRecentTokens: "9" } }], null)).toBe(true);
  });
});

describe("messageParts: pi's one rounding per message, shared out over its parts", () => {
  it("each part gets the rise of ceil(characters so far / 4); the parts add up to estimateTokens", () => {
    const m = {
      role: "assistant",
      content: [
        { type: "text", text: "hello" },
        { type: "thinking", thinking: "hm" },
        { type: "toolCall", id: "t", name: "ab", arguments: {} },
      ],
    };
    expect(messageParts(m).map((p) => [p.kind, p.chars, p.tokens])).toEqual([
      ["assistant-text", 5, 2],
      ["thinking", 2, 0],
      ["tool-calls", 4, 1],
    ]);
    expect(estimateTokens(m)).toBe(3);
  });
  it("images count 4,800 characters in user, custom and tool-result content; system sections and tools by name", () => {
    const img = { type: "image", data: "", mimeType: "image/png" };
    expect(estimateTokens({ role: "user", content: [img] })).toBe(1200);
    expect(messageParts({ role: "toolResult", toolName: "read", content: [{ type: "text", text: "abcd" }, img] })).toEqual([
      { kind: "tool-result", name: "read", chars: 4, tokens: 1 },
      { kind: "image", name: null, chars: 4800, tokens: 1200 },
    ]);
    const sys = { role: "system", content: "", sections: { a: "12345678", gone: null }, toolsAdded: [{ name: "x" }] };
    expect(messageParts(sys).map((p) => [p.kind, p.name, p.chars])).toEqual([
      ["system-prompt", null, 0],
      ["system-section", "a", 8],
      ["system-tools", null, 14],
    ]);
  });
});

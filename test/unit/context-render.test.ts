import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { readEntry } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { buildContext } from "../../src/ops/context.js";
import { contextFacts } from "../../src/ops/context-facts.js";
import { compactArgs, describeContext, type ContextDisplayOptions } from "../../src/render/context-display.js";
import { convertToLlm } from "../../src/ops/llm.js";
import { pathTo } from "../../src/ops/path.js";
import { resolveRef } from "../../src/ops/refs.js";
import { contextMarkdown } from "../../src/render/context-markdown.js";
import { contextText, formatBytes, formatTime } from "../../src/render/context-text.js";
import { makeStyle } from "../../src/render/style.js";
import { expectGolden } from "../support/golden.js";
import { fixture } from "../support/helpers.js";

const scenarios = readdirSync(fixture("context"))
  .filter((f) => f.endsWith(".jsonl") && f !== "cycle.jsonl")
  .map((f) => f.replace(/\.jsonl$/, ""));

async function load(name: string, ref = "leaf", opts: Partial<ContextDisplayOptions> = {}) {
  const session = await loadSession(
    { kind: "file", path: fixture("context", `${name}.jsonl`) },
    { name: `fixtures/context/${name}.jsonl` },
  );
  const r = resolveRef(session, ref);
  if (!r.ok) throw new Error(ref);
  const p = pathTo(session, r.rec);
  if (!p.ok) throw new Error("cycle");
  const ctx = buildContext(session, p.path, (rec) => readEntry(session, rec));
  const facts = contextFacts(ctx, p.path, convertToLlm(ctx.messages).length);
  const doc = describeContext(session.file, r.rec, { context: ctx, facts }, { thinking: true, maxOutput: 20, ...opts });
  session.store.close();
  return { session, ctx, doc, path: p.path };
}

const text = (doc: Awaited<ReturnType<typeof load>>["doc"]) => [...contextText(doc, { style: makeStyle(false) })].join("");
const md = (doc: Awaited<ReturnType<typeof load>>["doc"]) => [...contextMarkdown(doc)].join("");

describe("context renderers (golden, colour off)", () => {
  it.each(scenarios)("%s: text and Markdown", async (name) => {
    const { doc } = await load(name);
    expectGolden(`context-${name}.txt`, text(doc));
    expectGolden(`context-${name}.md`, md(doc));
  });

  it("--show-edits shows what edited messages said in the file and the messages edits removed", async () => {
    const plain = await load("edits");
    expect(plain.doc.edits).toEqual({ onPath: 3, applied: 3, editedMessages: 2, removedMessages: 1 });
    const plainText = text(plain.doc);
    expect(plainText).toContain("edited by line 7");
    expect(plainText).not.toContain("sk-live-1234");
    expect(plainText).not.toContain("Try deleting node_modules.");
    const shown = await load("edits", "leaf", { showEdits: true });
    const shownText = text(shown.doc);
    expect(shownText).toContain("sk-live-1234");
    expect(shownText).toContain("removed by line 8: the model never saw it");
    // The removed reply stands where it was, between the tool result and the last reply.
    expect(shownText.indexOf("Try deleting node_modules.")).toBeGreaterThan(shownText.indexOf("[3 type errors, TS2322]"));
    expect(shownText.indexOf("Try deleting node_modules.")).toBeLessThan(shownText.indexOf("Three type errors"));
    expectGolden("context-edits-show-edits.txt", shownText);
    expectGolden("context-edits-show-edits.md", md(shown.doc));
  });

  it("--no-thinking hides thinking; --max-output 0 shows everything; a cut says how much is left", async () => {
    const withThinking = text((await load("compaction-kept")).doc);
    expect(withThinking).toContain("┊ Step three touches the CLI.");
    const without = text((await load("compaction-kept", "leaf", { thinking: false })).doc);
    expect(without).not.toContain("Step three touches the CLI.");
    expect(without).toContain("Step three done.");
    const all = text((await load("roles", "leaf", { maxOutput: 0 })).doc);
    expect(all).toContain("line 45 of the output");
    expect(all).not.toContain("more lines");
    const cut = text((await load("roles", "leaf", { maxOutput: 3 })).doc);
    expect(cut).toContain("… 42 more lines");
    expect(cut).not.toContain("line 4 of the output");
  });

  it("an earlier leaf has its own context", async () => {
    const { doc } = await load("compaction-kept", "@6");
    expect(doc.compaction).toBeNull();
    expect(doc.thinkingLevel).toBe("high");
    expect(doc.items.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expectGolden("context-compaction-kept-at-6.txt", text(doc));
  });

  it("control characters never reach the output raw, in text or Markdown", async () => {
    const { doc } = await load("control-chars");
    for (const out of [text(doc), md(doc)]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(out).toContain("\\x1b[31mred");
    }
    // A fence in the content cannot close the Markdown fence around a tool output.
    expect(md(doc)).toContain("````text\n\\x1b]0;owned\\x07done \nnext | pipe `tick` and ```fence```\n````");
  });
});

describe("context model", () => {
  it("a message entry without message: skipped, reported with its line (pi throws)", async () => {
    const { ctx } = await load("message-without-message");
    expect(ctx.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(ctx.problems.map((d) => [d.code, d.line, d.args.found])).toEqual([
      ["message-missing", 4, "none"],
      ["message-missing", 6, "null"],
    ]);
  });

  it("compaction: summary first, the kept range from firstKeptEntryId, then what follows; sources name the entries", async () => {
    const { ctx, doc } = await load("compaction-kept");
    expect(ctx.compaction?.line).toBe(8);
    expect(ctx.keptFrom?.line).toBe(6);
    expect(ctx.sources.map((r: EntryRec) => r.line)).toEqual([8, 6, 7, 9, 10]);
    expect(ctx.model).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
    expect(doc.compaction).toMatchObject({ line: 8, kept: 2, keptFrom: { line: 6 } });
  });

  it("orphan results and unanswered calls are marked and reported", async () => {
    const orphan = await load("orphan-tool-result");
    expect(orphan.doc.items.find((m) => m.role === "toolResult")?.orphan).toBe(true);
    const unanswered = await load("unanswered-call");
    const calls = unanswered.doc.items[1]?.parts.filter((p) => p.kind === "call");
    expect(calls?.map((c) => (c.kind === "call" ? c.result !== null : null))).toEqual([true, false]);
  });

  it("images are described by type and decoded size", async () => {
    const { doc } = await load("images");
    expect(doc.items[0]?.parts[1]).toEqual({ kind: "image", mimeType: "image/png", bytes: 12600 });
    expect(formatBytes(12600)).toBe("12.3 KB");
  });

  it("times are UTC and invalid ones show as ?", () => {
    expect(formatTime(Date.UTC(2025, 0, 6, 9, 45, 25, 261))).toBe("2025-01-06 09:45:25Z");
    expect(formatTime(NaN)).toBe("?");
    expect(compactArgs({ path: "a.ts", limit: 3 }, 80)).toBe('path="a.ts" limit=3');
    expect(compactArgs({ s: "x".repeat(100) }, 20)).toHaveLength(20);
  });
});

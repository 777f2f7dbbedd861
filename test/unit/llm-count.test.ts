import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { readEntry } from "../../src/model/session.js";
import { buildContext } from "../../src/ops/context.js";
import { convertToLlm, llmCount } from "../../src/ops/llm.js";
import { pathTo } from "../../src/ops/path.js";
import { ROOT, sessionFiles } from "../support/helpers.js";

/** The display counts the messages sent to the model without converting them: the count convertToLlm gives. */
describe("llmCount is the length of convertToLlm's messages", () => {
  it("odd values", () => {
    const odd: unknown[] = [
      null,
      undefined,
      1,
      "x",
      {},
      { role: "bashExecution", excludeFromContext: true, command: "ls" },
      { role: "bashExecution", excludeFromContext: 0 },
      { role: "bashExecution" },
      { role: "weird" },
      { role: "custom", content: "c" },
      { role: "branchSummary", summary: "s" },
      { role: "compactionSummary", summary: "s" },
      { role: "system" },
      { role: "user" },
      { role: "assistant" },
      { role: "toolResult" },
    ];
    for (let i = 0; i < odd.length; i++) expect(llmCount(odd.slice(i))).toBe(convertToLlm(odd.slice(i)).length);
  });
  it.each(sessionFiles().map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const s = await loadSession({ kind: "file", path: f });
    try {
      if (!s.defaultLeaf) return;
      const p = pathTo(s, s.defaultLeaf);
      if (!p.ok) return;
      const ctx = buildContext(s, p.path, (r) => readEntry(s, r));
      expect(llmCount(ctx.messages)).toBe(convertToLlm(ctx.messages).length);
    } finally {
      s.store.close();
    }
  });
});

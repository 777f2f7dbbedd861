import { describe, expect, expectTypeOf, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { contextReport, type HeldMessage } from "../../src/reports/context.js";
import type { EntryRec } from "../../src/model/detail.js";
import { describeContextStream } from "../../src/render/context-display.js";
import type { SessionContext } from "../../src/ops/context.js";
import { contextFacts } from "../../src/ops/context-facts.js";
import { llmCount } from "../../src/ops/llm.js";
import { contextJsonChunks } from "../../src/render/context-json.js";
import { fixture } from "../support/helpers.js";

/**
 * contextReport takes what a user asks (#27): the output form ("json" | "text" | "markdown"), not speed knobs
 * (jsonOnly, displayOnly, display.stream). Where it holds messages that are not pi's values, its type says so.
 */
describe("contextReport: options are the output a user asks for", () => {
  it("has no option for speed alone", async () => {
    const s = await loadSession({ kind: "file", path: fixture("context", "roles.jsonl") }, { detail: "skeleton" });
    try {
      // @ts-expect-error jsonOnly is gone: the output form picks the fast path
      contextReport(s, { output: "json", jsonOnly: true });
      // @ts-expect-error displayOnly is gone
      contextReport(s, { output: "text", displayOnly: true });
      // @ts-expect-error display is gone: the display model is made from the report's data (render/context-display.ts)
      contextReport(s, { display: { thinking: true, maxOutput: 3 } });
    } finally {
      s.store.close();
    }
  });

  it("holds the display's facts in every form but json: made when first read, the same each time, part of the data", async () => {
    const s = await loadSession({ kind: "file", path: fixture("context", "roles.jsonl") }, { detail: "skeleton" });
    try {
      const forms = [
        () => contextReport(s).data.context,
        () => contextReport(s, { output: "text" }).data.context,
        () => contextReport(s, { output: "markdown" }).data.context,
      ];
      for (const form of forms) {
        const c = form();
        if (c === null) throw new Error("no context");
        expect(Object.keys(c)).toContain("facts");
        const facts = c.facts;
        expect(c.facts).toBe(facts);
        // Held messages (text, markdown) are read whole through `whole`, as the report itself hands them to contextFacts.
        const ctx = c.context as SessionContext;
        expect(facts).toEqual(contextFacts(ctx, c.path, llmCount(ctx.messages), undefined, c.whole));
      }
      expect(Object.keys(contextReport(s, { output: "json" }).data.context ?? {})).not.toContain("facts");
    } finally {
      s.store.close();
    }
  });

  it("says in its type which messages are pi's values, and writes the same JSON either way", async () => {
    const s = await loadSession({ kind: "file", path: fixture("context", "roles.jsonl") }, { detail: "skeleton" });
    try {
      const values = contextReport(s, {}).data.context;
      const held = contextReport(s, { output: "json" }).data.context;
      const shown = contextReport(s, { output: "markdown" }).data.context;
      expectTypeOf(values?.messages).toEqualTypeOf<readonly unknown[] | undefined>();
      expectTypeOf(held?.messages).toEqualTypeOf<readonly HeldMessage[] | undefined>();
      expectTypeOf(shown?.messages).toEqualTypeOf<readonly HeldMessage[] | undefined>();
      if (values === null || held === null || shown === null) throw new Error("no context");
      const doc = (c: typeof held | typeof values, json?: (i: number) => string | undefined) =>
        [...contextJsonChunks(s.file, null, c.context, c.messages, c.sources, c.editedBy, true, json)].join("");
      expect(doc(held, held.messageJson)).toBe(doc(values));
      expect(JSON.parse(doc(values)).messages.length).toBeGreaterThan(0);
      // The report makes no display model: its renderers do, from its facts, and stream the items.
      expect("display" in shown).toBe(false);
      expect(Array.isArray(describeContextStream(s.file, s.defaultLeaf as EntryRec, shown, { thinking: true, maxOutput: 3 }).items)).toBe(
        false,
      );
    } finally {
      s.store.close();
    }
  });
});

describe("context --json's entries", () => {
  it("are JSON.stringify's text of each ref, ids escaped, a missing id null, an edit's ref inside", () => {
    const rec = (id: string | undefined, line: number, type: string) => ({ id, line, type }) as unknown as EntryRec;
    const sources = [rec('a"b\\c', 2, "message"), rec(undefined, 3, "custom_message"), rec("é\u2028😀\ud800", 4, "message")];
    const editedBy = [undefined, rec("e\n1", 9, "context_edit"), rec(undefined, 10, "context_edit")];
    const text = [...contextJsonChunks("f.jsonl", null, { thinkingLevel: "off", model: null }, [{}, {}, {}], sources, editedBy, true)].join(
      "",
    );
    const doc = JSON.parse(text);
    expect(doc.entries).toEqual([
      { id: 'a"b\\c', line: 2, type: "message" },
      { id: null, line: 3, type: "custom_message", edit: { id: "e\n1", line: 9 } },
      { id: "é\u2028😀\ud800", line: 4, type: "message", edit: { id: null, line: 10 } },
    ]);
    expect(text).toBe(`${JSON.stringify(doc)}\n`);
  });
});

import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { checkContextEdits } from "../../src/check/edits.js";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import { contextReport } from "../../src/reports/context.js";

/**
 * validate's `context-edit-not-editable` says what a null edit of a target pi's writer refuses does to the
 * context ("removes" its messages, or "none"). That is the context's own rule, so it is checked against the
 * context pisess builds with and without the edit, for every kind of target.
 */

async function fromLines(lines: unknown[]): Promise<Session> {
  const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
  return loadSession({ kind: "stream", name: "mem.jsonl", stream: Readable.from([Buffer.from(text)]) }, { name: "mem.jsonl" });
}

const T = (n: number) => new Date(Date.UTC(2025, 0, 1, 9, 0, 0) + n * 60_000).toISOString();
const HEADER = { type: "session", version: 3, id: "01942660-60f2-76c4-b069-c43a8c3b7cf3", timestamp: T(0), cwd: "/w" };
const u1 = { type: "message", id: "u1", parentId: null, timestamp: T(1), message: { role: "user", content: "hi", timestamp: 1 } };
const u2 = { type: "message", id: "u2", parentId: "t", timestamp: T(3), message: { role: "user", content: "again", timestamp: 3 } };
const nullEdit = { type: "context_edit", id: "e", parentId: "u2", timestamp: T(4), targetId: "t", replacement: null };

/** Targets pi's writer refuses (each becomes entry "t" between u1 and u2). */
const TARGETS: Record<string, Record<string, unknown>> = {
  "message without message": { type: "message" },
  "message: null": { type: "message", message: null },
  bashExecution: { type: "message", message: { role: "bashExecution", command: "ls", output: "a", exitCode: 0, timestamp: 2 } },
  branch_summary: { type: "branch_summary", fromId: "u1", summary: "tried x" },
  "branch_summary, empty": { type: "branch_summary", fromId: "u1", summary: "" },
  label: { type: "label", targetId: "u1", label: "x" },
  custom: { type: "custom", customType: "state", data: {} },
  model_change: { type: "model_change", provider: "p", modelId: "m" },
};

async function messagesAt(lines: unknown[]): Promise<string> {
  const s = await fromLines(lines);
  try {
    return JSON.stringify(contextReport(s, {}).data.context?.messages ?? null);
  } finally {
    s.store.close();
  }
}

/** The check's effect for a null edit of `body` (as entry "t") is what the edit does to the context. */
async function expectAgreement(body: Record<string, unknown>): Promise<void> {
  const t = { ...body, id: "t", parentId: "u1", timestamp: T(2) };
  const s = await fromLines([HEADER, u1, t, u2, nullEdit]);
  let effect: unknown;
  try {
    effect = checkContextEdits(s).find((d) => d.code === "context-edit-not-editable")?.args.effect;
  } finally {
    s.store.close();
  }
  const removes = (await messagesAt([HEADER, u1, t, u2])) !== (await messagesAt([HEADER, u1, t, u2, nullEdit]));
  expect(effect).toBe(removes ? "removes" : "none");
}

describe("a null edit's effect on a target pi's writer refuses: check and context agree", () => {
  for (const [name, body] of Object.entries(TARGETS)) {
    it(name, () => expectAgreement(body));
  }

  // A message that is not an object: buildContext (as pi) passes the 5 on, and the index's hasMessage says so too.
  it("message: 5 (not an object, not null)", () => expectAgreement({ type: "message", message: 5 }));

  it("a message entry without message gives nothing, so a null edit of it changes nothing (pi 1.6.0 throws there)", async () => {
    const s = await fromLines([HEADER, u1, { type: "message", id: "t", parentId: "u1", timestamp: T(2) }, u2, nullEdit]);
    try {
      expect(checkContextEdits(s).find((d) => d.code === "context-edit-not-editable")?.args.effect).toBe("none");
    } finally {
      s.store.close();
    }
  });
});

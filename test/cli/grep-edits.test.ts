import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { grepSession } from "../../src/ops/grep.js";
import { fixture, spawnCli } from "../support/helpers.js";

const hits = async (pattern: string) => {
  const session = await loadSession({ kind: "file", path: fixture("context", "edits.jsonl") }, { detail: "skeleton" });
  try {
    return [...grepSession(session, { re: new RegExp(pattern) })];
  } finally {
    session.store.close();
  }
};

describe("grep and context edits", () => {
  it("searches the replacement content of context edits and says which version matched", async () => {
    const found = await hits("redacted|sk-live");
    expect(found.map((h) => [h.line, h.field, h.version, h.target, h.editedBy])).toEqual([
      [3, "text", "recorded", undefined, [{ id: "e0000006", line: 7, removes: false }]],
      [7, "edit", "edited", { id: "e0000002", line: 3 }, undefined],
    ]);
  });

  it("marks recorded text that an edit removed from the context", async () => {
    const [hit] = await hits("node_modules");
    expect(hit?.editedBy).toEqual([{ id: "e0000007", line: 8, removes: true }]);
  });

  it("the text output names the edit or the edited entry", async () => {
    const r = spawnCli(["grep", "redacted|sk-live", fixture("context", "edits.jsonl")]);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.replace(/^.*edits\.jsonl:/, "")),
    ).toEqual([
      "3:e0000002: (recorded; edited by @7) My API key is sk-live-1234. Why does the build fail?",
      "7:e0000006: (edit of @3) My API key is [redacted]. Why does the build fail?",
    ]);
  });
});

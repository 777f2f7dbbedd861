import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { pathPlaces } from "../../src/ops/bloat.js";
import { pathTo } from "../../src/ops/path.js";
import { compactionsReport } from "../../src/reports/compactions.js";
import { fixture, runCli } from "../support/helpers.js";

// fixtures/compactions/edited-out.jsonl (make.mjs): lines 2-5 are c01 user, c02 assistant, c03 user, c04 assistant;
// line 6 the compaction c05 keeping from c03; line 7 a context_edit taking c04 out; line 8 a user.
const F = fixture("compactions", "edited-out.jsonl");

describe("compactions: entries a context_edit removed are edited out, not dropped by the compaction", () => {
  it("splits kept, edited out and dropped as bloat places them", async () => {
    const session = await loadSession({ kind: "file", path: F }, { detail: "skeleton" });
    try {
      const c = compactionsReport(session).data.compactions[0]!;
      expect(c.dropped.lines).toEqual([2, 3]);
      expect(c.dropped.messages).toBe(2);
      expect(c.dropped.toolCalls).toEqual([]);
      expect(c.kept.lines).toEqual([4]);
      expect(c.editedOut).toEqual({ lines: [5], entries: 1, messages: 1 });
      // bloat's places for the same entries: the same rule.
      const path = pathTo(session, session.defaultLeaf!);
      if (!path.ok) throw new Error("cycle");
      const { places } = pathPlaces(session, path.path, undefined);
      const at = (line: number) => places[session.entries.find((e) => e.line === line)!.index];
      expect([2, 3, 4, 5].map(at)).toEqual(["summarised", "summarised", "context", "edited-out"]);
    } finally {
      session.store.close();
    }
  });

  it("text output names them apart", async () => {
    const r = await runCli(["compactions", F, "--color", "never"]);
    expect(r.stdout).toContain("  edited out (context_edit, not the compaction): 1 entry, 1 message; lines 5\n");
    expect(r.stdout).toContain("  dropped: 2 entries, 2 messages (assistant 1, user 1)");
  });
});

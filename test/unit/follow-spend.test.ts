import { describe, expect, it } from "vitest";
import { fixture, runCli } from "../support/helpers.js";

// fixtures/follow/spend.jsonl: u0000001 user; a0000002 assistant (1,200 in, 80 out, 3,000 cache read, 500 cache
// write, $0.0123); k0000003 a compaction whose firstKeptEntryId is its own id (pi 1.6's "keep nothing");
// u0000004 user; a0000005 assistant (900 in, 20 out, $0.003); k0000006 a compaction keeping from u0000004.
const F = fixture("follow", "spend.jsonl");
const ENV = { NO_COLOR: "1", PISESS_FOLLOW_POLL_MS: "20" };

describe("follow: assistant turns carry their tokens and cost; compactions say what they kept as context does", () => {
  it("text: a turn line under each assistant message; a compaction keeping nothing says so", async () => {
    const r = await runCli(["follow", F, "--from-start", "--until-idle", "0.3"], { env: ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "• u0000001 user: hello",
        "• a0000002 assistant: hi there",
        "  ⤷ turn: 4.8k tokens (1.2k in, 80 out, 3.0k cache read, 500 cache write), $0.0123",
        "• k0000003 [compaction: 4.8k tokens] said hello",
        "  ⤷ compaction: 4.8k tokens before; nothing kept",
        "• u0000004 user: again",
        "• a0000005 assistant: ok",
        "  ⤷ turn: 920 tokens (900 in, 20 out), $0.0030",
        "• k0000006 [compaction: 920 tokens] said hello twice",
        "  ⤷ compaction: 920 tokens before; kept from line 5 (u0000004)",
        "",
      ].join("\n"),
    );
  });

  it("the compaction's words are context's for the same leaf", async () => {
    const ctx = await runCli(["context", F, "--leaf", "@4"]);
    expect(ctx.stdout).toContain("compaction: line 4 (k0000003), 4.8k tokens before; nothing kept\n");
  });

  it("--ndjson: spend on the entries that count in the totals, null on the others", async () => {
    const r = await runCli(["follow", F, "--from-start", "--until-idle", "0.3", "--ndjson"], { env: ENV });
    expect(r.code).toBe(0);
    const rows = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; spend: unknown; entry: unknown });
    expect(rows.map((o) => [o.id, o.spend])).toEqual([
      ["u0000001", null],
      ["a0000002", { input: 1200, output: 80, cacheRead: 3000, cacheWrite: 500, tokens: 4780, cost: 0.0123 }],
      ["k0000003", null],
      ["u0000004", null],
      ["a0000005", { input: 900, output: 20, cacheRead: 0, cacheWrite: 0, tokens: 920, cost: 0.003 }],
      ["k0000006", null],
    ]);
    // spend sits before entry, after tree --ndjson's fields.
    expect(r.stdout.split("\n")[1]).toMatch(/"children":\[\],"spend":\{[^}]*\},"entry":\{/);
  });
});

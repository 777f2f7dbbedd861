import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { leavesReport } from "../../src/reports/leaves.js";
import { sqlReport } from "../../src/reports/sql.js";
import { fixture, sessionFiles } from "../support/helpers.js";

/** The `leaves` table of `pisess sql` holds the numbers `pisess leaves` prints, leaf for leaf. */

const SESSIONS = fixture("fleet", "sessions");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };
const FILES = sessionFiles(SESSIONS);

async function leafTable(): Promise<Record<string, unknown>[]> {
  const r = await sqlReport({ query: "SELECT * FROM leaves ORDER BY session, line", targets: [SESSIONS], env, cwd: "/" });
  return r.data.rows.map((row) => Object.fromEntries(r.data.columns.map((c, i) => [c, row[i]])));
}

describe("sql: the leaves table", () => {
  it("every leaf of every session, with the depth, default mark, turns and path totals pisess leaves prints", async () => {
    const table = await leafTable();
    const want: Record<string, unknown>[] = [];
    for (const f of FILES.sort()) {
      const session = await loadSession({ kind: "file", path: f }, { detail: "full" });
      const r = await leavesReport(session);
      for (const l of r.data.leaves)
        want.push({
          session: f,
          line: l.line,
          id: l.id,
          depth: l.depth,
          is_default: l.isDefault,
          cycle: l.cycle,
          turns: l.byKind.find((k) => k.source === "assistant")?.entries ?? 0,
          input: l.totals.input,
          output: l.totals.output,
          cache_read: l.totals.cacheRead,
          cache_write: l.totals.cacheWrite,
          cost: l.totals.cost,
        });
    }
    want.sort((a, b) =>
      a.session === b.session ? (a.line as number) - (b.line as number) : (a.session as string) < (b.session as string) ? -1 : 1,
    );
    const got = table.map((row) => Object.fromEntries(Object.keys(want[0] ?? {}).map((k) => [k, row[k]])));
    expect(got).toEqual(want);
    expect(want.length).toBe(9);
  });

  it("known values: the failed bash call's branch, the parent's models and compaction, a fork's copies left out", async () => {
    const table = await leafTable();
    const at = (name: string, line: number) => table.find((r) => (r.session as string).endsWith(`/${name}`) && r.line === line);
    // b-branchy: the first branch (leaf at line 5) holds the bash call whose result failed.
    expect(at("b-branchy.jsonl", 5)).toMatchObject({ tool_calls: 1, errors: 1, compactions: 0, is_default: false, depth: 3 });
    expect(at("a-parent.jsonl", 9)).toMatchObject({
      compactions: 1,
      models: '["anthropic/claude-opus-4-6","anthropic/claude-sonnet-4-5"]',
      is_default: true,
    });
    // a-fork copies four messages of a-parent: its leaf counts its one own turn only.
    expect(at("a-fork.jsonl", 7)).toMatchObject({ turns: 1, depth: 5 });
    expect(at("b-branchy.jsonl", 5)?.first_time).toBe("2026-01-10 12:00:01+00");
  });
});

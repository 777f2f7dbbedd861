import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { infoReport } from "../../src/reports/info.js";
import { leavesReport } from "../../src/reports/leaves.js";
import { lsReport } from "../../src/reports/ls.js";
import { fixture } from "../support/helpers.js";

// Issue "What a new user hit", item 5: a fork cycle of any length must not hide a session's own spend.

/** The cost of every assistant message in the file, summed here from the raw lines (not by pisess). */
function ownCost(path: string): number {
  let sum = 0;
  for (const line of readFileSync(path, "utf8").split("\n").slice(1)) {
    if (!line) continue;
    const e = JSON.parse(line) as { message?: { role?: string; usage?: { cost?: { total?: number } } } };
    if (e.message?.role === "assistant") sum += e.message.usage?.cost?.total ?? 0;
  }
  return sum;
}

const cases = [
  ["a header naming the file itself", "fork-self.jsonl"],
  ["two files naming each other (this one)", "fork-cycle-a.jsonl"],
  ["two files naming each other (the other)", "fork-cycle-b.jsonl"],
] as const;

describe("fork cycles keep a session's own spend", () => {
  for (const [what, name] of cases) {
    const path = fixture("newuser", name);
    const expected = ownCost(path);

    it(`${what}: info counts it, copies nothing, says why`, async () => {
      expect(expected).toBeGreaterThan(0);
      const s = await loadSession({ kind: "file", path });
      try {
        const info = (await infoReport(s)).data;
        expect(info.totals.cost).toBeCloseTo(expected, 10);
        expect(info.copied).toBeNull();
        expect(info.header?.forkCycle).toBe(true);
        expect(info.leaves.every((l) => l.ownTotals.cost > 0)).toBe(true);
      } finally {
        s.store.close();
      }
    });

    it(`${what}: leaves count it`, async () => {
      const s = await loadSession({ kind: "file", path });
      try {
        const leaves = (await leavesReport(s)).data.leaves;
        expect(leaves.reduce((a, l) => a + l.ownTotals.cost, 0)).toBeCloseTo(expected, 10);
      } finally {
        s.store.close();
      }
    });

    it(`${what}: ls counts it`, async () => {
      const r = await lsReport({ dirs: [path], env: {}, cwd: fixture("newuser") });
      expect(r.data.sessions[0]?.totals.cost).toBeCloseTo(expected, 10);
    });
  }
});

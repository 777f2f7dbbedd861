import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { infoReport } from "../../src/reports/info.js";
import { fixture, sessionFiles } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";

// `pisess info` loads its session in the spend detail (skeleton fields and usage, no previews, most lines never
// parsed whole). Its report and findings must be what a full load gives, on every fixture.

describe("info on a spend load", () => {
  it("reports what it reports on a full load, on every fixture, with copied entries left out or counted", async () => {
    let withSpend = 0;
    for (const file of sessionFiles(fixture())) {
      // One load of each detail serves both reports (infoReport only reads the session).
      const full = await loadSession({ kind: "file", path: file });
      const spend = await loadSession({ kind: "file", path: file }, { detail: "spend" });
      try {
        for (const includeCopied of [false, true]) {
          const a = await infoReport(full, { includeCopied });
          const b = await infoReport(spend, { includeCopied });
          expectEqual(b, a, `${file} includeCopied=${includeCopied}`);
          if (a.data.totals.cost > 0) withSpend++;
        }
      } finally {
        full.store.close();
        spend.store.close();
      }
    }
    // Not only empty sessions: many carry costs, models and leaves.
    expect(withSpend).toBeGreaterThan(20);
  });
});

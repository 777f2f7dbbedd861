import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSession, contentChecks } from "../src/check/validate.js";
import { openSession } from "../src/reports/open.js";
import { validateReport } from "../src/reports/validate.js";
import { fixture } from "./helpers.js";

// validate runs its per-entry content checks inside the load (LoadOptions.onEntry), on the value the loader parsed,
// instead of reading and parsing every line again. Both routes must find exactly the same.

function sessionFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? sessionFiles(p) : n.endsWith(".jsonl") ? [p] : [];
    })
    .sort();
}

const FILES = sessionFiles(fixture());

describe("validate's content checks during the load", () => {
  it("find what a second read finds, on every fixture, strict or not", async () => {
    const codes = new Set<string>();
    for (const strict of [false, true]) {
      for (const file of FILES) {
        const reread = checkSession(await openSession(file), { strict });
        const checked = contentChecks({ strict });
        const session = await openSession(file, { onEntry: checked.onEntry });
        expect(checked.seen(), file).toBe(session.entries.length);
        const once = checkSession(session, { strict, checked });
        expect(once, `${file} strict=${strict}`).toEqual(reread);
        for (const d of once) codes.add(d.code);
      }
    }
    // The comparison covers every per-entry check.
    for (const code of ["schema-violation", "lone-surrogate", "usage-inconsistent", "unknown-key", "message-missing", "unknown-role"]) {
      expect(codes, code).toContain(code);
    }
  });

  it("an opener that does not pass onEntry on still gets every finding (the entries are read again)", async () => {
    const file = FILES.find((f) => f.endsWith("gen-v3-faults.jsonl")) as string;
    const plain = await validateReport({ inputs: [file], open: (f) => openSession(f) });
    const hooked = await validateReport({ inputs: [file], open: (f, o) => openSession(f, o) });
    expect(plain.data.results[0]?.diagnostics.some((d) => d.code === "schema-violation")).toBe(true);
    expect(plain.data.results).toEqual(hooked.data.results);
  });
});

import type { EntryRec } from "../../src/model/detail.js";
import type { EntryFields } from "../../src/model/types.js";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ContentChecks, checkSession, contentChecks } from "../../src/check/validate.js";
import { openSession } from "../../src/reports/open.js";
import { validateReport } from "../../src/reports/validate.js";
import { checkFieldsOf } from "../../src/model/fields.js";
import type { Session } from "../../src/model/session.js";
import { fixture, sessionFiles } from "../support/helpers.js";
import { rng } from "../support/fuzz/rng.js";
import { expectEqual, expectSame } from "../support/expect-fast.js";

// validate runs its per-entry content checks inside the load (LoadOptions.onEntry), on the value the loader parsed,
// instead of reading and parsing every line again. Both routes must find exactly the same.

const FILES = sessionFiles(fixture());
const cleanUp: string[] = [];
afterAll(() => {
  for (const dir of cleanUp) rmSync(dir, { recursive: true, force: true });
  // The worker goes on to other files (isolate: false): the loads are not kept for them.
  for (const { session } of fullLoads.values()) session.store.close();
  fullLoads.clear();
});

/**
 * What validate finds on a full load read a second time (the reference every test compares with), strict and not,
 * from one load per file; the load is kept for the last test's comparison of fields.
 */
const fullLoads = new Map<string, { session: Session<"full">; findings: Map<boolean, ReturnType<typeof checkSession>> }>();
async function fullLoad(file: string): Promise<{ session: Session<"full">; findings: Map<boolean, ReturnType<typeof checkSession>> }> {
  let loaded = fullLoads.get(file);
  if (loaded === undefined) {
    const session = await openSession(file);
    loaded = { session, findings: new Map([false, true].map((strict) => [strict, checkSession(session, { strict })])) };
    fullLoads.set(file, loaded);
  }
  return loaded;
}
/**
 * The content checks, not strict and strict, run by one load (the loader calls one onEntry, which hands each entry
 * to both: what the load does does not depend on the checks' options), for `check` to compare each with its
 * reference.
 */
async function bothChecked(
  file: string,
  detail: "full" | "check",
  check: (session: Session<"full" | "check">, strict: boolean, checked: ContentChecks) => void,
): Promise<void> {
  const byStrict = [false, true].map((strict) => ({ strict, checked: contentChecks({ strict }) }));
  const session = await openSession(file, {
    onEntry: (rec, value, text, at) => {
      for (const { checked } of byStrict) checked.onEntry(rec, value, text, at);
    },
    ...(detail === "check" ? { detail } : {}),
  });
  for (const { strict, checked } of byStrict) check(session, strict, checked);
}

describe("validate's content checks during the load", () => {
  it("find what a second read finds, on every fixture, strict or not", async () => {
    const codes = new Set<string>();
    for (const file of FILES) {
      const reread = await fullLoad(file);
      await bothChecked(file, "full", (session, strict, checked) => {
        expectSame(checked.seen(), session.entries.length, file);
        const once = checkSession(session, { strict, checked });
        expectEqual(once, reread.findings.get(strict), `${file} strict=${strict}`);
        for (const d of once) codes.add(d.code);
      });
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
    expectEqual(plain.data.results, hooked.data.results);
  });

  it("find on the check detail's index what they find on the full index, on every fixture, strict or not", async () => {
    for (const file of FILES) {
      const full = await fullLoad(file);
      await bothChecked(file, "check", (light, strict, checked) => {
        expectEqual(checkSession(light, { strict, checked }), full.findings.get(strict), `${file} strict=${strict}`);
      });
    }
  });

  it("find on the check detail's index what they find on the full index, on seeded mutations of the corpus", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pisess-check-detail-"));
    cleanUp.push(dir);
    // The generated corpus files up to 600 KB: every kind of entry and link, without the two largest (1–1.5 MB),
    // which cost most of this test's time and hold nothing the others lack.
    const corpus = FILES.filter((f) => /[\\/]corpus[\\/]gen/.test(f) && statSync(f).size <= 600_000);
    expect(corpus.length).toBeGreaterThan(3);
    let n = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const next = rng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
      const lines = readFileSync(pick(corpus), "utf8").split("\n");
      const ids = lines.map((l) => /"id":"([^"]*)"/.exec(l)?.[1]).filter((x): x is string => x !== undefined);
      // Edits that move links and tool calls, the fields the check detail keeps: a repeated line, a dropped line,
      // a parent or a tool call id pointing elsewhere, two lines swapped.
      for (let k = 0; k < 4; k++) {
        const i = 1 + Math.floor(next() * Math.max(1, lines.length - 2));
        const line = lines[i] ?? "";
        switch (Math.floor(next() * 5)) {
          case 0:
            lines.splice(i, 0, line);
            break;
          case 1:
            lines.splice(i, 1);
            break;
          case 2:
            lines[i] = line.replace(/"parentId":"[^"]*"/, `"parentId":"${pick(ids)}"`);
            break;
          case 3:
            lines[i] = line.replace(/"(toolCallId|id)":"(call[^"]*|toolu[^"]*)"/, `"$1":"${pick(ids)}"`);
            break;
          default: {
            const j = 1 + Math.floor(next() * Math.max(1, lines.length - 2));
            lines[i] = lines[j] ?? "";
            lines[j] = line;
          }
        }
      }
      const file = join(dir, `m${seed}.jsonl`);
      writeFileSync(file, lines.join("\n"));
      const full = checkSession(await openSession(file), {});
      const checked = contentChecks({});
      const light = await openSession(file, { onEntry: checked.onEntry, detail: "check" });
      expectEqual(checkSession(light, { checked }), full, file);
      n += full.length;
    }
    expect(n).toBeGreaterThan(0);
  });

  it("the check detail fills its fields as the full load does", async () => {
    for (const file of FILES) {
      const full = (await fullLoad(file)).session;
      const light = await openSession(file, { onEntry: () => {}, detail: "check" });
      expectSame(light.entries.length, full.entries.length, file);
      full.entries.forEach((f, i) => {
        const l = light.entries[i] as EntryRec;
        // Any load's record, read as the fields a load may fill.
        const lf: EntryFields = l;
        const ff: EntryFields = f;
        for (const k of checkFieldsOf(f.type, f.role)) expectEqual(lf[k], ff[k], `${file}:${f.line} ${k}`);
      });
    }
  });
});

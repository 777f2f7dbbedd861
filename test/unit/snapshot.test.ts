import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { snapshotHook } from "../../src/io/scan/index.js";
import { loadSession } from "../../src/model/load.js";
import { makeStyle } from "../../src/render/style.js";
import { validateFindingLines, validateSummaryLines } from "../../src/render/validate-text.js";
import { openFile } from "../../src/reports/open.js";
import { validateReport } from "../../src/reports/validate.js";
import { corpus, fixture } from "../support/helpers.js";
import { contextJsonOut, diffJsonOut, infoOut, type Out, pathNdjsonOut, treeOut } from "../support/inproc.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  snapshotHook.afterSize = null;
});

async function validateOut(file: string): Promise<Out> {
  const r = await validateReport({ inputs: [file], quiet: false, open: openFile });
  const style = makeStyle(false);
  return {
    stdout: `${[...validateFindingLines(r.data.shown, style), ...validateSummaryLines(r.data.summary, style, r.data.hidden)].join("\n")}\n`,
    code: r.exitCode,
  };
}

/** Every reading command, as its report and renderer write it (in process). */
const COMMANDS: [string, (f: string) => Promise<Out>][] = [
  ["tree", (f) => treeOut(f)],
  ["tree --json", (f) => treeOut(f, { output: "json" })],
  ["path --ndjson", (f) => pathNdjsonOut(f)],
  ["context --json", (f) => contextJsonOut(f)],
  ["validate", validateOut],
  ["info", (f) => infoOut(f)],
  ["info --json", (f) => infoOut(f, { json: true })],
  ["diff --json", (f) => diffJsonOut(f, { a: "@3" })],
];

const source = readFileSync(fixture("tree", "branched.jsonl"));
const lineEnds = [...source.entries()].filter(([, b]) => b === 0x0a).map(([i]) => i + 1);
// The prefix a reader sees: six complete lines and half of the seventh (pi half way through writing it).
const cut = (lineEnds[5] as number) + Math.floor(((lineEnds[6] as number) - (lineEnds[5] as number)) / 2);
const prefix = source.subarray(0, cut);
const rest = source.subarray(cut);

describe("snapshot rule: a reading command on a file being appended to", () => {
  for (const [name, run] of COMMANDS) {
    it(`${name}: the result for the prefix it saw, the rest of the write ignored`, async () => {
      const growing = join(dir, "live-a", "s.jsonl");
      const still = join(dir, "live-b", "s.jsonl");
      for (const f of [growing, still]) {
        rmSync(join(f, ".."), { recursive: true, force: true });
        mkdirSync(join(f, ".."), { recursive: true });
      }
      writeFileSync(growing, prefix);
      writeFileSync(still, prefix);
      let grown = 0;
      // The writer finishes its line and appends the rest just after the reader took the size (every read).
      snapshotHook.afterSize = (p) => {
        if (p === growing && grown++ === 0) appendFileSync(growing, rest);
      };
      const seen = await run(growing);
      snapshotHook.afterSize = null;
      expect(grown, "the hook ran").toBeGreaterThan(0);
      expect(readFileSync(growing).equals(source)).toBe(true);
      const expected = await run(still);
      const norm = (o: Out, f: string) => ({ code: o.code, stdout: o.stdout.split(f).join("FILE") });
      expect(norm(seen, growing)).toEqual(norm(expected, still));
      // And the whole file, read afterwards, gives another answer: the test can fail.
      expect(norm(await run(growing), growing)).not.toEqual(norm(expected, still));
    });
  }
});

describe("snapshot rule: the unfinished last line", () => {
  const f = join(dir, "tail.jsonl");
  /** Writes the prefix with a fixed mtime: the tests say when "now" is instead of waiting. */
  const mtime = (): Date => {
    writeFileSync(f, prefix);
    return new Date(Date.parse("2026-01-01T00:00:00Z"));
  };

  it("a live file: held back, reported as incomplete-last-line (info), never as truncated-line", async () => {
    const t = mtime();
    utimesSync(f, t, t);
    const s = await loadSession({ kind: "file", path: f }, { now: t.getTime() + 4000 });
    s.store.close();
    expect(s.entries.map((e) => e.line)).toEqual([2, 3, 4, 5, 6]);
    expect(s.diagnostics.map((d) => [d.code, d.severity, d.line, d.args])).toEqual([
      ["incomplete-last-line", "info", 7, { bytes: cut - (lineEnds[5] as number) }],
    ]);
    expect(s.facts.bytes).toBe(lineEnds[5]);
  });

  it("the same bytes in a file left alone for longer than the window: truncated-line (error), as before", async () => {
    const t = mtime();
    utimesSync(f, t, t);
    for (const detail of ["full", "skeleton"] as const) {
      const s = await loadSession({ kind: "file", path: f }, { now: t.getTime() + 6000, detail });
      s.store.close();
      expect(
        s.diagnostics.map((d) => [d.code, d.line]),
        detail,
      ).toEqual([["truncated-line", 7]]);
      expect(s.facts.bytes).toBe(prefix.length);
    }
  });

  it("skeleton and full reads agree on a live file", async () => {
    const t = mtime();
    utimesSync(f, t, t);
    const full = await loadSession({ kind: "file", path: f }, { now: t.getTime() + 1000 });
    const skel = await loadSession({ kind: "file", path: f }, { now: t.getTime() + 1000, detail: "skeleton" });
    full.store.close();
    skel.store.close();
    expect(skel.diagnostics).toEqual(full.diagnostics);
    expect(skel.facts).toEqual(full.facts);
    expect(skel.entries.map((e) => e.id)).toEqual(full.entries.map((e) => e.id));
  });

  it("a complete file is read whole whatever its age", async () => {
    const s = await loadSession({ kind: "file", path: corpus("gen-v3-branchy.jsonl") }, { now: Date.now() });
    s.store.close();
    expect(s.diagnostics).toEqual([]);
    expect(s.facts.bytes).toBe(readFileSync(corpus("gen-v3-branchy.jsonl")).length);
  });
});

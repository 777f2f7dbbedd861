import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { compactionsReport, type CompactionsData } from "../../src/reports/compactions.js";
import { corpus, fixture, ROOT, runCli, spawnCli, expectedOf } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";

type Obj = Record<string, unknown>;

async function report(path: string, opts: { leaf?: string; all?: boolean } = {}) {
  const session = await loadSession({ kind: "file", path }, { detail: "skeleton" });
  try {
    return compactionsReport(session, opts);
  } finally {
    session.store.close();
  }
}

interface Leaf {
  line: number;
  contextLeafLine?: number;
  error?: string;
  contextError?: unknown;
  path?: number[];
  messageLines?: number[];
}

/** Whether a raw line is an entry that adds messages to a context (pi's rules), compactions left out. */
function addsMessages(text: string): boolean {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof o !== "object" || o === null) return false;
  const e = o as Obj;
  if (e.type === "message") return typeof e.message === "object" && e.message !== null;
  if (e.type === "custom_message") return true;
  if (e.type === "branch_summary") return Boolean(e.summary);
  return false;
}

describe("compactions: kept and dropped equal pi's own context at every leaf", () => {
  // pi 1.6's answers name the line behind every context message (messageLines): the independent truth.
  const files = readdirSync(`${ROOT}/fixtures/corpus`).filter((f) => /^(pi16|gen16)-.*\.jsonl$/.test(f));
  it.each(files)("%s", async (f) => {
    const exp = expectedOf(f) as { leaves: Leaf[] };
    const lines = readFileSync(corpus(f), "utf8").split("\n");
    // What the reference reads of a line, parsed once per line (each leaf's path goes over the same lines again).
    const memo = <T>(of: (text: string) => T) => {
      const known = new Map<number, T>();
      return (l: number): T => {
        if (!known.has(l)) known.set(l, of(lines[l - 1] as string));
        return known.get(l) as T;
      };
    };
    const isCompaction = memo((text) => (JSON.parse(text) as Obj).type === "compaction");
    const adds = memo(addsMessages);
    const parsed = memo((text) => JSON.parse(text) as Obj);
    // Lines whose id a `replacement: null` context_edit on the path names.
    const nullTargets = (path: number[]) => {
      const ids = new Set(
        path
          .map(parsed)
          .filter((o) => o.type === "context_edit" && o.replacement === null)
          .map((o) => o.targetId),
      );
      return new Set(path.filter((l) => ids.has(parsed(l).id)));
    };
    // The file loaded once, as report() loads it; each leaf's report made from it.
    const session = await loadSession({ kind: "file", path: corpus(f) }, { detail: "skeleton" });
    let checked = 0;
    try {
      for (const leaf of exp.leaves) {
        if (leaf.error || leaf.contextError !== undefined || leaf.contextLeafLine !== undefined || !leaf.messageLines || !leaf.path)
          continue;
        const compactionLines = leaf.path.filter(isCompaction);
        const { data } = compactionsReport(session, { leaf: `@${leaf.line}` });
        expectEqual(
          data.compactions.map((c) => c.line),
          compactionLines,
        );
        const present = new Set(leaf.messageLines);
        for (const c of data.compactions) {
          const before = leaf.path.slice(0, leaf.path.indexOf(c.line)).filter(adds);
          expectEqual(
            c.kept.lines,
            before.filter((l) => present.has(l)),
            `${f} leaf ${leaf.line} compaction ${c.line} kept`,
          );
          // Not in pi's context: dropped by a compaction, or taken out by a `replacement: null` edit on the path.
          const gone = before.filter((l) => !present.has(l));
          expectEqual(
            [...c.dropped.lines, ...c.editedOut.lines].sort((a, b) => a - b),
            gone,
            `${f} leaf ${leaf.line} compaction ${c.line} gone`,
          );
          const nulled = nullTargets(leaf.path);
          for (const l of c.editedOut.lines) expect(nulled.has(l), `${f} line ${l} edited out`).toBe(true);
          checked++;
        }
        // The compaction in effect is the last on the path.
        expectEqual(
          data.compactions.filter((c) => c.inEffect).map((c) => c.line),
          compactionLines.slice(-1),
        );
      }
    } finally {
      session.store.close();
    }
    if (/gen16-branchy|pi16-written|gen16-edits/.test(f)) expect(checked).toBeGreaterThan(0);
  });
});

describe("compactions: warnings and notes, one fixture each", () => {
  const F = (name: string) => fixture("compactions", `${name}.jsonl`);
  const codes = (d: CompactionsData) => d.compactions.flatMap((c) => c.warnings.map((w) => w.code));

  it("keeps-nothing: firstKeptEntryId = its own id is pi 1.6's normal 'keep nothing', not a warning", async () => {
    const r = await report(F("keeps-nothing"));
    expectEqual(codes(r.data), []);
    expect(r.exitCode).toBe(0);
    const c = r.data.compactions[0]!;
    expect(c.keepsNothing).toBe(true);
    expectEqual(c.kept.lines, []);
    expectEqual(c.dropped.lines, [2, 3]);
  });

  it.each([
    ["first-kept-missing", "first-kept-missing", { firstKeptEntryId: "nothere1" }],
    ["first-kept-off-path", "first-kept-off-path", { targetLine: 3 }],
    // A target below the compaction on its own path: not on the path to it, the same finding as validate's.
    ["first-kept-after", "first-kept-off-path", { targetLine: 5 }],
    ["first-kept-not-message", "first-kept-not-message", { targetLine: 3, targetType: "label" }],
  ])("%s", async (name, code, args) => {
    const r = await report(F(name));
    expectEqual(codes(r.data), [code]);
    expect(r.data.compactions[0]!.warnings[0]!.args).toMatchObject(args);
    expect(r.exitCode).toBe(1);
  });

  it("the warnings are the ones validate gives for the same file", async () => {
    const { checkSession } = await import("../../src/check/validate.js");
    for (const name of ["first-kept-missing", "first-kept-off-path", "first-kept-after", "first-kept-not-message"]) {
      const s = await loadSession({ kind: "file", path: F(name) });
      try {
        const v = checkSession(s).filter((d) => d.code.startsWith("first-kept"));
        expectEqual(
          codes((await report(F(name))).data),
          v.map((d) => d.code),
          name,
        );
      } finally {
        s.store.close();
      }
    }
  });

  const info = (c: CompactionsData["compactions"][number]) => c.warnings.filter((w) => w.severity === "info");

  it("tokens-before-mismatch: tokensBefore far from pisess's estimate is info (exit 0)", async () => {
    const r = await report(F("tokens-before-mismatch"));
    const c = r.data.compactions[0]!;
    expectEqual(
      info(c).map((w) => [w.code, w.line, w.args]),
      [["tokens-before-mismatch", 4, { tokensBefore: 90000, estimate: c.contextBefore.tokens }]],
    );
    // The assistant's usage (100 + 10) plus the user message before it: far below 90,000/2.
    expect(c.contextBefore.tokens).toBeLessThan(45000);
    expect(r.exitCode).toBe(0);
  });

  it("older-in-kept: an older compaction inside the kept range is info (exit 0)", async () => {
    const r = await report(F("older-in-kept"));
    const newer = r.data.compactions.find((c) => c.inEffect)!;
    expect(newer.line).toBe(7);
    expectEqual(
      info(newer).map((w) => [w.code, w.line, w.args]),
      [["older-compaction-kept", 7, { olderLine: 5, olderId: "c04" }]],
    );
    expectEqual(newer.kept.lines, [3, 4, 6]);
    expect(r.exitCode).toBe(0);
  });

  it("no other fixture has one", async () => {
    for (const name of ["keeps-nothing", "first-kept-missing", "first-kept-not-message", "dropped"])
      expectEqual((await report(F(name))).data.compactions.flatMap(info), [], name);
  });

  it("validate gives the same info findings as `compactions --all` on every corpus file and both fixtures", async () => {
    const { checkSession } = await import("../../src/check/validate.js");
    const ours = new Set(["tokens-before-mismatch", "older-compaction-kept"]);
    const key = (d: { line: number | null; code: string; args: unknown }) => JSON.stringify([d.line, d.code, d.args]);
    const files = [
      ...readdirSync(join(ROOT, "fixtures", "corpus"))
        .filter((f) => f.endsWith(".jsonl"))
        .map((f) => corpus(f)),
      F("tokens-before-mismatch"),
      F("older-in-kept"),
    ];
    let seen = 0;
    for (const f of files) {
      const s = await loadSession({ kind: "file", path: f });
      try {
        const v = checkSession(s)
          .filter((d) => ours.has(d.code))
          .map(key)
          .sort();
        const c = [
          ...new Set(
            compactionsReport(s, { all: true })
              .data.compactions.flatMap((x) => x.warnings)
              .filter((d) => ours.has(d.code))
              .map(key),
          ),
        ].sort();
        expectEqual(c, v, f);
        seen += v.length;
      } finally {
        s.store.close();
      }
    }
    expect(seen).toBeGreaterThan(10);
  });

  it("pi-written files: validate exits 0 (the info findings do not count)", async () => {
    const r = await runCli(["validate", corpus("pi16-written.jsonl"), "--fail-on", "warning"]);
    expect(r.stdout + r.stderr).toMatch(/tokens-before-mismatch|older-compaction-kept/);
    expect(r.code).toBe(0);
  });
});

describe("compactions: what was dropped", () => {
  it("messages by role, tool calls, files, images, bytes, summary ratio", async () => {
    const path = fixture("compactions", "dropped.jsonl");
    const raw = readFileSync(path, "utf8").split("\n");
    const { data } = await report(path);
    const c = data.compactions.find((x) => x.inEffect)!;
    expect(c.line).toBe(11);
    expect(c.fromHook).toBe(true);
    expectEqual(c.keptFrom, { line: 9, id: "c08" });
    expectEqual(c.kept.lines, [9, 10]);
    expectEqual(c.dropped.lines, [2, 3, 4, 5, 6, 7]);
    expect(c.dropped.bytes).toBe([2, 3, 4, 5, 6, 7].reduce((n, l) => n + Buffer.byteLength(raw[l - 1] as string), 0));
    expectEqual(c.dropped.byRole, [
      { name: "assistant", count: 2 },
      { name: "toolResult", count: 2 },
      { name: "user", count: 2 },
    ]);
    expectEqual(c.dropped.toolCalls, [
      { name: "edit", count: 1 },
      { name: "read", count: 1 },
    ]);
    expectEqual(c.dropped.files, ["src/a.ts", "src/b.ts"]);
    expect(c.dropped.images).toBe(1);
    const summary = (JSON.parse(raw[10] as string) as Obj).summary as string;
    expect(c.summary.chars).toBe(summary.length);
    expect(c.ratio).toBeCloseTo(Math.ceil(summary.length / 4) / c.dropped.tokens, 10);
    const older = data.compactions.find((x) => x.line === 8)!;
    expect(older.inEffect).toBe(false);
    expect(older.model).toBe("anthropic/claude-haiku-4-5");
    expect(older.usage).toMatchObject({ input: 700, output: 120 });
    // At the leaf, the newer compaction's summary replaces everything before line 9.
    expectEqual(older.kept.lines, []);
  });

  it("--all adds compactions off the path, each judged at itself", async () => {
    const path = corpus("pi16-written.jsonl");
    const on = (await report(path)).data.compactions;
    const all = (await report(path, { all: true })).data.compactions;
    expectEqual(all.slice(0, on.length), on);
    expect(all.length).toBeGreaterThan(on.length);
    for (const c of all.slice(on.length)) {
      expect(c.onPath).toBe(false);
      expect(c.inEffect).toBe(false);
    }
  });
});

describe("compactions: CLI", () => {
  it("--json: file, leaf and one object per compaction", async () => {
    const r = spawnCli(["compactions", "fixtures/compactions/dropped.jsonl", "--json"]);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as CompactionsData;
    expectEqual(d.leaf, { id: "c11", line: 12 });
    expectEqual(
      d.compactions.map((c) => [c.line, c.inEffect]),
      [
        [8, false],
        [11, true],
      ],
    );
    expectEqual(d.compactions[1]!.kept.lines, [9, 10]);
  });

  it("text: one block per compaction, warnings in it, exit 1", async () => {
    const r = await runCli(["compactions", "fixtures/compactions/first-kept-not-message.jsonl"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^compaction line 5 c04 .*\[in effect\]$/m);
    expect(r.stdout).toMatch(/warning first-kept-not-message: .*a label entry/);
  });
});

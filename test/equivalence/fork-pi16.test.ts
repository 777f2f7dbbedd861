import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { forkCopy } from "../../src/ops/fork-copy.js";
import { fixture } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";
import { expectEqual } from "../support/expect-fast.js";

/**
 * Forks written by pi 1.6.0's own SessionManager (parity/fork-fixtures.mjs; fixtures/fork/README.md): parent.jsonl
 * with labels (one relabelled, one cleared), a context_edit and a compaction on the path; fork.jsonl, pi's /fork
 * (createBranchedSession) at parent line 18, then a turn of its own; fork2.jsonl, /fork of fork.jsonl at its last
 * entry, then a turn; clone.jsonl, `pi --fork` (forkFrom: every entry), then a turn. Expected values are read off
 * the files by hand (and stated here as literals) from what pi's fork code writes: the path without its label
 * entries (lines 2–13 of fork.jsonl), then the labels it re-creates (lines 14–15), then the fork's own entries.
 */

const dir = fixture("fork", "pi16");
const f = (name: string) => fixture("fork", "pi16", name);
type Json = Record<string, any>;
const json = async (args: string[]): Promise<Json> => JSON.parse((await cliOut(args)).stdout) as Json;

describe("the fixtures are what pi's fork code writes", () => {
  it("fork.jsonl: the path without labels, the re-created labels with the parent's timestamps, then its own", () => {
    const lines = readFileSync(f("fork.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    expectEqual(
      lines.map((e) => e.type),
      [
        "session",
        ...["message", "message", "message", "message", "message", "message", "context_edit", "message", "message", "compaction"],
        ...["message", "message", "label", "label", "message", "message"],
      ],
    );
    // Line 14 re-creates "begin" (set at parent line 16), line 15 "checkpoint" (parent line 10): older than line 13.
    expectEqual([lines[13]?.timestamp, lines[14]?.timestamp], ["2026-03-01T10:00:15.000Z", "2026-03-01T10:00:09.000Z"]);
    expect(lines[12]?.timestamp).toBe("2026-03-01T10:00:17.000Z");
  });
});

describe("forkCopy: the one rule, on the files pi wrote", () => {
  const lines = (mask: Uint8Array, s: { entries: { line: number }[] }) => s.entries.filter((_, i) => mask[i] === 1).map((e) => e.line);

  it("fork.jsonl: lines 2–15 are copies; in the parent, the path's entries and the two labels that set them", async () => {
    const fork = await loadSession({ kind: "file", path: f("fork.jsonl") });
    const parent = await loadSession({ kind: "file", path: f("parent.jsonl") });
    try {
      const c = forkCopy(fork, parent);
      expectEqual(lines(c.copied, fork), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
      expectEqual([c.entries, c.labels], [14, 2]);
      expectEqual([c.point?.fork.line, c.point?.parent.line], [13, 18]);
      // Not copied: the "start" label (line 4, replaced by "begin" at 16), "tmp" and its clearing (12, 13), and the
      // parent's turns after the fork point (19, 20).
      expectEqual(lines(c.sources, parent), [2, 3, 5, 6, 7, 8, 9, 10, 11, 14, 15, 16, 17, 18]);
    } finally {
      fork.store.close();
      parent.store.close();
    }
  });

  it("a label the fork sets itself right after the copied path is the fork's own", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    // fork.jsonl with its two re-created labels replaced by one set later (another time than the parent's).
    const all = readFileSync(f("fork.jsonl"), "utf8").trim().split("\n");
    const own = {
      type: "label",
      id: "b0000001",
      parentId: "a0000011",
      timestamp: "2026-03-01T10:00:30.000Z",
      targetId: "a0000001",
      label: "begin",
    };
    const path = join(mkdtempSync(join(tmpdir(), "pisess-fork-test-")), "fork.jsonl");
    writeFileSync(path, `${[...all.slice(0, 13), JSON.stringify(own)].join("\n")}\n`);
    const fork = await loadSession({ kind: "file", path });
    const parent = await loadSession({ kind: "file", path: f("parent.jsonl") });
    try {
      const c = forkCopy(fork, parent);
      expectEqual([c.entries, c.labels], [12, 0]);
    } finally {
      fork.store.close();
      parent.store.close();
    }
  });
});

/** The lines of a diff side's own entries. */
const sideLines = (side: Json): number[] => side.entries.map((e: Json) => e.line);

describe("diff FORK PARENT: the fork point is the entry /fork was made at", () => {
  it("fork.jsonl against parent.jsonl: base @13 (parent @18); only each side's own turns diverge", async () => {
    const d = await json(["diff", f("fork.jsonl"), f("parent.jsonl"), "--json"]);
    expectEqual(d.base, { id: "a0000011", line: 13, right: { id: "a0000011", line: 18 } });
    expectEqual(sideLines(d.left), [16, 17]);
    expectEqual(sideLines(d.right), [19, 20]);
    // The parent's cost before the fork point is on neither side.
    expect(d.left.stats.cost).toBeCloseTo(0.5, 10);
    expect(d.right.stats.cost).toBeCloseTo(0.06, 10);
  });

  it("the other way round, the same fork point", async () => {
    const d = await json(["diff", f("parent.jsonl"), f("fork.jsonl"), "--json"]);
    expectEqual(d.base, { id: "a0000011", line: 18, right: { id: "a0000011", line: 13 } });
    expectEqual(sideLines(d.left), [19, 20]);
    expectEqual(sideLines(d.right), [16, 17]);
  });

  it("a fork of the fork: base at the fork's last entry; the re-created labels are not divergent", async () => {
    const d = await json(["diff", f("fork2.jsonl"), f("fork.jsonl"), "--json"]);
    expectEqual(d.base, { id: "a0000017", line: 15, right: { id: "a0000017", line: 17 } });
    expectEqual(sideLines(d.left), [18, 19]);
    expectEqual(d.right.entries, []);
    expect(d.left.stats.cost).toBeCloseTo(0.7, 10);
  });

  it("pi --fork (every entry copied): base at the parent's last entry", async () => {
    const d = await json(["diff", f("clone.jsonl"), f("parent.jsonl"), "--json"]);
    expectEqual(d.base, { id: "a0000013", line: 20, right: { id: "a0000013", line: 20 } });
    expectEqual(sideLines(d.left), [21, 22]);
    expectEqual(d.right.entries, []);
  });

  it("text: the fork point line names parent line 18", async () => {
    const out = (await cliOut(["diff", f("fork.jsonl"), f("parent.jsonl"), "--color", "never"])).stdout;
    expect(out).toContain("fork point: @13 a0000011");
    expect(out).toContain("(right @18)");
  });
});

describe("info, ls, usage and lineage count the same copies", () => {
  it("info: the path and the re-created labels are copied (lines 2–15), the parent's cost left out", async () => {
    const cases: [string, number, number, number][] = [
      // file, copied entries, last copied line, own cost
      ["fork.jsonl", 14, 15, 0.5],
      ["fork2.jsonl", 16, 17, 0.7],
      ["clone.jsonl", 19, 20, 0.9],
    ];
    for (const [name, entries, lastLine, cost] of cases) {
      const info = await json(["info", f(name), "--json"]);
      expectEqual([name, info.copied.entries, info.copied.firstLine, info.copied.lastLine], [name, entries, 2, lastLine]);
      expect(info.totals.cost, name).toBeCloseTo(cost, 10);
    }
  });

  it("ls: each session's own cost", async () => {
    const ls = await json(["ls", dir, "--json"]);
    const cost = Object.fromEntries(ls.sessions.map((s: Json) => [String(s.path).split("/").pop(), s.totals.cost]));
    expectEqual(Object.keys(cost).sort(), ["clone.jsonl", "fork.jsonl", "fork2.jsonl", "parent.jsonl"]);
    expect(cost["parent.jsonl"]).toBeCloseTo(0.01 + 0.02 + 0.03 + 0.04 + 0.05 + 0.06, 10);
    expect(cost["fork.jsonl"]).toBeCloseTo(0.5, 10);
    expect(cost["fork2.jsonl"]).toBeCloseTo(0.7, 10);
    expect(cost["clone.jsonl"]).toBeCloseTo(0.9, 10);
  });

  it("usage: the parent's cost counted once", async () => {
    const u = await json(["usage", dir, "--json"]);
    expect(u.totals.cost).toBeCloseTo(0.21 + 0.5 + 0.7 + 0.9, 10);
    expect(u.totals.turns).toBe(6 + 1 + 1 + 1);
  });

  it("lineage: each link's fork point and copies, as info counts them", async () => {
    const l = await json(["lineage", f("fork2.jsonl"), "--json", "--forks-in", dir]);
    expectEqual(
      l.ancestors.map((a: Json) => [String(a.path).split("/").pop(), a.copied]),
      [
        ["fork.jsonl", { entries: 16, labels: 2, forkPoint: { id: "a0000017", line: 17, childLine: 15 } }],
        ["parent.jsonl", { entries: 14, labels: 2, forkPoint: { id: "a0000011", line: 18, childLine: 13 } }],
      ],
    );
    const p = await json(["lineage", f("parent.jsonl"), "--json", "--forks-in", dir]);
    expectEqual(
      p.forks.map((x: Json) => [String(x.path).split("/").pop(), x.copied?.entries]),
      [
        ["clone.jsonl", 19],
        ["fork.jsonl", 14],
        ["fork2.jsonl", 16],
      ],
    );
    const text = (await cliOut(["lineage", f("parent.jsonl"), "--forks-in", dir, "--color", "never"])).stdout;
    expect(text).toContain("fork.jsonl");
    expect(text).toMatch(/fork\.jsonl {2}\S+ {2}\(forked at @18, 14 entries copied\)/);
    expect(text).toMatch(/fork2\.jsonl {2}\S+ {2}\(forked at @17 of fork\.jsonl, 16 entries copied\)/);
  });

  it("sql: the copied rows are the same entries", async () => {
    const r = await cliOut([
      "sql",
      "SELECT split_part(session, '/', -1) AS s, count(*) FILTER (WHERE is_copied) AS copied FROM entries GROUP BY s ORDER BY s",
      dir,
      "--json",
    ]);
    expectEqual(JSON.parse(r.stdout).rows, [
      { s: "clone.jsonl", copied: 19 },
      { s: "fork.jsonl", copied: 14 },
      { s: "fork2.jsonl", copied: 16 },
      { s: "parent.jsonl", copied: 0 },
    ]);
  });
});

describe("validate: a fork pi 1.6 wrote is clean", () => {
  it("no timestamp-regression for the labels /fork re-created (nor anything else)", async () => {
    const r = await cliOut(["validate", f("parent.jsonl"), f("fork.jsonl"), f("fork2.jsonl"), f("clone.jsonl"), "--format", "json"]);
    expect(r.code).toBe(0);
    expectEqual(
      (JSON.parse(r.stdout) as Json).files.map((x: Json) => x.diagnostics),
      [[], [], [], []],
    );
  });

  it("the same labels in a file that names no parent still warn (the check is not switched off)", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const lines = readFileSync(f("fork.jsonl"), "utf8").split("\n");
    const header = JSON.parse(lines[0] as string) as Json;
    delete header.parentSession;
    lines[0] = JSON.stringify(header);
    const path = join(mkdtempSync(join(tmpdir(), "pisess-fork-test-")), "no-parent.jsonl");
    writeFileSync(path, lines.join("\n"));
    const r = await cliOut(["validate", path, "--format", "json"]);
    const found = (JSON.parse(r.stdout) as Json).files[0].diagnostics as Json[];
    expectEqual(
      found.filter((d) => d.code === "timestamp-regression").map((d) => d.line),
      [14, 15],
    );
  });
});

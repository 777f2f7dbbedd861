import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixture } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

/**
 * Fork cycles (fixtures/fork/cycle, hand-written): self.jsonl names itself ($0.1 of its own); a.jsonl ($0.2) and
 * b.jsonl name each other, b holding a's two entries and $0.4 of its own; c.jsonl is a fork of a (outside the loop)
 * with a's two entries and $0.8 of its own. Which side of a loop copied from which cannot be told, so nobody on it
 * has copies: every file on a loop counts its whole spend; c, whose chain does not loop back to it, has its copies.
 */

const dir = fixture("fork", "cycle");
const f = (name: string) => fixture("fork", "cycle", name);
type Json = Record<string, any>;
const json = async (args: string[]): Promise<Json> => JSON.parse((await cliOut(args)).stdout) as Json;

const OWN: Record<string, number> = { "self.jsonl": 0.1, "a.jsonl": 0.2, "b.jsonl": 0.6, "c.jsonl": 0.8 };
const COPIED: Record<string, number> = { "self.jsonl": 0, "a.jsonl": 0, "b.jsonl": 0, "c.jsonl": 2 };
const TOTAL = 0.1 + 0.2 + 0.6 + 0.8;

describe("a fork cycle: one answer in every command", () => {
  it("usage counts each file's spend (a self-loop or a two-file loop no longer zeroes it)", async () => {
    expect((await json(["usage", dir, "--json"])).totals.cost).toBeCloseTo(TOTAL, 10);
    for (const [name, cost] of Object.entries(OWN)) {
      expect([name, (await json(["usage", f(name), "--json"])).totals.cost]).toEqual([name, expect.closeTo(cost, 10)]);
    }
  });

  it("sql marks no row of a file on the loop as copied; c's copies of a are copied", async () => {
    const r = await json([
      "sql",
      "SELECT split_part(session, '/', -1) AS s, count(*) FILTER (WHERE is_copied) AS copied, sum(cost) FILTER (WHERE NOT is_copied) AS cost FROM usage GROUP BY s ORDER BY s",
      dir,
      "--json",
    ]);
    expect(r.rows.map((x: Json) => [x.s, x.copied])).toEqual([
      ["a.jsonl", 0],
      ["b.jsonl", 0],
      ["c.jsonl", 1],
      ["self.jsonl", 0],
    ]);
    for (const x of r.rows as Json[]) expect([x.s, x.cost]).toEqual([x.s, expect.closeTo(OWN[x.s] as number, 10)]);
    const s = await json(["sql", "SELECT split_part(file, '/', -1) AS s, copied_entries FROM sessions ORDER BY s", dir, "--json"]);
    expect(Object.fromEntries(s.rows.map((x: Json) => [x.s, x.copied_entries]))).toEqual(COPIED);
  });

  it("info and ls agree with usage", async () => {
    const ls = await json(["ls", dir, "--json"]);
    for (const x of ls.sessions as Json[]) {
      const name = String(x.path).split("/").pop() as string;
      expect([name, x.totals.cost]).toEqual([name, expect.closeTo(OWN[name] as number, 10)]);
      const info = await json(["info", f(name), "--json"]);
      expect([name, info.totals.cost, info.copied?.entries ?? 0, info.header.forkCycle]).toEqual([
        name,
        expect.closeTo(OWN[name] as number, 10),
        COPIED[name],
        name !== "c.jsonl",
      ]);
    }
  });

  it("lineage: the loop is reported, and no link on it has copies", async () => {
    const r = await cliOut(["lineage", f("c.jsonl"), "--json", "--forks-in", dir]);
    expect(r.code).toBe(1);
    const l = JSON.parse(r.stdout) as Json;
    expect(l.cycle).toBe(true);
    expect(l.ancestors.map((a: Json) => [String(a.path).split("/").pop(), a.copied?.entries ?? null])).toEqual([
      ["a.jsonl", 2],
      ["b.jsonl", null],
    ]);
  });

  it("diff of the two files on the loop: no copies, aligned by id", async () => {
    const d = await json(["diff", f("b.jsonl"), f("a.jsonl"), "--json"]);
    expect(d.base).toEqual({ id: "a0000002", line: 3, right: { id: "a0000002", line: 3 } });
    expect(d.left.entries.map((e: Json) => e.line)).toEqual([4, 5]);
  });
});

describe("a fork cycle is reported", () => {
  it("validate: fork-cycle (warning, header line) on each file on a loop, none on the fork outside it", async () => {
    const r = await cliOut(["validate", f("a.jsonl"), f("b.jsonl"), f("c.jsonl"), f("self.jsonl"), "--format", "json"]);
    const files = (JSON.parse(r.stdout) as Json).files as Json[];
    expect(
      files.map((x) => [String(x.file).split("/").pop(), x.diagnostics.map((d: Json) => [d.code, d.severity, d.line, d.args.path])]),
    ).toEqual([
      ["a.jsonl", [["fork-cycle", "warning", 1, "b.jsonl"]]],
      ["b.jsonl", [["fork-cycle", "warning", 1, "a.jsonl"]]],
      ["c.jsonl", []],
      ["self.jsonl", [["fork-cycle", "warning", 1, "self.jsonl"]]],
    ]);
  });

  it("a header naming the file through a symlink is a loop too: its spend is its own", async () => {
    const d = mkdtempSync(join(tmpdir(), "pisess-fork-cycle-"));
    const lines = readFileSync(f("self.jsonl"), "utf8").split("\n");
    lines[0] = JSON.stringify({ ...(JSON.parse(lines[0] as string) as Json), parentSession: "link.jsonl" });
    writeFileSync(join(d, "s.jsonl"), lines.join("\n"));
    symlinkSync(join(d, "s.jsonl"), join(d, "link.jsonl"));
    const info = await json(["info", join(d, "s.jsonl"), "--json"]);
    expect([info.totals.cost, info.header.forkCycle, info.copied]).toEqual([0.1, true, null]);
    expect((await json(["usage", join(d, "s.jsonl"), "--json"])).totals.cost).toBeCloseTo(0.1, 10);
    // A copy of the file under another name (the same session id, naming no parent) is not a parent it copied
    // from either: pi gives every fork a new id.
    const { parentSession: _, ...plain } = JSON.parse(lines[0] as string) as Json;
    writeFileSync(join(d, "twin.jsonl"), [JSON.stringify(plain), ...lines.slice(1)].join("\n"));
    lines[0] = JSON.stringify({ ...plain, parentSession: "twin.jsonl" });
    writeFileSync(join(d, "s.jsonl"), lines.join("\n"));
    expect((await json(["usage", join(d, "s.jsonl"), "--json"])).totals.cost).toBeCloseTo(0.1, 10);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { contextReport } from "../../src/reports/context.js";
import { diffReport } from "../../src/reports/diff.js";
import { grepReport } from "../../src/reports/grep.js";
import { infoReport } from "../../src/reports/info.js";
import { lineageReport } from "../../src/reports/lineage.js";
import { lsReport } from "../../src/reports/ls.js";
import { openFile } from "../../src/reports/open.js";
import { pathReport } from "../../src/reports/path.js";
import { fixture } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

/** The four places where copies of one rule disagreed; each now has one definition every command uses. */

const env = { PI_CODING_AGENT_DIR: fixture("fork"), HOME: "/nonexistent" };

async function open(path: string) {
  return loadSession({ kind: "file", path });
}

describe("one fork-parent rule", () => {
  // The header has "parentSession":"" and "branchedFrom":"p.jsonl": the first non-empty one names the parent.
  const file = fixture("fork", "empty-parent-session.jsonl");

  it("info, ls and lineage all name p.jsonl (legacy branchedFrom)", async () => {
    const s = await open(file);
    const info = (await infoReport(s)).data;
    s.store.close();
    expect(info.header?.parentSession).toBe("p.jsonl");
    expect(info.header?.legacyBranchedFrom).toBe(true);
    expect(info.header?.parentExists).toBe(false);
    const ls = (await lsReport({ dirs: [file], env, cwd: "/" })).data;
    expect(ls.sessions[0]?.parentSession).toBe("p.jsonl");
    const lineage = (await lineageReport({ file, forksIn: [fixture("fork")], env })).data;
    expect(lineage.ancestors.map((a) => [a.ref, a.legacyBranchedFrom])).toEqual([["p.jsonl", true]]);
  });
});

describe("one problem count", () => {
  it("ls and info count the same problems on a dangling parent", async () => {
    const file = fixture("validate", "dangling-parent.jsonl");
    const s = await open(file);
    const info = (await infoReport(s)).data;
    s.store.close();
    const ls = (await lsReport({ dirs: [file], env, cwd: "/" })).data;
    expect(info.problems).toBeGreaterThan(0);
    expect(ls.sessions[0]?.problems).toBe(info.problems);
  });
});

describe("grep reads the loader's records", () => {
  it("a file without a header: grep gives line 2 the id written on it, as path does", async () => {
    const file = fixture("tree", "no-header.jsonl");
    // The id as written in the file (entries with ids are read as current-version entries).
    const written = (JSON.parse(readFileSync(file, "utf8").split("\n")[1] as string) as { id: string }).id;
    const hits = (await grepReport({ pattern: ".", targets: [file], env, cwd: "/" })).data.files[0]?.hits ?? [];
    expect(hits.find((h) => h.line === 2)?.id).toBe(written);
    const s = await open(file);
    const p = pathReport(s, { leaf: "@2" }).data.path ?? [];
    s.store.close();
    expect(p.find((r) => r.line === 2)?.id).toBe(written);
  });
});

describe("a path into a parent cycle: one diagnostic, one exit code", () => {
  it("path, context and diff report parent-cycle naming the lines, exit 1", async () => {
    const file = fixture("diff", "cycle.jsonl");
    const s = await open(file);
    const path = pathReport(s, { leaf: "@6" });
    const ctx = contextReport(s, { leaf: "@6" });
    s.store.close();
    const diff = await diffReport({ file, a: "@6", b: "leaf", open: openFile });
    for (const r of [path, ctx, diff]) {
      expect(r.exitCode).toBe(1);
      const d = r.diagnostics.find((x) => x.code === "parent-cycle");
      expect(d?.args.lines).toEqual([4, 5]);
    }
  });
});

// The whole CLI (argument parsing, command, renderer) in process: no stdin, terminal or pipe is involved.
describe("the same four through the CLI (these failed before the reports)", () => {
  const json = (s: string) => JSON.parse(s) as Record<string, unknown>;
  it("fork parent: info, ls and lineage agree", async () => {
    const file = fixture("fork", "empty-parent-session.jsonl");
    expect((json((await cliOut(["info", file, "--json"])).stdout).header as { parentSession: string }).parentSession).toBe("p.jsonl");
    expect((json((await cliOut(["ls", file, "--json"])).stdout).sessions as { parentSession: string }[])[0]?.parentSession).toBe("p.jsonl");
    const lineage = await cliOut(["lineage", file, "--json", "--forks-in", fixture("fork")]);
    expect((json(lineage.stdout).ancestors as { ref: string }[])[0]?.ref).toBe("p.jsonl");
  });
  it("problems: ls --json and info --json agree", async () => {
    const file = fixture("validate", "dangling-parent.jsonl");
    const info = json((await cliOut(["info", file, "--json"])).stdout).problems;
    expect((json((await cliOut(["ls", file, "--json"])).stdout).sessions as { problems: number }[])[0]?.problems).toBe(info);
  });
  it("grep and path give line 2 of a header-less file the same id", async () => {
    const file = fixture("tree", "no-header.jsonl");
    const g = (await cliOut(["grep", "reply", file, "--ndjson"])).stdout
      .trim()
      .split("\n")
      .map(json)
      .find((h) => h.line === 2);
    const p = (await cliOut(["path", file, "--leaf", "@2", "--ndjson"])).stdout
      .trim()
      .split("\n")
      .map(json)
      .find((h) => h.line === 2);
    expect(g?.id).toBe((p?.entry as { id: string } | undefined)?.id);
  });
});

describe("validate names a fork's parent by the one fork-parent rule", () => {
  // A branch summary copied by a fork points into the parent: the legacy `branchedFrom` header names that parent
  // as `parentSession` does (io/discover.ts forkParentRef), so the summary is not reported as pointing nowhere.
  it("legacy branchedFrom: the copied summary is branch-summary-from-parent, as with parentSession", async () => {
    const { checkSession } = await import("../../src/check/validate.js");
    const { Readable } = await import("node:stream");
    const T = (m: number) => `2025-01-01T09:0${m}:00.000Z`;
    const codes = async (header: Record<string, unknown>) => {
      const lines = [
        { type: "session", version: 3, id: "01942660-60f2-76c4-b069-c43a8c3b7cf3", timestamp: T(0), cwd: "/w", ...header },
        { type: "message", id: "a1", parentId: null, timestamp: T(1), message: { role: "user", content: "hi" } },
        { type: "branch_summary", id: "a2", parentId: "a1", timestamp: T(2), fromId: "c0000004", summary: "s" },
      ];
      const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
      const s = await loadSession({ kind: "stream", name: "fork.jsonl", stream: Readable.from([Buffer.from(text)]) });
      try {
        return checkSession(s, { fileExists: () => true })
          .filter((d) => d.code.startsWith("branch-summary-from"))
          .map((d) => [d.code, d.args]);
      } finally {
        s.store.close();
      }
    };
    const want = (parentSession: string) => [["branch-summary-from-parent", { fromId: "c0000004", parentSession }]];
    expect(await codes({ parentSession: "p.jsonl" })).toEqual(want("p.jsonl"));
    expect(await codes({ branchedFrom: "old.jsonl" })).toEqual(want("old.jsonl"));
  });
});

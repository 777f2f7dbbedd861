import { describe, it, expect, beforeAll } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { Readable } from "node:stream";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import { checkSession } from "../../src/check/validate.js";
import { checkContextEdits, editInfo } from "../../src/check/edits.js";
import { checkSessionId } from "../../src/check/session-id.js";
import { CODES } from "../../src/model/codes.js";
import type { Diagnostic } from "../../src/model/types.js";
import type { EntryRec } from "../../src/model/detail.js";
import { CliError, openInput } from "../../src/commands/common.js";
import { ROOT, corpus, fixture, runCli, expectedOf } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";

/** A session from lines held in memory (stdin-like), so each case is written out in the test. */
async function fromLines(lines: unknown[]): Promise<Session<"full">> {
  const text = `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`;
  return loadSession({ kind: "stream", name: "mem.jsonl", stream: Readable.from([Buffer.from(text)]) }, { name: "mem.jsonl" });
}

async function checkFile(path: string, strict = false): Promise<Diagnostic[]> {
  const s = await loadSession({ kind: "file", path }, { name: path });
  try {
    return checkSession(s, { strict });
  } finally {
    s.store.close();
  }
}

const T = (n: number) => new Date(Date.UTC(2025, 0, 1, 9, 0, 0) + n * 60_000).toISOString();
const header = (id = "01942660-60f2-76c4-b069-c43a8c3b7cf3") => ({ type: "session", version: 3, id, timestamp: T(0), cwd: "/w" });
const user = (id: string, parentId: string | null, n: number) => ({
  type: "message",
  id,
  parentId,
  timestamp: T(n),
  message: { role: "user", content: "hi", timestamp: n },
});
const edit = (id: string, parentId: string, n: number, targetId: string, extra: Record<string, unknown> = { replacement: null }) => ({
  type: "context_edit",
  id,
  parentId,
  timestamp: T(n),
  targetId,
  ...extra,
});
const codesAt = (ds: Diagnostic[]) => ds.map((d) => `${d.code}@${d.line}`);

describe("context_edit checks (pure)", () => {
  it("an edit above its target's line but below it in the tree, in a chain: ancestors are fine, a descendant is forward", async () => {
    const s = await fromLines([header(), user("u1", null, 1), edit("e1", "u1", 2, "u1"), edit("e2", "e1", 3, "u4"), user("u4", "e2", 4)]);
    expectEqual(codesAt(checkContextEdits(s)), ["context-edit-forward@4"]);
  });

  it("apart on sibling branches, in either file order; the deeper ancestor is found through other edits", async () => {
    const s = await fromLines([
      header(),
      user("r", null, 1),
      user("a1", "r", 2),
      edit("x1", "r", 3, "a1"), // sibling of a1: apart
      user("b1", "x1", 4),
      edit("x2", "b1", 5, "r"), // r is an ancestor: fine
      edit("x3", "a1", 6, "b1"), // b1 lies on the other branch: apart
    ]);
    expectEqual(codesAt(checkContextEdits(s)), ["context-edit-off-path@4", "context-edit-off-path@7"]);
  });

  it("uses the last duplicate as the target, as pi does", async () => {
    // "t" twice: the first on a side branch, the last (which pi resolves, for parents and targets alike) above the edit.
    const lines = [header(), user("a", null, 1), user("t", "a", 2), user("b", "a", 3), user("t", "b", 4), edit("e", "t", 5, "t")];
    expectEqual(checkContextEdits(await fromLines(lines)), []);
    // The same edit on a third branch: now its target (the last "t") is neither above nor below it.
    const moved = [...lines.slice(0, 5), user("c", "a", 5), edit("e", "c", 6, "t")];
    expectEqual(
      checkContextEdits(await fromLines(moved)).map((d) => [d.code, d.args.targetLine]),
      [["context-edit-off-path", 5]],
    );
  });

  it("edits in a parent cycle get no relation (parent-cycle reports them)", async () => {
    const s = await fromLines([header(), user("u1", null, 1), edit("c1", "c2", 2, "u1"), edit("c2", "c1", 3, "u1")]);
    expectEqual(checkContextEdits(s), []);
  });

  it("an edit of itself is an edit of an edit", async () => {
    const s = await fromLines([header(), user("u1", null, 1), edit("e1", "u1", 2, "e1")]);
    expectEqual(
      checkContextEdits(s).map((d) => [d.code, d.args.targetLine]),
      [["context-edit-of-edit", 3]],
    );
  });

  it("not editable: what pi still does with each kind of target", async () => {
    const s = await fromLines([
      header(),
      user("u1", null, 1),
      {
        type: "message",
        id: "c1",
        parentId: "u1",
        timestamp: T(2),
        message: { role: "custom", customType: "x", content: "c", display: true, timestamp: 2 },
      },
      { type: "branch_summary", id: "b1", parentId: "c1", timestamp: T(3), fromId: "root", summary: "" },
      { type: "label", id: "l1", parentId: "b1", timestamp: T(4), targetId: "u1", label: "x" },
      edit("e1", "l1", 5, "c1", { replacement: { content: "new" } }),
      edit("e2", "e1", 6, "c1", { replacement: null }),
      edit("e3", "e2", 7, "b1", { replacement: null }),
      edit("e4", "e3", 8, "l1", { replacement: null }),
      edit("e5", "e4", 9, "u1", { replacement: { content: [] } }),
    ]);
    const ds = checkContextEdits(s).filter((d) => d.code === "context-edit-not-editable");
    expectEqual(
      ds.map((d) => [d.line, d.args.targetKind, d.args.effect]),
      [
        [6, "message:custom", "replaces"],
        [7, "message:custom", "removes"],
        [8, "branch_summary", "none"], // an empty summary contributes nothing
        [9, "label", "none"],
      ],
    );
  });

  it("replacement shapes", () => {
    const rec = { line: 1 } as EntryRec;
    const kind = (o: Record<string, unknown>) => {
      const i = editInfo(rec, { type: "context_edit", targetId: "t", ...o });
      return [i.replacement, i.found ?? null, i.becomes ?? null];
    };
    expectEqual(kind({ replacement: null }), ["null", null, null]);
    expectEqual(kind({ replacement: { content: "x" } }), ["content", null, null]);
    expectEqual(kind({ replacement: { content: [{ type: "text", text: "x" }] } }), ["content", null, null]);
    expectEqual(kind({}), ["missing", null, null]);
    expectEqual(kind({ replacement: "x" }), ["invalid", "a string", "undefined"]);
    expectEqual(kind({ replacement: [] }), ["invalid", "an array", "undefined"]);
    expectEqual(kind({ replacement: {} }), ["invalid", "an object without content", "undefined"]);
    expectEqual(kind({ replacement: { content: 5 } }), ["invalid", "an object whose content is a number", "5"]);
    expectEqual(kind({ replacement: { content: null } }), ["invalid", "an object whose content is null", "null"]);
  });

  it("a missing replacement throws in pi only where it meets a content message", async () => {
    const s = await fromLines([
      header(),
      user("u1", null, 1),
      {
        type: "message",
        id: "x1",
        parentId: "u1",
        timestamp: T(2),
        message: { role: "bashExecution", command: "ls", output: "", exitCode: 0, cancelled: false, truncated: false, timestamp: 2 },
      },
      edit("e1", "x1", 3, "u1", {}),
      edit("e2", "e1", 4, "x1", {}),
      user("u2", null, 5),
      edit("e3", "u2", 6, "u1", {}),
    ]);
    const ds = checkContextEdits(s).filter((d) => d.code === "context-edit-no-replacement");
    expectEqual(
      ds.map((d) => [d.line, d.args.throws]),
      [
        [4, true],
        [5, false],
        [7, false], // apart from its target: never applied
      ],
    );
  });

  it("validate does not repeat the replacement problems as schema violations, but keeps bad blocks inside content", async () => {
    const s = await fromLines([
      header(),
      user("u1", null, 1),
      edit("e1", "u1", 2, "u1", {}),
      edit("e2", "e1", 3, "u1", { replacement: 7 }),
      edit("e3", "e2", 4, "u1", { replacement: { content: [{ type: "text" }] } }),
    ]);
    const ds = checkSession(s);
    expectEqual(
      ds.map((d) => `${d.code}@${d.line}${d.code === "schema-violation" ? ` ${String(d.args.path)}` : ""}`),
      ["context-edit-no-replacement@3", "context-edit-bad-replacement@4", "schema-violation@5 /replacement/content/0/text"],
    );
  });
});

describe("session id format", () => {
  const ok = ["0194aaaa-0000-7000-8000-000000000001", "a", "A.b_c-9", "x1"];
  const bad = ["", "-a", "a-", ".a", "a.", "a b", "a/b", "../x", "é", "a\nb"];
  for (const id of ok) {
    it(`accepts ${JSON.stringify(id)}`, async () => expectEqual(checkSessionId(await fromLines([header(id)])), []));
  }
  for (const id of bad) {
    it(`reports ${JSON.stringify(id)}`, async () => {
      const ds = checkSessionId(await fromLines([header(id)]));
      expectEqual(
        ds.map((d) => [d.code, d.line, d.args.id]),
        [["session-id-format", 1, id]],
      );
    });
  }
});

describe("compaction that keeps nothing (its own id as firstKeptEntryId, as pi 1.6 writes it)", () => {
  it("is not a defect", async () => {
    const s = await fromLines([
      header(),
      user("u1", null, 1),
      { type: "compaction", id: "c1", parentId: "u1", timestamp: T(2), summary: "s", firstKeptEntryId: "c1", tokensBefore: 1 },
    ]);
    expectEqual(checkSession(s, { strict: true }), []);
  });
});

describe("files pisess does not read: agent-core v4 and versions above 3", () => {
  const FOREIGN = fixture("validate", "foreign-format.jsonl");
  const FUTURE = fixture("tree", "future-version.jsonl");

  it("the loader records foreign-format (data) and reads nothing after the first line", async () => {
    const s = await loadSession({ kind: "file", path: FOREIGN });
    try {
      expectEqual(
        s.diagnostics.map((d) => [d.code, d.line, d.args]),
        [["foreign-format", 1, { format: "agent-core", version: 4, supported: 3 }]],
      );
      expectEqual(s.entries, []);
      expect(s.header).toBeNull();
    } finally {
      s.store.close();
    }
  });

  it("skeleton loads record it the same way", async () => {
    const s = await loadSession({ kind: "file", path: FOREIGN }, { detail: "skeleton" });
    s.store.close();
    expectEqual(
      s.diagnostics.map((d) => d.code),
      ["foreign-format"],
    );
    expectEqual(s.entries, []);
  });

  it("validate reports only foreign-format, never header-missing", async () => {
    expectEqual(
      (await checkFile(FOREIGN, true)).map((d) => d.code),
      ["foreign-format"],
    );
  });

  it("validate reports version-future and still checks the rest", async () => {
    expectEqual(
      (await checkFile(FUTURE, true)).map((d) => [d.code, d.severity]),
      [["version-future", "error"]],
    );
  });

  describe("CLI", () => {
    beforeAll(() => {
      if (!existsSync(join(ROOT, "dist", "commands", "common.js"))) execFileSync("npx", ["tsc", "-p", "."], { cwd: ROOT });
    });
    const reading: string[][] = [["tree"], ["path"], ["context"], ["info"], ["leaves"], ["labels"], ["show", "leaf"]];
    for (const [file, what] of [
      [
        FOREIGN,
        /this is a pi agent-core session file \(its own JSONL format, version 4\), not a pi session file; pisess reads pi session files, versions 1–3$/,
      ],
      [FUTURE, /pi session file of version 4, newer than pisess supports \(pi session versions 1–3\)$/],
    ] as const) {
      // Every reading command through the CLI on the foreign file; the future version takes the same refusal
      // (openInput), so one command through the CLI, and the refusal itself in-process.
      it(`reading commands exit 2 with one line on ${file.split("/").pop()}`, async () => {
        if (file === FUTURE) {
          const err = await openInput(file).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err).toBeInstanceOf(CliError);
          expect((err as CliError).exitCode).toBe(2);
          expect((err as CliError).message.startsWith(`${file}: `)).toBe(true);
          expect((err as CliError).message).toMatch(what);
        }
        for (const [cmd, ...rest] of file === FUTURE ? reading.slice(0, 1) : reading) {
          const r = await runCli([cmd as string, file, ...rest]);
          expect(r.code, cmd).toBe(2);
          expect(r.stdout, cmd).toBe("");
          const lines = r.stderr.trimEnd().split("\n");
          expect(lines, cmd).toHaveLength(1);
          expect(lines[0], cmd).toMatch(what);
          expect(lines[0], cmd).toContain(file);
        }
      });
    }
    it("from stdin too", async () => {
      const r = await runCli(["tree", "-"], { input: readFileSync(FOREIGN) });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^pisess: -: this is a pi agent-core session file/);
    });
    it("validate: exit 1 with the coded finding", async () => {
      const r = await runCli(["validate", "--format", "ndjson", FOREIGN, FUTURE]);
      expect(r.code).toBe(1);
      const rows = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Diagnostic);
      expectEqual(
        rows.map((x) => [x.code, x.severity, x.line]),
        [
          ["foreign-format", "error", 1],
          ["version-future", "error", 1],
        ],
      );
    });
  });
});

/** Info about compactions that pi's own files show (see docs/diagnostics.md); not a fault of any corpus file. */
const COMPACTION_INFO = new Set(["tokens-before-mismatch", "older-compaction-kept"]);

describe("pi 1.6.0 corpus", () => {
  it("pi16-written.jsonl (written by pi 1.6.0 itself): no finding, even with --strict, but the compaction info", async () => {
    // tokens-before-mismatch and older-compaction-kept are observations about pi's own compactions (info, not defects).
    const ds = await checkFile(corpus("pi16-written.jsonl"), true);
    expectEqual(
      ds.filter((d) => !COMPACTION_INFO.has(d.code)),
      [],
    );
    expect(ds.every((d) => d.severity === "info")).toBe(true);
  });

  it("pisess validate exits 0 on it, with no warning", async () => {
    const r = await runCli(["validate", "--format", "json", "--fail-on", "warning", "--strict", "fixtures/corpus/pi16-written.jsonl"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ error: 0, warning: 0 });
  });

  it("gen16-branchy.jsonl: two roots and one edit off its target's path, both as pi's answers show", async () => {
    const ds = await checkFile(corpus("gen16-branchy.jsonl"), true);
    const expected = expectedOf("gen16-branchy") as {
      tree: { line: number }[];
      leaves: { edits?: { line: number; targetLine: number; status: string }[] }[];
    };
    expectEqual(
      ds
        .map((d) => d.code)
        .filter((c) => !COMPACTION_INFO.has(c))
        .sort(),
      ["context-edit-off-path", "multiple-roots"],
    );
    const roots = ds.find((d) => d.code === "multiple-roots")!;
    expectEqual(
      roots.args.lines,
      expected.tree.map((n) => n.line),
    );
    // pi never applies an edit reported off-path: in every leaf whose path holds it, its target is outside the context.
    for (const d of ds.filter((x) => x.code === "context-edit-off-path")) {
      const seen = expected.leaves.flatMap((l) => l.edits ?? []).filter((e) => e.line === d.line);
      expect(seen.length).toBeGreaterThan(0);
      for (const e of seen) {
        expect(e.status).toBe("target-outside-context");
        expect(e.targetLine).toBe(d.args.targetLine);
      }
    }
    // and every other edit in the file is applied or superseded or summarized somewhere: not flagged.
    const flagged = new Set(ds.filter((d) => !COMPACTION_INFO.has(d.code)).map((d) => d.line));
    const others = expected.leaves.flatMap((l) => l.edits ?? []).filter((e) => !flagged.has(e.line));
    expect(others.every((e) => ["applied", "superseded", "summarized"].includes(e.status))).toBe(true);
  });

  it("gen16-edits.jsonl and gen16-faults.jsonl: nothing is reported beyond the listed faults (and what a fault brings along)", async () => {
    for (const name of ["gen16-edits", "gen16-faults"]) {
      const faults = readFileSync(corpus(`${name}.faults.ndjson`), "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { line: number });
      const lines = new Set(faults.map((f) => f.line));
      const ds = await checkFile(corpus(`${name}.jsonl`));
      expectEqual(
        ds.filter((d) => !COMPACTION_INFO.has(d.code) && (d.line === null || !lines.has(d.line))).map((d) => `${d.code}@${d.line}`),
        [],
        name,
      );
    }
  });
});

describe("the validate page lists every code with its severity", () => {
  it("docs/commands/validate.md", () => {
    const readme = readFileSync(join(ROOT, "docs", "commands", "validate.md"), "utf8");
    const letter = { error: "E", warning: "W", info: "I" } as const;
    for (const [code, sev] of Object.entries(CODES)) expect(readme, code).toContain(`\`${code}\` ${letter[sev]}`);
  });
});

import { readFileSync, readdirSync } from "node:fs";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import type { TreeJsonDocument } from "../../src/render/tree-json.js";
import { expectGolden } from "../support/golden.js";
import { corpus, fingerprint, fixture, once, runCli, spawnCli, expectedOf } from "../support/helpers.js";
import { cliOut, pathNdjsonOut, treeOut } from "../support/inproc.js";
import { expectEqual } from "../support/expect-fast.js";

const tree = (name: string) => fixture("tree", name);

// `tree branched.jsonl`, spawned once (the binary itself): the golden test and the colour test read it.
const branchedText = once(() => spawnCli(["tree", tree("branched.jsonl")]));

describe("pisess tree (the CLI)", () => {
  it("draws pi's /tree layout with the active path and leaf marked (golden)", () => {
    const r = branchedText();
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expectGolden("tree-branched.txt", r.stdout);
  });

  it("--leaf moves the active path; --filter all shows bookkeeping entries (golden, in process)", async () => {
    const r = await treeOut(tree("branched.jsonl"), { leaf: "label:parser-done", filter: "all" });
    expect(r.code).toBe(0);
    expectGolden("tree-branched-leaf-all.txt", r.stdout);
    // The active branch is listed first, as in pi.
    expect(r.stdout.split("\n")[1]).toContain("a0000002");
  });

  it("filters: user-only, no-tools, labeled-only, search (in process)", async () => {
    const users = (await treeOut(tree("branched.jsonl"), { filter: "user-only" })).stdout;
    expect(users.match(/user:/g)).toHaveLength(3);
    expect(users).not.toContain("assistant:");
    const noTools = (await treeOut(tree("branched.jsonl"), { filter: "no-tools" })).stdout;
    expect(noTools).not.toContain("[read]");
    expect(noTools).toContain("assistant: The parser skips blank lines.");
    const labeled = (await treeOut(tree("branched.jsonl"), { filter: "labeled-only" })).stdout.trim().split("\n");
    expect(labeled).toHaveLength(1);
    expect(labeled[0]).toContain("[parser-done]");
    const search = (await treeOut(tree("branched.jsonl"), { search: ["LOADER", "done"] })).stdout.trim().split("\n");
    expect(search).toHaveLength(1);
    expect(search[0]).toContain("Done with the loader.");
  });

  it("--from shows a subtree, --depth cuts deep branches, --width cuts lines to the column count (in process)", async () => {
    const from = (await treeOut(tree("branched.jsonl"), { from: "a0000002", filter: "all" })).stdout.trim().split("\n");
    expectEqual(
      from.map((l) => l.match(/[ab]0{5}\w+/)?.[0]),
      ["a0000002", "a0000004", "a0000005"],
    );
    // Two visible roots (the model change is hidden), each at branch level 0; their children are one level in.
    const depth = (await treeOut(tree("branched.jsonl"), { depth: 0 })).stdout.trim().split("\n");
    expectEqual(
      depth.map((l) => l.match(/[ab]0{5}\w+/)?.[0]),
      ["b0000006", "a0000002"],
    );
    const narrow = (await treeOut(corpus("gen-v3-branchy.jsonl"), { width: 60 })).stdout.trim().split("\n");
    for (const line of narrow) expect(stringWidth(line), line).toBeLessThanOrEqual(60);
    expect(narrow.some((l) => l.endsWith("…"))).toBe(true);
  });

  it("--json: one flat document, every entry in file order, linked by line, pi's getTree order (in process)", async () => {
    const r = await treeOut(tree("branched.jsonl"), { output: "json" });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as TreeJsonDocument;
    expectEqual(Object.keys(doc), ["file", "version", "leaf", "roots", "entries"]);
    expect(doc.version).toBe(3);
    expectEqual(doc.leaf, { id: "b000000a", line: 11 });
    expectEqual(doc.roots, [2]);
    // Every entry of the fixture (lines 2..11), in file order.
    expectEqual(
      doc.entries.map((e) => e.line),
      [2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    expectEqual(doc.entries[0], {
      id: "a0000001",
      line: 2,
      parentId: null,
      parentLine: null,
      type: "model_change",
      timestamp: "2025-01-01T10:00:00.000Z",
      // getTree order: oldest first (the a-branch at line 3), not the active branch first.
      children: [3, 7],
    });
    expectEqual(doc.entries[4], {
      id: "a0000005",
      line: 6,
      parentId: "a0000004",
      parentLine: 5,
      type: "message",
      role: "assistant",
      label: "parser-done",
      timestamp: "2025-01-01T10:04:00.000Z",
      children: [],
    });
    expectEqual(
      doc.entries.filter((e) => e.label !== undefined).map((e) => e.id),
      ["a0000005"],
    );
    expect(doc.entries.find((e) => e.line === 9)).toMatchObject({ type: "label", parentLine: 8, children: [10] });
    expect(doc.entries.find((e) => e.line === 9)).not.toHaveProperty("role");
  });

  it("--json with --filter or --search: the shown entries only, linked to each other (in process)", async () => {
    const users = JSON.parse((await treeOut(tree("branched.jsonl"), { output: "json", filter: "user-only" })).stdout) as TreeJsonDocument;
    // The user messages are lines 3, 7 and 11; 11 descends from 7 through hidden entries.
    expectEqual(users.roots, [3, 7]);
    expectEqual(
      users.entries.map((e) => [e.line, e.parentId, e.parentLine, e.children]),
      [
        [3, "a0000001", null, []],
        [7, "a0000001", null, [11]],
        [11, "b0000009", 7, []],
      ],
    );
    const found = JSON.parse((await treeOut(tree("branched.jsonl"), { output: "json", search: ["loader"] })).stdout) as TreeJsonDocument;
    expectEqual(found.roots, [7]);
    expectEqual(
      found.entries.map((e) => [e.line, e.parentLine, e.children]),
      [
        [7, null, [8]],
        [8, 7, []],
      ],
    );
  });

  it("--json: cycle members are shown once, the cut one as a root (in process)", async () => {
    const doc = JSON.parse((await treeOut(tree("broken-links.jsonl"), { output: "json" })).stdout) as TreeJsonDocument;
    // broken-links: a cycle 3 ↔ 4 (cut at 3), a self-parent at 6, a dangling parent at 7, two entries with id d0000007.
    expectEqual(doc.roots, [2, 3, 6, 7]);
    const at = (line: number) => doc.entries.find((e) => e.line === line);
    expect(at(3)).toMatchObject({ parentId: "d0000003", parentLine: null, cycle: true, children: [4, 5] });
    expect(at(4)).toMatchObject({ parentId: "d0000002", parentLine: 3 });
    expect(at(4)).not.toHaveProperty("cycle");
    expect(at(6)).toMatchObject({ parentId: "d0000005", parentLine: null });
    expect(at(7)).toMatchObject({ parentId: "ffffffff", parentLine: null });
    expect(at(10)).toMatchObject({ parentId: "d0000007", parentLine: 9 });
  });

  it("--ndjson: one object per shown entry in display order (in process)", async () => {
    const r = await treeOut(tree("branched.jsonl"), { output: "ndjson", filter: "all" });
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expectEqual(rows[0], {
      id: "a0000001",
      line: 2,
      parentId: null,
      depth: 0,
      type: "model_change",
      onPath: true,
      isLeaf: false,
      children: ["b0000006", "a0000002"],
    });
    const leaf = rows.filter((x) => x.isLeaf);
    expectEqual(
      leaf.map((x) => x.id),
      ["b000000a"],
    );
    expect(rows.find((x) => x.id === "a0000005")).toMatchObject({ label: "parser-done", onPath: false, depth: 4, role: "assistant" });
  });

  it("neutralizes escape sequences and bidi controls from session content (in process, coloured)", async () => {
    const r = await treeOut(tree("hostile.jsonl"), { color: true });
    const withoutOurColors = r.stdout.replace(/\u001b\[[0-9;]*m/g, "");
    expect(withoutOurColors).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e]/);
    expect(withoutOurColors).toContain("\\x1b[31mALERT");
    expect(withoutOurColors).toContain("\\u202eevil");
  });

  it("colour: off when piped or NO_COLOR, on with --color always", async () => {
    expect(branchedText().stdout).not.toContain("\u001b[");
    expect((await runCli(["tree", tree("branched.jsonl"), "--color", "always"], { env: { NO_COLOR: "1" } })).stdout).toContain("\u001b[");
    expect(
      (await runCli(["tree", tree("branched.jsonl"), "--color", "never"], { env: { NO_COLOR: undefined, FORCE_COLOR: "1" } })).stdout,
    ).not.toContain("\u001b[");
  });

  it("reads stdin with -", async () => {
    const r = spawnCli(["tree", "-", "--json"], { input: readFileSync(tree("branched.jsonl")) });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { file: string }).file).toBe("-");
  });

  it("summarizes load problems on stderr in one line, never on stdout", async () => {
    const r = await runCli(["tree", tree("broken-links.jsonl"), "--json"]);
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
    expect(r.stderr).toBe(
      `${tree("broken-links.jsonl")}: 4 problems (4 errors, 0 warnings) found while reading; pisess validate ${tree("broken-links.jsonl")} checks more\n`,
    );
  });

  it("shows cycle members once, cut open and marked (in process)", async () => {
    const r = await treeOut(tree("broken-links.jsonl"), { filter: "all" });
    expect(r.stdout).toContain("d0000002 [cycle] user: cycle member A");
    expect(r.stdout.match(/d0000007/g)).toHaveLength(2);
  });

  it("exit 2 with one clear line for usage and I/O errors, no stack trace", async () => {
    const cases: [string[], RegExp][] = [
      [["tree"], /Not enough non-option arguments/],
      [["tree", "/nonexistent/x.jsonl"], /^pisess: \/nonexistent\/x\.jsonl: no such file\n$/],
      [["tree", fixture("tree")], /is a directory/],
      [["tree", tree("branched.jsonl"), "--leaf", "nope"], /no entry matches "nope"/],
      [["tree", tree("branched.jsonl"), "--filter", "bogus"], /Invalid values/],
      [["bogus-command"], /Unknown argument|Unknown command|Did you mean/],
    ];
    // The first through the binary, the others through the CLI in process (test/inproc.ts cliOut).
    for (const [args, pattern] of cases) {
      const r = args === cases[0]?.[0] ? spawnCli(args) : await cliOut(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(spawnCli(["tree", "/nonexistent/x.jsonl", "--debug"]).stderr).toMatch(/\n\s+at /);
  });

  it("an ambiguous reference lists the candidates (in process: the report's error, printed as the one above)", async () => {
    await expect(treeOut(tree("branched.jsonl"), { leaf: "b0" })).rejects.toThrow(/ambiguous: b0000006 \(line 7\), b0000007 \(line 8\)/);
  });

  it("--help shows examples; --version prints the version; completion prints a script", async () => {
    expect((await runCli(["tree", "--help"])).stdout).toContain("Examples:");
    expect((await runCli(["--help"])).stdout).toContain("Examples:");
    expect((await runCli(["--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await runCli(["completion"])).stdout).toContain("pisess");
  });

  it("works on every corpus file and matches the default leaf (in process)", async () => {
    for (const f of readdirSync(corpus("")).filter((x) => x.endsWith(".jsonl"))) {
      const r = await treeOut(corpus(f), { output: "json" });
      expect(r.code, f).toBe(0);
      const expected = expectedOf(f) as { leaf: { line: number } };
      expect((JSON.parse(r.stdout) as { leaf: { line: number } }).leaf.line).toBe(expected.leaf.line);
      expect((await treeOut(corpus(f))).code).toBe(0);
    }
  });
});

describe("pisess path (the CLI)", () => {
  it("text: the entries root → leaf (golden)", async () => {
    const r = spawnCli(["path", tree("branched.jsonl"), "--leaf", "a0000005"]);
    expect(r.code).toBe(0);
    expectGolden("path-branched.txt", r.stdout);
  });

  it("--ndjson: {line, entry} per entry with the entry as migrated (v1 ids; in process)", async () => {
    const r = await pathNdjsonOut(tree("v1-compaction.jsonl"));
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { line: number; entry: Record<string, unknown> });
    expectEqual(
      rows.map((x) => x.line),
      [2, 3, 4, 5, 6],
    );
    expect(rows[3]!.entry).toMatchObject({ type: "compaction", id: "L5", parentId: "L4", firstKeptEntryId: "L4", tokensBefore: 12345 });
    expect(rows[3]!.entry).not.toHaveProperty("firstKeptEntryIndex");
  });

  it("a path into a parent cycle exits 1 naming the cycle", async () => {
    const r = await runCli(["path", tree("broken-links.jsonl"), "--leaf", "d0000004"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/:3: error parent-cycle: parent cycle through lines 3, 4;/);
  });
});

// The process (every command, the CLI's own file opening) is held to the same guarantee in readonly.test.ts.
describe("read-only guarantee", () => {
  it("leaves every fixture byte-for-byte and mtime unchanged after tree and path (in process)", async () => {
    const files = [...readdirSync(fixture("tree")).map((f) => tree(f)), corpus("gen-v1.jsonl"), corpus("gen-v3-faults.jsonl")];
    const before = files.map(fingerprint);
    for (const f of files) {
      await treeOut(f);
      await treeOut(f, { output: "json" });
      await pathNdjsonOut(f);
    }
    expectEqual(files.map(fingerprint), before);
  });
});

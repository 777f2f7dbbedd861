import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { startCliServers } from "../support/cli-server.js";
import { COMMANDS } from "../support/fuzz/args.js";
import { checkResult, jsonDepth, type Problem } from "../support/fuzz/check.js";
import { caseArb, caseBytes, formatReport, fuzz, type FuzzOptions } from "../support/fuzz/harness.js";
import { KNOWN } from "../support/fuzz/known.js";
import { keptFailures, replay } from "../support/fuzz/replay.js";
import { applyMutations, HOSTILE } from "../support/fuzz/mutate.js";
import { leftovers, makeWorkspace } from "../support/fuzz/workspace.js";
import { BIN, ROOT, runCli } from "../support/helpers.js";
import { failureLine, noteLine } from "../../src/render/notes.js";
import { ReportError } from "../../src/reports/report.js";
import { cliOut } from "../support/inproc.js";

const corpusDir = join(ROOT, "fixtures", "corpus");
const corpus = readdirSync(corpusDir)
  .filter((f) => f.endsWith(".jsonl"))
  .sort()
  .map((f) => join(corpusDir, f));
const keptDir = join(ROOT, "fixtures", "fuzz");

// The short run of `npm test`: small windows of the corpus, two commands per mutated file, two at a time, each a run
// of the built CLI in a CLI server (cli-server.ts) rather than a process: what a process alone shows (a crash, the
// exit status, a stack overflow) the kept failures below replay in real processes, and `npm run fuzz` runs processes.
const servers = await startCliServers(2);
afterAll(() => servers.close());
const short: FuzzOptions = {
  seed: 20261201,
  runs: 30,
  commandsPerCase: 2,
  concurrency: 2,
  timeoutMs: 20_000,
  limits: { maxMutations: 4, maxHuge: 64 * 1024, maxDepth: 200 },
  maxKeep: 40,
  wholeFiles: false,
  shrink: false,
  shrinkBudget: 0,
  maxShrinks: 1,
  bin: BIN,
  runner: async (argv, opts) => ({ ...(await servers.run(argv, opts)), signal: null }),
  corpus,
};

describe("fuzz harness", () => {
  it("measures JSON depth without recursion", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(jsonDepth(deep)).toBe(200_000);
    expect(jsonDepth({ a: [1, { b: null }], c: "x" })).toBe(3);
    expect(jsonDepth("x")).toBe(0);
  });

  it("flags each invariant it promises to check", () => {
    const res = (code: number | null, stdout: string, stderr = "") => ({
      code,
      signal: null,
      timedOut: false,
      ms: 1,
      stdout: Buffer.from(stdout),
      stderr: Buffer.from(stderr),
    });
    const kinds = (argv: string[], r: ReturnType<typeof res>) => checkResult(argv, r, 64).map((p) => p.kind);
    expect(kinds(["info", "f", "--json"], res(0, '{"a":1}'))).toEqual([]);
    expect(kinds(["info", "f", "--json"], res(3, "{}"))).toEqual(["exit-code"]);
    expect(kinds(["info", "f", "--json"], res(0, "{"))).toEqual(["json-parse"]);
    expect(kinds(["info", "f", "--json"], res(0, ""))).toEqual(["json-empty"]);
    expect(kinds(["path", "f", "--json"], res(1, "", "pisess: f: the path of line 3 runs into a parent cycle\n"))).toEqual([]);
    expect(kinds(["leaves", "f", "--ndjson"], res(0, '{"a":1}\n{\n'))).toEqual(["ndjson-parse"]);
    expect(kinds(["tree", "f", "--json"], res(0, `${"[".repeat(65)}${"]".repeat(65)}`))).toEqual(["json-depth"]);
    expect(kinds(["validate", "f", "-f", "ndjson"], res(1, `${"[".repeat(65)}${"]".repeat(65)}\n`))).toEqual(["ndjson-depth"]);
    expect(kinds(["show", "f", "x"], res(2, "", "pisess: boom\n    at f (file:///x.js:1:2)\n"))).toEqual(["stack-trace"]);
    expect(kinds(["show", "f", "x"], res(2, "", "pisess: no entry \u001b[31m\n"))).toEqual(["stderr-control"]);
    expect(kinds(["show", "f", "x"], res(2, "", "pisess: no entry \u202e\n"))).toEqual(["stderr-control"]);
    expect(kinds(["show", "f", "x"], res(2, "", "pisess: x is not a function\npisess: (run with --debug for details)\n"))).toEqual([
      "internal-error",
    ]);
    expect(checkResult(["tree", "f"], { ...res(null, ""), timedOut: true }, 64).map((p) => p.kind)).toEqual(["timeout"]);
    // Text formats reach a terminal: no raw control character there; data formats carry content as it is.
    expect(kinds(["tree", "f"], res(0, "a\u001b]52;c;x\u0007b\n"))).toEqual(["stdout-control"]);
    expect(kinds(["show", "f", "x"], res(0, "time x\ry\n"))).toEqual(["stdout-control"]);
    expect(kinds(["tree", "f"], res(0, "a\u200fb\n"))).toEqual([]);
    expect(kinds(["tree", "f"], res(0, "a\u202eb\n"))).toEqual(["stdout-control"]);
    expect(kinds(["export", "f", "--format", "markdown"], res(0, "a\u001bb"))).toEqual([]);
    expect(kinds(["sql", "q", "--csv"], res(0, "a\rb\n"))).toEqual([]);
    // An escaped lone surrogate (jq 1.6 rejects the document); a pair, or an escaped backslash before "u", is fine.
    expect(kinds(["info", "f", "--json"], res(0, '{"a":"\\ud800"}'))).toEqual(["json-surrogate"]);
    expect(kinds(["leaves", "f", "--ndjson"], res(0, '{"a":"x\\udc00"}\n'))).toEqual(["json-surrogate"]);
    expect(kinds(["export", "f", "--format", "jsonl"], res(0, '{"a":"\\ud800"}\n'))).toEqual(["json-surrogate"]);
    expect(kinds(["info", "f", "--json"], res(0, '{"a":"\\ud83d\\ude00"}'))).toEqual([]);
    expect(kinds(["info", "f", "--json"], res(0, '{"a":"\\\\ud800"}'))).toEqual([]);
  });

  it("finds what a case leaves behind: temporary files, unnamed outputs, replaced traps", () => {
    const ws = makeWorkspace(Buffer.from("{}\n"), Buffer.from("{}\n"), { fifo: true, linkedFifo: true });
    try {
      expect(leftovers(ws, new Set())).toEqual([]);
      writeFileSync(join(ws.tmp, "pisess-sql-x"), "");
      writeFileSync(join(ws.out, "out.html"), "");
      writeFileSync(join(ws.out, ".out.html.tmp"), "");
      expect(leftovers(ws, new Set([join(ws.out, "out.html")]))).toEqual([
        "TMPDIR holds pisess-sql-x",
        "output folder holds .out.html.tmp",
      ]);
      for (const t of ws.traps) rmSync(t);
      for (const t of ws.traps) writeFileSync(t, "");
      expect(leftovers(ws, new Set()).slice(-3)).toEqual([
        "the symlink output was replaced",
        "the hard-linked output was replaced",
        "the FIFO output was replaced",
      ]);
    } finally {
      ws.dispose();
    }
  });

  it("hostile markers reach every string of every line, links kept", () => {
    const file = Buffer.from(
      '{"type":"session","version":3,"id":"s","cwd":"/w"}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}\n',
    );
    const out = applyMutations(file, [{ k: "hostile", line: 0, marker: 0, all: true }])
      .toString("utf8")
      .split("\n");
    const m = HOSTILE[0];
    expect(JSON.parse(out[0] ?? "")).toEqual({ type: "session", version: 3, id: `s${m}`, cwd: `/w${m}` });
    expect(JSON.parse(out[1] ?? "")).toEqual({
      type: "message",
      id: `a${m}`,
      parentId: null,
      message: { role: "user", content: [{ type: "text", text: `hi${m}` }] },
    });
  });

  it("builds the same files for the same seed", () => {
    const arb = caseArb({ ...short, limits: { maxMutations: 8, maxHuge: 4096, maxDepth: 100 } });
    const a = fc.sample(arb, { seed: 7, numRuns: 6 });
    const b = fc.sample(arb, { seed: 7, numRuns: 6 });
    expect(a).toEqual(b);
    for (const [i, c] of a.entries()) expect(caseBytes(c, corpus).file.equals(caseBytes(b[i] as typeof c, corpus).file)).toBe(true);
  });

  it(`short run (seed ${short.seed}): no defect outside the known ones, every command run`, async () => {
    const report = await fuzz(short);
    const text = formatReport(report);
    if (report.failed)
      console.error(`${text}\nShrink and keep it: ${report.repro ?? ""} --path ${report.classes[0]?.caseIndex ?? 0} --save`);
    expect(report.classes.map((c) => `${c.signature}: ${c.example.detail}`)).toEqual([]);
    expect(Object.keys(report.perCommand).sort()).toEqual([...COMMANDS].sort());
  });
});

describe("defects the fuzzer found", () => {
  // stdin-marker-leak (fixed): docs/commands/diff.md says the second argument of diff may be `-` (stdin).
  it("diff FILE - reads the second session from stdin", async () => {
    const file = join(keptDir, "stdin-marker-leak.jsonl");
    const r = await runCli(["diff", file, "-"], { input: readFileSync(file) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("stderr quotes nothing raw", () => {
  const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
  const NASTY = "a\u001b[2J\u009b31m\u202e\u0007z";
  it("a usage or report error (ReportError: references, paths, yargs' messages) is sanitized once, line breaks kept", () => {
    const e = new ReportError(`no entry matches "${NASTY}"\nRun pisess --help for usage.`);
    expect(e.message).not.toMatch(UNSAFE);
    expect(e.message).toBe('no entry matches "a\\x1b[2J\\x9b31m\\u202e\\x07z"\nRun pisess --help for usage.');
  });
  it("paths the user names, in every command's error and note lines (the CLI in process)", async () => {
    const missing = `/nonexistent/${NASTY}.jsonl`;
    for (const args of [
      ["grep", "x", missing],
      ["validate", missing],
      ["validate", "--allow-empty", `/nonexistent/${NASTY}`],
      ["ls", `/nonexistent/${NASTY}`],
      ["tree", missing],
      ["show", missing, "x"],
      ["diff", missing, "a", "b"],
      ["context", missing],
      ["lineage", missing],
    ]) {
      const r = await cliOut(args);
      expect(r.stderr, args.join(" ")).toContain("a\\x1b[2J");
      expect(r.stderr, args.join(" ")).not.toMatch(UNSAFE);
    }
  });

  it("notes and unreadable-input lines", () => {
    expect(noteLine(`${NASTY}: no session files under this folder`)).not.toMatch(UNSAFE);
    expect(failureLine({ path: `/s/${NASTY}.jsonl`, reason: "EACCES" })).toBe("pisess: /s/a\\x1b[2J\\x9b31m\\u202e\\x07z.jsonl: EACCES\n");
  });
});

describe("kept fuzz failures (fixtures/fuzz)", () => {
  const kept = keptFailures(keptDir);
  it("each known defect class has a kept input", () => {
    for (const k of KNOWN)
      expect(
        kept.some((f) => f.known === k.id),
        k.id,
      ).toBe(true);
  });
  for (const k of kept) {
    let result: Promise<Problem[][]> | undefined;
    const run = (): Promise<Problem[][]> => (result ??= replay(keptDir, k, BIN, 30_000));
    const label = (p: Problem): string => `${p.kind}: ${p.detail}`;
    if (k.known) {
      // Still open: each command line must still show the symptom it was kept for (so the harness still sees it)…
      it(`${k.name} still shows its defect (known: ${k.known})`, async () => {
        const per = await run();
        expect(
          k.checks.map((c, i) => `${c.argv.join(" ")} → ${(per[i] ?? []).some((p) => p.kind === c.kind) ? c.kind : "fixed?"}`),
        ).toEqual(k.checks.map((c) => `${c.argv.join(" ")} → ${c.kind}`));
      });
      // …and this is expected to fail until it is fixed; then drop the `known` mark (and its entry in known.ts).
      it.fails(`${k.name} is fixed`, async () => {
        expect((await run()).flat().map(label)).toEqual([]);
      });
    } else {
      it(`${k.name} stays fixed`, async () => {
        expect((await run()).flat().map(label)).toEqual([]);
      });
    }
  }
});

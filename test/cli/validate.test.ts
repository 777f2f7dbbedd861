import { describe, it, expect, beforeAll } from "vitest";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { loadSession } from "../../src/model/load.js";
import { forkLoops } from "../../src/ops/fork.js";
import { checkSession } from "../../src/check/validate.js";
import { CODES, type Code } from "../../src/model/codes.js";
import { exitStatus, summarize, type FileResult } from "../../src/check/summary.js";
import { formatMessage, codeTitle, diagnosticLine } from "../../src/render/diagnostics.js";
import { contextReport } from "../../src/reports/context.js";
import { validateGithub } from "../../src/render/validate-github.js";
import type { Diagnostic } from "../../src/model/types.js";
import { expectGolden } from "../support/golden.js";
import { cliOut, validateOut } from "../support/inproc.js";
import { openFile } from "../../src/reports/open.js";
import { validateReport } from "../../src/reports/validate.js";
import { type CliResult, type FileFingerprint, ROOT, corpus, fixture, fingerprint, once, runCli, spawnCli } from "../support/helpers.js";

const VDIR = fixture("validate");
/** `pisess validate fixtures/corpus/gen-v3-faults.jsonl`, spawned once: the exit-status and golden tests read it. */
const faultsText = once(() => spawnCli(["validate", "fixtures/corpus/gen-v3-faults.jsonl"]));

/** What `pisess validate INPUTS` writes on stdout, rendered in-process as the command renders it. */
async function validateText(inputs: string[], o: { quiet?: boolean; color?: boolean } = {}): Promise<string> {
  return (await validateOut(inputs, o)).stdout;
}

async function check(path: string, strict = false, live = false): Promise<Diagnostic[]> {
  // A live file: read as if just after its last modification (the snapshot rule), without waiting or touching it.
  const now = live ? { now: statSync(path).mtimeMs + 1000 } : {};
  const s = await loadSession({ kind: "file", path }, { name: path, ...now });
  try {
    // As validateReport does: whether the fork parents loop back is found out before the checks.
    return checkSession(s, { strict, forkLoop: await forkLoops(path) });
  } finally {
    s.store.close();
  }
}

/**
 * One scenario per code: the finding expected (line, and args where they matter), plus the other codes the same
 * defect necessarily brings along. Everything else must be silent.
 */
/**
 * Codes no validate run produces: each with the command that does, the fixture and leaf that make it, and the
 * finding expected. Tested through that command's report below.
 */
const OTHER_COMMANDS = {
  "leaf-no-id": { command: "context", fixture: "missing-id.jsonl", leaf: "@4", line: 4, args: {} },
  "leaf-id-reused": { command: "context", fixture: "duplicate-id.jsonl", leaf: "@4", line: 4, args: { id: "dup00001", winnerLine: 5 } },
} as const satisfies Partial<Record<Code, { command: "context"; fixture: string; leaf: string; line: number; args: object }>>;
/** Produced by `pisess secrets` only; test/unit/secrets.test.ts has their scenarios. */
const SECRETS_CODES = ["secret-sent", "secret-unsent"] as const satisfies readonly Code[];
type ValidateCode = Exclude<Code, keyof typeof OTHER_COMMANDS | (typeof SECRETS_CODES)[number]>;

const SCENARIOS: Record<
  ValidateCode,
  { line: number | null; column?: boolean; args?: Record<string, unknown>; also?: Code[]; strict?: boolean; live?: boolean }
> = {
  "malformed-json": { line: 4, column: true },
  "non-object-line": { line: 4 },
  "truncated-line": { line: 4, column: true },
  "incomplete-last-line": { line: 4, args: { bytes: 60 }, live: true },
  "blank-line": { line: 4 },
  bom: { line: 1 },
  crlf: { line: null, args: { lines: 3 } },
  "invalid-utf8": { line: 4 },
  "lone-surrogate": { line: 4, args: { path: "/message/content/0/text", escape: "\\ud83d" } },
  "foreign-format": { line: 1, args: { format: "agent-core", version: 4 } },
  "not-a-session": { line: null, args: { empty: false }, also: ["malformed-json", "header-missing", "pi-would-refuse"] },
  "header-missing": { line: 1, also: ["pi-would-refuse"] },
  "header-not-first": { line: 2, also: ["header-missing", "pi-would-refuse"] },
  "header-invalid-id": { line: 1, also: ["pi-would-refuse"] },
  "session-id-format": { line: 1, args: { id: "notes/../draft" } },
  "version-unknown": { line: 1 },
  "version-future": { line: 1 },
  "legacy-branched-from": { line: 1 },
  "parent-session-missing": { line: 1 },
  "pi-would-overwrite": { line: null, args: { reason: "empty" }, also: ["header-missing", "not-a-session"] },
  "pi-would-refuse": { line: null, args: { reason: "no-header" }, also: ["header-missing"] },
  "pi-would-rewrite": { line: 1, args: { version: 2 } },
  "extra-header": { line: 4, args: { headerLine: 1 } },
  "missing-id": { line: 4 },
  "duplicate-id": { line: 5, args: { id: "dup00001", firstLine: 4 } },
  "dangling-parent": { line: 4, args: { parentId: "nothere1" } },
  "self-parent": { line: 4 },
  "parent-cycle": { line: 4, args: { lines: [4, 5] } },
  "multiple-roots": { line: 4, args: { count: 2, lines: [2, 4] } },
  "invalid-timestamp": { line: 4 },
  "timestamp-regression": { line: 5, args: { previousLine: 4 } },
  "first-kept-missing": { line: 4 },
  "first-kept-off-path": { line: 5, args: { targetLine: 3 } },
  "first-kept-not-message": { line: 5, args: { targetLine: 4, targetType: "label" } },
  "first-kept-index-out-of-range": { line: 4, args: { index: 99 }, also: ["pi-would-rewrite"] },
  "label-target-missing": { line: 4, args: { targetId: "gone0001" } },
  "branch-summary-from-missing": { line: 4, args: { fromId: "gone0001" } },
  "context-edit-target-missing": { line: 4, args: { targetId: "gone0001" } },
  "context-edit-off-path": { line: 5, args: { targetId: "a1000002", targetLine: 3 } },
  "context-edit-forward": { line: 4, args: { targetId: "a1000005", targetLine: 5 } },
  "context-edit-not-editable": {
    line: 5,
    args: { targetLine: 4, targetKind: "message:bashExecution", replacement: "null", effect: "removes" },
  },
  "context-edit-of-edit": { line: 5, args: { targetLine: 4 } },
  "context-edit-no-replacement": { line: 4, args: { targetId: "a1000002", throws: true } },
  "context-edit-bad-replacement": { line: 4, args: { found: "a string", becomes: "undefined" } },
  "branch-summary-from-parent": { line: 4, args: { fromId: "c0000004", parentSession: "clean.jsonl" } },
  "tokens-before-mismatch": { line: 4, args: { tokensBefore: 90000, estimate: 18 } },
  "older-compaction-kept": { line: 5, args: { olderLine: 4, olderId: "a1000003" } },
  "message-missing": { line: 4 },
  "unknown-role": { line: 4, args: { role: "narrator" } },
  "tool-result-orphan": { line: 4, args: { toolCallId: "call_nowhere" } },
  "tool-call-unanswered": { line: 5, args: { toolCallId: "call_1", name: "bash" } },
  "usage-inconsistent": { line: 3, args: { field: "totalTokens", found: 99, expected: 18 } },
  "unknown-entry-type": { line: 4, args: { type: "mode_change" } },
  "schema-violation": { line: 4, args: { path: "/message/content" } },
  "unknown-key": { line: 4, args: { key: "color" }, strict: true },
  "fork-cycle": { line: 1, args: { path: "fork-cycle.jsonl" } },
};

describe("validate: one fixture per code", () => {
  it("every registered code has a scenario, a fixture, a message template and a docs section", () => {
    const docs = readFileSync(join(ROOT, "docs", "diagnostics.md"), "utf8");
    for (const code of Object.keys(CODES)) {
      if (Object.hasOwn(OTHER_COMMANDS, code) || (SECRETS_CODES as readonly string[]).includes(code)) continue;
      expect(SCENARIOS[code as ValidateCode], code).toBeDefined();
      expect(existsSync(join(VDIR, `${code}.jsonl`)), code).toBe(true);
    }
    for (const code of Object.keys(CODES)) {
      expect(codeTitle(code), code).not.toBe(code);
      expect(docs, code).toContain(`### ${code}`);
    }
  });

  it("each code has one producer: diag() calls naming it sit in one module", () => {
    const where = new Map<string, Set<string>>();
    const src = join(ROOT, "src");
    for (const f of readdirSync(src, { recursive: true, encoding: "utf8" }).filter((x) => x.endsWith(".ts"))) {
      for (const m of readFileSync(join(src, f), "utf8").matchAll(/\bdiag\(\s*"([a-z0-9-]+)"/g)) {
        const code = m[1] as string;
        if (!where.has(code)) where.set(code, new Set());
        where.get(code)?.add(f);
      }
    }
    expect(where.size).toBeGreaterThan(40);
    for (const [code, files] of where) {
      expect(Object.keys(CODES), code).toContain(code);
      expect([...files], code).toHaveLength(1);
    }
  });

  for (const [code, sc] of Object.entries(OTHER_COMMANDS)) {
    it(`${code} (only ${sc.command} produces it)`, async () => {
      const path = join(VDIR, sc.fixture);
      const s = await loadSession({ kind: "file", path }, { name: path, detail: "skeleton" });
      try {
        const note = contextReport(s, { leaf: sc.leaf }).data.note;
        expect(note).toMatchObject({ code, severity: CODES[code as Code], line: sc.line, args: sc.args });
        expect(diagnosticLine(note as Diagnostic)).toMatch(new RegExp(`^${path}:${sc.line}: info ${code}: [^{}]+\\n$`));
        expect((await check(path)).map((d) => d.code)).not.toContain(code);
      } finally {
        s.store.close();
      }
    });
  }
  it("a leaf that pi addresses as itself has no note", async () => {
    const path = join(VDIR, "duplicate-id.jsonl");
    const s = await loadSession({ kind: "file", path });
    expect(contextReport(s, { leaf: "@5" }).data.note).toBeNull();
    s.store.close();
  });

  for (const [code, sc] of Object.entries(SCENARIOS)) {
    it(code, async () => {
      const ds = await check(join(VDIR, `${code}.jsonl`), sc.strict === true, sc.live === true);
      const hit = ds.find((d) => d.code === code);
      expect(hit, JSON.stringify(ds)).toBeDefined();
      expect(hit!.severity).toBe(CODES[code as Code]);
      expect(hit!.line).toBe(sc.line);
      if (sc.column) expect(hit!.column).toBeTypeOf("number");
      if (sc.args) expect(hit!.args).toMatchObject(sc.args);
      expect(formatMessage(hit!)).not.toMatch(/\{\w+\}/);
      const codes = new Set(ds.map((d) => d.code));
      expect([...codes].sort()).toEqual([code, ...(sc.also ?? [])].sort());
      if (sc.strict) expect((await check(join(VDIR, `${code}.jsonl`))).filter((d) => d.code === code)).toEqual([]);
    });
  }

  it("clean.jsonl and clean-pi16.jsonl have no finding, even with --strict", async () => {
    expect(await check(join(VDIR, "clean.jsonl"), true)).toEqual([]);
    expect(await check(join(VDIR, "clean-pi16.jsonl"), true)).toEqual([]);
  });

  it("malformed-json has a column pointing into the line", async () => {
    const d = (await check(join(VDIR, "malformed-json.jsonl"))).find((x) => x.code === "malformed-json")!;
    const line = readFileSync(join(VDIR, "malformed-json.jsonl"), "utf8").split("\n")[3]!;
    expect(d.column).toBeGreaterThan(1);
    expect(d.column).toBeLessThanOrEqual(line.length + 1);
  });
});

describe("validate: corpus", () => {
  it("clean generated v3 files: no findings at all but the compaction info", async () => {
    // The generator picks tokensBefore without looking at the context, so tokens-before-mismatch (info) is expected.
    const info = new Set(["tokens-before-mismatch", "older-compaction-kept"]);
    for (const f of ["gen-v3-branchy.jsonl", "gen-v3-long.jsonl"])
      expect(
        (await check(corpus(f), true)).filter((d) => !info.has(d.code)),
        f,
      ).toEqual([]);
  });

  it("real v1 and generated v1/v2 files: no errors", async () => {
    const files = readdirSync(join(ROOT, "fixtures", "corpus")).filter((f) => /^(real-v1-.*|gen-v1|gen-v2)\.jsonl$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) {
      const ds = await check(corpus(f), true);
      expect(
        ds.filter((d) => d.severity === "error"),
        f,
      ).toEqual([]);
      expect(
        ds.some((d) => d.code === "pi-would-rewrite"),
        f,
      ).toBe(true);
    }
  });

  const FAULT_CODES: Record<string, Code[]> = {
    crlf: ["crlf"],
    bom: ["bom"],
    "blank-lines": ["blank-line"],
    "missing-id": ["missing-id"],
    cycle: ["parent-cycle"],
    "malformed-json": ["malformed-json"],
    "unknown-type": ["unknown-entry-type"],
    "bad-first-kept": ["first-kept-off-path", "first-kept-missing"],
    "tool-result-orphan": ["tool-result-orphan"],
    "wrong-field-type": ["schema-violation"],
    "clock-skew": ["timestamp-regression"],
    "dangling-parent": ["dangling-parent"],
    "self-parent": ["self-parent"],
    "label-missing-target": ["label-target-missing"],
    "duplicate-id": ["duplicate-id"],
    "truncated-last-line": ["truncated-line"],
    // gen16-*: pi 1.6 files with injected defects.
    "null-line": ["non-object-line"],
    "null-content": ["schema-violation"],
    "edit-non-editable": ["context-edit-not-editable"],
    "edit-missing-target": ["context-edit-target-missing"],
    "edit-no-replacement": ["context-edit-no-replacement"],
    "edit-other-branch": ["context-edit-off-path"],
    "edit-forward": ["context-edit-forward"],
  };

  for (const f of readdirSync(join(ROOT, "fixtures", "corpus")).filter((x) => x.endsWith(".faults.ndjson"))) {
    it(`every fault in ${f} is reported at its line`, async () => {
      const faults = readFileSync(corpus(f), "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const ds = await check(corpus(f.replace(".faults.ndjson", ".jsonl")));
      for (const fault of faults) {
        const codes = FAULT_CODES[fault.fault as string];
        expect(codes, `unmapped fault ${String(fault.fault)}`).toBeDefined();
        const hit = ds.find((d) => codes!.includes(d.code as Code) && d.line === fault.line);
        expect(hit, `${String(fault.fault)} at line ${String(fault.line)}`).toBeDefined();
        if (fault.fault === "wrong-field-type") expect(String(hit!.args.path)).toContain(String(fault.field));
        if (fault.fault === "duplicate-id") expect(hit!.args.firstLine).toBe(fault.dupOfLine);
        if (fault.fault === "cycle") expect(hit!.args.lines).toEqual(fault.lines);
        if (fault.fault === "tool-result-orphan") expect(hit!.args.toolCallId).toBe(fault.toolCallId);
        if (fault.targetLine !== undefined && String(fault.fault).startsWith("edit-") && fault.fault !== "edit-no-replacement") {
          expect(hit!.args.targetLine).toBe(fault.targetLine);
        }
        if (fault.fault === "edit-non-editable") {
          expect(hit!.args.targetKind).toBe(fault.targetKind);
          expect(hit!.args.replacement).toBe(fault.replacement);
        }
        if (fault.fault === "edit-missing-target") expect(hit!.args.targetId).toBe(fault.targetId);
        if (fault.fault === "null-content") expect(String(hit!.args.path)).toMatch(/content$/);
      }
    });
  }
});

describe("validate: exit policy and summary", () => {
  const d = (severity: Diagnostic["severity"]): Diagnostic => ({ code: "x", severity, file: "f", line: 1, args: {} });
  const r = (...sev: Diagnostic["severity"][]): FileResult[] => [{ file: "f", diagnostics: sev.map(d) }];
  it("fail-on and max-warnings", () => {
    expect(exitStatus(r(), { failOn: "error", maxWarnings: -1 })).toBe(0);
    expect(exitStatus(r("warning", "info"), { failOn: "error", maxWarnings: -1 })).toBe(0);
    expect(exitStatus(r("error"), { failOn: "error", maxWarnings: -1 })).toBe(1);
    expect(exitStatus(r("warning"), { failOn: "warning", maxWarnings: -1 })).toBe(1);
    expect(exitStatus(r("info"), { failOn: "warning", maxWarnings: -1 })).toBe(0);
    expect(exitStatus(r("info"), { failOn: "info", maxWarnings: -1 })).toBe(1);
    expect(exitStatus(r("warning", "warning"), { failOn: "error", maxWarnings: 1 })).toBe(1);
    expect(exitStatus(r("warning", "warning"), { failOn: "error", maxWarnings: 2 })).toBe(0);
    expect(exitStatus([{ file: "g", diagnostics: [], ioError: "no such file" }, ...r("error")], { failOn: "error", maxWarnings: -1 })).toBe(
      2,
    );
  });
  it("summary counts per code and per file", () => {
    const s = summarize([
      {
        file: "a",
        diagnostics: [
          { ...d("error"), code: "duplicate-id" },
          { ...d("error"), code: "duplicate-id" },
        ],
      },
      { file: "b", diagnostics: [] },
    ]);
    expect(s).toMatchObject({
      files: 2,
      filesWithFindings: 1,
      error: 2,
      byCode: [{ code: "duplicate-id", count: 2, files: 1 }],
      byFile: [{ file: "a", error: 2 }],
    });
  });
  it("github annotations escape data and properties", () => {
    const out = [
      ...validateGithub([
        {
          file: "a,b:c%.jsonl",
          diagnostics: [{ code: "unknown-entry-type", severity: "info", file: "x", line: 3, column: 2, args: { type: "a\nb%c" } }],
        },
      ]),
    ].join("");
    expect(out).toBe("::notice file=a%2Cb%3Ac%25.jsonl,line=3,col=2,title=unknown-entry-type::unknown entry type a b%25c\n");
  });
});

describe("validate CLI", () => {
  const F = (code: string) => `fixtures/validate/${code}.jsonl`;
  const FAULTS = "fixtures/corpus/gen-v3-faults.jsonl";
  // Every file validate reads below, fingerprinted before the first run; `validate --format json fixtures/validate`
  // runs once, for the read-only test and the folder test.
  const ALL = () => [
    ...readdirSync(VDIR)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(VDIR, f)),
    ...readdirSync(join(ROOT, "fixtures", "corpus"))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => corpus(f)),
  ];
  let before: FileFingerprint[] = [];
  let dirJson: CliResult;
  beforeAll(async () => {
    if (!existsSync(join(ROOT, "dist", "commands", "validate.js"))) execFileSync("npx", ["tsc", "-p", "."], { cwd: ROOT });
    before = ALL().map(fingerprint);
    dirJson = await runCli(["validate", "--format", "json", "fixtures/validate"]);
  });

  it("exit 0 on a clean file, 1 on errors, 2 for a missing file (others still reported)", async () => {
    expect(spawnCli(["validate", F("clean")]).code).toBe(0);
    expect(faultsText().code).toBe(1);
    const r = await runCli(["validate", "--format", "json", "nope/missing.jsonl", F("duplicate-id")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nope/missing.jsonl: no such file");
    const doc = JSON.parse(r.stdout);
    expect(doc.files[0]).toEqual({ file: "nope/missing.jsonl", error: "no such file", diagnostics: [] });
    expect(doc.files[1].diagnostics.map((x: Diagnostic) => x.code)).toEqual(["duplicate-id"]);
  });

  it("--fail-on, --max-warnings (in process: the report's exit status)", async () => {
    const exit = async (file: string, o: { failOn?: Diagnostic["severity"]; maxWarnings?: number } = {}) =>
      (await validateReport({ inputs: [file], ...o, open: openFile })).exitCode;
    expect(await exit(F("dangling-parent"))).toBe(1);
    expect(await exit(F("label-target-missing"))).toBe(0);
    expect(await exit(F("label-target-missing"), { failOn: "warning" })).toBe(1);
    expect(await exit(F("label-target-missing"), { maxWarnings: 0 })).toBe(1);
    expect(await exit(F("label-target-missing"), { maxWarnings: 1 })).toBe(0);
    expect(await exit(F("blank-line"), { failOn: "warning" })).toBe(0);
    expect(await exit(F("blank-line"), { failOn: "info" })).toBe(1);
  });

  it("--fail-on, --max-warnings, usage errors (the CLI in process)", async () => {
    expect((await cliOut(["validate", F("label-target-missing"), "--fail-on", "warning"])).code).toBe(1);
    expect((await cliOut(["validate", F("label-target-missing"), "--max-warnings", "0"])).code).toBe(1);
    expect((await cliOut(["validate", F("clean"), "--format", "xml"])).code).toBe(2);
    expect((await cliOut(["validate"])).code).toBe(2);
    expect((await cliOut(["validate", "-", "-"])).code).toBe(2);
  });

  it("--quiet shows errors only; the exit status still counts all", async () => {
    const r = await runCli(["validate", FAULTS, "--quiet", "--format", "ndjson"]);
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Diagnostic);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((x) => x.severity === "error")).toBe(true);
    // The exit status with --quiet, in-process: the report's (the flag's wiring is the spawn above).
    const w = await validateReport({ inputs: [F("label-target-missing")], quiet: true, failOn: "warning", open: openFile });
    expect(w.exitCode).toBe(1);
  });

  it("--format json: one document with files, diagnostics and summary (the CLI in process)", async () => {
    const r = await cliOut(["validate", "--format", "json", FAULTS]);
    const doc = JSON.parse(r.stdout);
    expect(doc.files).toHaveLength(1);
    expect(doc.files[0].file).toBe(FAULTS);
    const first = doc.files[0].diagnostics.find((x: Diagnostic) => x.code === "malformed-json");
    expect(first).toMatchObject({
      code: "malformed-json",
      severity: "error",
      line: 50,
      column: expect.any(Number),
      message: expect.any(String),
      args: expect.any(Object),
    });
    expect(Object.keys(first)).toEqual(["code", "severity", "line", "column", "message", "args"]);
    expect(doc.summary).toMatchObject({ files: 1, filesWithFindings: 1, error: expect.any(Number) });
  });

  it("--format ndjson: one diagnostic per line with its file; stdin as -", async () => {
    const input = readFileSync(join(ROOT, F("self-parent")));
    const r = await runCli(["validate", "--format", "ndjson", "-"], { input });
    expect(r.code).toBe(1);
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows).toEqual([
      {
        file: "-",
        code: "self-parent",
        severity: "error",
        line: 4,
        entryId: "self0001",
        message: expect.any(String),
        args: { id: "self0001" },
      },
    ]);
  });

  it("--format github: annotations (the CLI in process)", async () => {
    const r = await cliOut(["validate", "--format", "github", F("malformed-json"), F("label-target-missing"), F("blank-line")]);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^::error file=fixtures\/validate\/malformed-json\.jsonl,line=4,col=\d+,title=malformed-json::line is not valid JSON/,
    );
    expect(lines[1]).toBe(
      "::warning file=fixtures/validate/label-target-missing.jsonl,line=4,title=label-target-missing::label lost points to gone0001, which does not exist",
    );
    expect(lines[2]).toMatch(/^::notice file=fixtures\/validate\/blank-line\.jsonl,line=4,title=blank-line::/);
  });

  it("--format sarif: SARIF 2.1.0, rules = codes (the CLI in process)", async () => {
    const r = await cliOut(["validate", "--format", "sarif", FAULTS]);
    const log = JSON.parse(r.stdout);
    expect(log.version).toBe("2.1.0");
    const run = log.runs[0];
    expect(run.tool.driver.name).toBe("pisess");
    expect(run.tool.driver.rules.map((x: { id: string }) => x.id)).toEqual(Object.keys(CODES));
    const res = run.results.find((x: { ruleId: string }) => x.ruleId === "duplicate-id");
    expect(res).toMatchObject({
      level: "error",
      locations: [{ physicalLocation: { artifactLocation: { uri: FAULTS }, region: { startLine: 164 } } }],
    });
    expect(run.tool.driver.rules[res.ruleIndex].id).toBe("duplicate-id");
    expect(run.results.some((x: { level: string }) => x.level === "note")).toBe(true);
  });

  it("directories are searched recursively for *.jsonl, in sorted order", () => {
    const doc = JSON.parse(dirJson.stdout);
    const names = doc.files.map((f: { file: string }) => f.file);
    expect(names).toEqual([...names].sort());
    expect(names).toContain("fixtures/validate/clean.jsonl");
    expect(names).toContain("fixtures/validate/clean-pi16.jsonl");
    expect(names.length).toBe(Object.keys(SCENARIOS).length + 2);
  });

  it("never changes a file (bytes and mtime)", async () => {
    // Every file checked in-process too, and through the CLI in each format that reads more than the findings
    // (json above; sarif here). readonly.test.ts holds every command, validate included, to the same guarantee.
    await validateReport({ inputs: ["fixtures/validate", "fixtures/corpus"], strict: true, open: openFile });
    expect(dirJson.code).toBe(1);
    expect((await runCli(["validate", "--format", "sarif", "fixtures/validate"])).code).toBe(1);
    expect(ALL().map(fingerprint)).toEqual(before);
  });

  it("pisess schema lists and prints schemas", async () => {
    const list = spawnCli(["schema"]);
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n")).toContain("entry-compaction");
    const one = await runCli(["schema", "header"]);
    expect(JSON.parse(one.stdout)).toEqual(JSON.parse(readFileSync(join(ROOT, "schemas", "header.json"), "utf8")));
    // The rest in process.
    expect((await cliOut(["schema", "header.json"])).stdout).toBe(one.stdout);
    const bad = await cliOut(["schema", "nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("no schema named");
  });

  it("the command modules load ajv and the checks lazily", () => {
    for (const f of ["validate.js", "schema.js"]) {
      const src = readFileSync(join(ROOT, "dist", "commands", f), "utf8");
      expect(src).not.toMatch(/^import .*(ajv|\.\.\/check\/|cli-table3)/m);
    }
  });
});

describe("validate golden text output", () => {
  // Through the binary: the command wires the report to the text renderer.
  it("validate-faults.txt", async () => {
    const r = faultsText();
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(await validateText(["fixtures/corpus/gen-v3-faults.jsonl"]));
    expectGolden("validate-faults.txt", r.stdout);
  });
  // The others in-process, with the same renderer (src/render/validate-text.ts) the command uses.
  const cases: [string, string[], { quiet?: boolean; color?: boolean }?][] = [
    [
      "validate-multi.txt",
      [
        "fixtures/validate/header-not-first.jsonl",
        "fixtures/validate/clean.jsonl",
        "fixtures/validate/duplicate-id.jsonl",
        "fixtures/validate/missing-file.jsonl",
      ],
    ],
    ["validate-clean.txt", ["fixtures/validate/clean.jsonl", "fixtures/corpus/gen-v3-branchy.jsonl"]],
    ["validate-quiet.txt", ["fixtures/corpus/gen-v3-cycle-crlf-bom.jsonl"], { quiet: true }],
    ["validate-color.txt", ["fixtures/validate/parent-cycle.jsonl", "fixtures/validate/blank-line.jsonl"], { color: true }],
  ];
  for (const [name, inputs, o] of cases) {
    it(name, async () => {
      expectGolden(name, await validateText(inputs, o));
    });
  }
});

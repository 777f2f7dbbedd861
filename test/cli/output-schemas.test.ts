import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { commandLoaders } from "../../src/commands/index.js";
import type { Diagnostic } from "../../src/model/types.js";
import type { SqlValue } from "../../src/ops/fleet-tables.js";
import type { UsageRow } from "../../src/ops/fleet-usage.js";
import type { FollowStep } from "../../src/ops/follow.js";
import type { IndexData } from "../../src/reports/fleet-index.js";
import type { labelHistoryText, labelsText } from "../../src/render/labels.js";
import type { leavesJson } from "../../src/render/leaves.js";
import type { lsJson } from "../../src/render/ls.js";
import type { followNdjson } from "../../src/render/follow.js";
import type { usageJson } from "../../src/render/usage.js";
import type { validateJson } from "../../src/render/validate-json.js";
import type * as Wire from "../../src/render/wire.js";
import { corpus, fixture, ROOT, runCli } from "../support/helpers.js";
import { checkOutput, OUTPUT_SCHEMAS, outputSchemaFor, outputValidators } from "../support/output-schema-check.js";

// Every --json document and --ndjson line pisess prints is validated against its schema in schemas/output/
// (generated from src/render/wire.ts): a renderer that adds, drops or retypes a key without the wire type (and so
// the schema) following fails here, as ripgrep's tests/json.rs decodes its printer's output with types of its own.

/** true when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// The wire types src/render/wire.ts writes out for documents a renderer builds around rows or as a plain object,
// held at compile time to the types the renderers take: a renderer's row type changing without wire.ts fails tsc.
const wireMatchesRenderers: true[] = [
  true satisfies Same<Wire.LeavesJson["leaves"], Parameters<typeof leavesJson>[1]>,
  true satisfies Same<Wire.LsJson["sessions"], Parameters<typeof lsJson>[0]>,
  true satisfies Same<Wire.LabelsJson["labels"], Parameters<typeof labelsText>[0]>,
  true satisfies Same<Wire.LabelsHistoryJson["history"], Parameters<typeof labelHistoryText>[0]>,
  true satisfies Same<Wire.ValidateJson["summary"], Parameters<typeof validateJson>[1]>,
  true satisfies Same<Wire.DiagnosticJson["args"], Diagnostic["args"]>,
  true satisfies Same<Wire.DiagnosticJson["severity"], Diagnostic["severity"]>,
  true satisfies Same<Wire.DiagnosticJson["line"], Diagnostic["line"]>,
  true satisfies Same<Wire.UsageJson["totals"], Parameters<typeof usageJson>[2]>,
  true satisfies Same<Wire.UsageJson["by"][number], Parameters<typeof usageJson>[0][number]>,
  true satisfies Same<NonNullable<Wire.UsageRowJson["models"]>, NonNullable<UsageRow["models"]>>,
  true satisfies Same<Wire.SqlRowJson[string], SqlValue>,
  true satisfies Same<Wire.FollowNdjsonLine["spend"], FollowStep["spend"]>,
  true satisfies Same<Wire.FollowNdjsonLine["entry"], Parameters<typeof followNdjson>[3]>,
  true satisfies Same<Wire.IndexJson["rows"], IndexData["rows"]>,
  true satisfies Same<Wire.IndexJson["failures"], IndexData["failures"]>,
];

const OUT = join(ROOT, "schemas", "output");
const INDEX = { schemas: OUTPUT_SCHEMAS };
const validators = outputValidators();
/** Schema name → how many documents or lines were validated against it. */
const checked = new Map<string, number>();

/**
 * Runs pisess in process and checks its stdout against `name`, which must also be what outputSchemaFor picks for
 * the arguments (so the helper other tests use names the right schema). Returns the documents or lines checked.
 */
async function expectOutput(name: string, args: string[], opts: { env?: Record<string, string>; code?: number } = {}): Promise<number> {
  const r = await runCli(args, opts.env ? { env: opts.env } : {});
  const where = `pisess ${args.join(" ")}`;
  if (opts.code !== undefined) expect(r.code, `${where}: ${r.stderr}`).toBe(opts.code);
  else expect(r.code, `${where}: ${r.stderr}`).toBeLessThan(2);
  expect(outputSchemaFor(args), where).toBe(name);
  const n = checkOutput(name, r.stdout, where);
  checked.set(name, (checked.get(name) ?? 0) + n);
  return n;
}

const SESSIONS = [
  ...readdirSync(fixture("corpus"))
    .filter((f) => f.endsWith(".jsonl") && !f.startsWith("real-v1-large"))
    .map((f) => corpus(f)),
  // future-version.jsonl is refused (exit 2, no output).
  ...readdirSync(fixture("tree"))
    .filter((f) => f !== "future-version.jsonl")
    .map((f) => fixture("tree", f)),
  ...readdirSync(fixture("fork", "pi16")).map((f) => fixture("fork", "pi16", f)),
  fixture("validate", "clean-pi16.jsonl"),
  fixture("bloat", "kinds.jsonl"),
  fixture("compactions", "dropped.jsonl"),
  fixture("compactions", "edited-out.jsonl"),
  fixture("diff", "branches.jsonl"),
  fixture("diff", "cycle.jsonl"),
];
const FLEET = fixture("fleet", "sessions");

describe("output schemas: the files in schemas/output are what the wire types give", () => {
  it("gen-output-schemas --check passes (run npm run schemas:output after changing src/render/wire.ts)", () => {
    const r = spawnSync(process.execPath, [join(ROOT, "scripts", "gen-output-schemas.mjs"), "--check"], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  }, 120_000);

  it("every schema compiles in strict mode, and export's lines reuse the input schemas", () => {
    expect(wireMatchesRenderers.every((t) => t)).toBe(true);
    expect([...validators.keys()].sort()).toEqual(INDEX.schemas.map((s) => s.name).sort());
    // Closed objects: a key the schema does not name is an error (here on tree --json's top level).
    expect(validators.get("tree")?.({ file: "f", version: 3, leaf: null, roots: [], entries: [], extra: 1 })).toBe(false);
    expect(validators.get("tree")?.({ file: "f", version: 3, leaf: null, roots: [], entries: [] })).toBe(true);
    // A required key missing fails.
    expect(validators.get("tree")?.({ file: "f", version: 3, leaf: null, roots: [] })).toBe(false);
  });
});

describe("output schemas: every command's --json and --ndjson output validates", () => {
  it.each(SESSIONS.map((f) => [relative(ROOT, f), f]))(
    "tree, path, context (and --llm), info, leaves, labels (and --history), show, grep, bloat, compactions, budget: %s",
    async (_name, file) => {
      await expectOutput("tree", ["tree", file, "--json"]);
      await expectOutput("tree.ndjson-line", ["tree", file, "--ndjson"]);
      await expectOutput("path", ["path", file, "--json"]);
      await expectOutput("path.ndjson-line", ["path", file, "--ndjson"]);
      await expectOutput("context", ["context", file, "--json"]);
      await expectOutput("context", ["context", file, "--llm", "--json"]);
      await expectOutput("context.ndjson-line", ["context", file, "--ndjson"]);
      await expectOutput("context.ndjson-line", ["context", file, "--llm", "--ndjson"]);
      await expectOutput("info", ["info", file, "--json"]);
      await expectOutput("leaves", ["leaves", file, "--json"]);
      await expectOutput("leaves.ndjson-line", ["leaves", file, "--ndjson"]);
      await expectOutput("labels", ["labels", file, "--json"]);
      await expectOutput("labels.ndjson-line", ["labels", file, "--ndjson"]);
      await expectOutput("labels-history", ["labels", file, "--history", "--json"]);
      await expectOutput("labels-history.ndjson-line", ["labels", file, "--history", "--ndjson"]);
      await expectOutput("show", ["show", file, "leaf", "--json"]);
      await expectOutput("grep", ["grep", "e", file, "--json"]);
      await expectOutput("grep.ndjson-line", ["grep", "e", file, "--ndjson"]);
      await expectOutput("bloat", ["bloat", file, "--json"]);
      await expectOutput("compactions", ["compactions", file, "--json"]);
      await expectOutput("budget", ["budget", file, "--path", "--keep-recent", "20000", "--json"]);
    },
    120_000,
  );

  it("show --json on every line of a file with bad lines (entries and skipped lines)", async () => {
    const file = fixture("tree", "bad-lines.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    // Line 1 is the header and blank lines hold nothing: show refuses those (exit 2).
    for (let i = 1; i < lines.length; i++)
      if ((lines[i] as string).trim() !== "") await expectOutput("show", ["show", file, `@${i + 1}`, "--json"]);
  });

  it("lines the non-empty outputs cover: labels, grep hits, compactions, context edits", async () => {
    // Literal fixtures known to hold what these outputs list, so each line schema is checked on real lines.
    expect(await expectOutput("labels.ndjson-line", ["labels", fixture("bloat", "kinds.jsonl"), "--ndjson"])).toBeGreaterThan(0);
    expect(
      await expectOutput("labels-history.ndjson-line", ["labels", fixture("bloat", "kinds.jsonl"), "--history", "--ndjson"]),
    ).toBeGreaterThan(0);
    expect(await expectOutput("grep.ndjson-line", ["grep", "e", corpus("gen16-edits.jsonl"), "--ndjson"])).toBeGreaterThan(0);
  });

  it("diff --json: two branches, a fork and its parent (paths and contexts), --leaves with a cycle", async () => {
    const F = (name: string) => fixture("diff", name);
    await expectOutput("diff", ["diff", F("branches.jsonl"), "label:try-a", "leaf", "--json"]);
    await expectOutput("diff", ["diff", F("branches.jsonl"), "label:try-a", "leaf", "--context", "--json"]);
    await expectOutput("diff", ["diff", F("compaction.jsonl"), "@5", "@8", "--context", "--json"]);
    await expectOutput("diff", ["diff", F("fork-child.jsonl"), F("fork-parent.jsonl"), "--json"]);
    await expectOutput("diff", ["diff", F("fork-parent.jsonl"), F("fork-child.jsonl"), "--json"]);
    await expectOutput("diff", ["diff", F("fork-child.jsonl"), F("fork-parent.jsonl"), "--context", "--json"]);
    await expectOutput("diff", ["diff", F("unrelated-a.jsonl"), F("unrelated-b.jsonl"), "--json"]);
    await expectOutput("diff-leaves", ["diff", fixture("diff", "branches.jsonl"), "--leaves", "--json"]);
    await expectOutput("diff-leaves", ["diff", fixture("diff", "branches.jsonl"), "--leaves", "--all-entries", "--json"]);
    await expectOutput("diff-leaves", ["diff", fixture("diff", "cycle.jsonl"), "--leaves", "--json"]);
    await expectOutput("diff-leaves", ["diff", fixture("diff", "two-roots.jsonl"), "--leaves", "--context", "--json"]);
  });

  it("secrets: json, ndjson and sarif on a session with secrets sent and not", async () => {
    const leak = fixture("secrets", "leak.jsonl");
    await expectOutput("secrets", ["secrets", leak, "--json"]);
    await expectOutput("secrets", ["secrets", leak, "--format", "json", "--show-secret", "--pattern", "acme=acme_live_[0-9a-f]{24}"]);
    expect(await expectOutput("secrets.ndjson-line", ["secrets", leak, "--format", "ndjson"])).toBeGreaterThan(0);
    await expectOutput("secrets.sarif", ["secrets", leak, "--format", "sarif"]);
  });

  it("ls, usage, sql over the fleet fixture", async () => {
    expect(await expectOutput("ls.ndjson-line", ["ls", FLEET, "--ndjson"])).toBeGreaterThan(0);
    await expectOutput("ls", ["ls", FLEET, "--json"]);
    await expectOutput("usage", ["usage", FLEET, "--by", "day,model", "--timezone", "UTC", "--json"]);
    await expectOutput("usage", ["usage", FLEET, "--by", "project,session,leaf", "--breakdown", "--json"]);
    await expectOutput("usage", ["usage", FLEET, "--json"]);
    expect(await expectOutput("usage.ndjson-line", ["usage", FLEET, "--by", "week,month", "--breakdown", "--ndjson"])).toBeGreaterThan(0);
    const q =
      "SELECT tool, count(*) AS calls, bool_or(is_error) AS any_error, list(line ORDER BY line) AS lines, max(line) / 2 AS half FROM tool_calls GROUP BY tool ORDER BY tool";
    await expectOutput("sql", ["sql", q, FLEET, "--json"]);
    expect(await expectOutput("sql.ndjson-line", ["sql", q, FLEET, "--ndjson"])).toBeGreaterThan(0);
  }, 120_000);

  it("index --json: a first build, an update, a missing sessions dir and an unreadable target", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "pisess-output-schemas-"));
    try {
      const db = join(tmp, "index.duckdb");
      // Exit 2: a target that does not exist is listed in failures; the rest is indexed.
      await expectOutput("index-update", ["index", FLEET, join(tmp, "nope"), "--db", db, "--json"], { code: 2 });
      await expectOutput("index-update", ["index", FLEET, "--db", db, "--json"], { code: 0 });
      // No targets and no sessions dir: root and missingRoot.
      const env = { PI_CODING_AGENT_DIR: join(tmp, "agent"), PI_CODING_AGENT_SESSION_DIR: join(tmp, "no-sessions") };
      await expectOutput("index-update", ["index", "--db", join(tmp, "empty.duckdb"), "--json"], { env, code: 0 });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);

  it("lineage: a fork of a fork, its parent, a file without forks", async () => {
    const dir = fixture("fork", "pi16");
    for (const f of readdirSync(dir)) {
      await expectOutput("lineage", ["lineage", join(dir, f), "--forks-in", dir, "--json"]);
      await expectOutput("lineage.ndjson-line", ["lineage", join(dir, f), "--forks-in", dir, "--ndjson"]);
    }
    const fleet = join(FLEET, "--home-dev-proj-a--");
    expect(
      await expectOutput("lineage.ndjson-line", ["lineage", join(fleet, "a-fork2.jsonl"), "--forks-in", fleet, "--ndjson"]),
    ).toBeGreaterThan(0);
  });

  it("validate --format json, ndjson and sarif, on every validate scenario and an unreadable path", async () => {
    const dir = fixture("validate");
    const missing = join(dir, "no-such-file.jsonl");
    // Exit 2: an input could not be read; the document still says which.
    await expectOutput("validate", ["validate", dir, missing, "--format", "json"], { code: 2 });
    expect(await expectOutput("validate.ndjson-line", ["validate", dir, "--format", "ndjson"])).toBeGreaterThan(0);
    await expectOutput("validate.sarif", ["validate", dir, missing, "--format", "sarif"], { code: 2 });
    await expectOutput("validate.sarif", ["validate", dir, "--format", "sarif"]);
    await expectOutput("validate", ["validate", fixture("validate", "clean.jsonl"), "--format", "json"]);
  });

  it("follow --ndjson", async () => {
    const env = { NO_COLOR: "1", PISESS_FOLLOW_POLL_MS: "20" };
    const n = await expectOutput(
      "follow.ndjson-line",
      ["follow", fixture("follow", "spend.jsonl"), "--from-start", "--until-idle", "0.3", "--ndjson"],
      { env },
    );
    expect(n).toBeGreaterThan(0);
  });

  it("export --format jsonl: every line is a header or an entry of the input schemas", async () => {
    for (const file of [
      corpus("gen-v1.jsonl"),
      corpus("gen16-branchy.jsonl"),
      fixture("validate", "clean-pi16.jsonl"),
      fixture("fork", "pi16", "fork2.jsonl"),
    ]) {
      expect(await expectOutput("export.jsonl-line", ["export", file, "--format", "jsonl"])).toBeGreaterThan(1);
    }
  });

  it("every schema was checked on real output at least once", () => {
    const unchecked = INDEX.schemas.map((s) => s.name).filter((n) => (checked.get(n) ?? 0) === 0);
    expect(unchecked).toEqual([]);
  });
});

/**
 * The JSON outputs a command declares, read from its option declarations: the builder run against a recorder that
 * takes every yargs call and keeps the options. --json and --ndjson flags, and --format choices that are JSON.
 */
async function jsonOutputs(): Promise<string[]> {
  const found: string[] = [];
  for (const [command, , load] of commandLoaders) {
    const name = command.split(" ")[0] as string;
    const mod = await load();
    const options: [string, { choices?: readonly string[] }][] = [];
    const recorder: object = new Proxy(
      {},
      {
        get:
          (_t, key) =>
          (...args: unknown[]) => {
            if (key === "option" || key === "options") {
              if (typeof args[0] === "string") options.push([args[0], (args[1] ?? {}) as { choices?: readonly string[] }]);
              else for (const [k, v] of Object.entries(args[0] as object)) options.push([k, v]);
            }
            return recorder;
          },
      },
    );
    if (typeof mod.builder === "function") mod.builder(recorder as never);
    for (const [opt, decl] of options) {
      if (opt === "json" || opt === "ndjson") found.push(`${name} --${opt}`);
      if (opt === "format") for (const c of decl.choices ?? []) if (/json|sarif/.test(c)) found.push(`${name} --format ${c}`);
    }
  }
  return found.sort();
}

/** Each JSON output → its schemas (a flag's shape can depend on other flags: labels --history, diff --leaves). */
const OUTPUTS: Record<string, string[]> = {
  "tree --json": ["tree"],
  "tree --ndjson": ["tree.ndjson-line"],
  "path --json": ["path"],
  "path --ndjson": ["path.ndjson-line"],
  "context --json": ["context"],
  "context --ndjson": ["context.ndjson-line"],
  "export --format jsonl": ["export.jsonl-line"],
  "diff --json": ["diff", "diff-leaves"],
  "ls --json": ["ls"],
  "ls --ndjson": ["ls.ndjson-line"],
  "info --json": ["info"],
  "leaves --json": ["leaves"],
  "leaves --ndjson": ["leaves.ndjson-line"],
  "show --json": ["show"],
  "labels --json": ["labels", "labels-history"],
  "labels --ndjson": ["labels.ndjson-line", "labels-history.ndjson-line"],
  "lineage --json": ["lineage"],
  "lineage --ndjson": ["lineage.ndjson-line"],
  "grep --json": ["grep"],
  "grep --ndjson": ["grep.ndjson-line"],
  "validate --format json": ["validate"],
  "validate --format ndjson": ["validate.ndjson-line"],
  "validate --format sarif": ["validate.sarif"],
  "secrets --format json": ["secrets"],
  // The same document as --format json.
  "secrets --json": [],
  "secrets --format ndjson": ["secrets.ndjson-line"],
  "secrets --format sarif": ["secrets.sarif"],
  "bloat --json": ["bloat"],
  "compactions --json": ["compactions"],
  "budget --json": ["budget"],
  "usage --json": ["usage"],
  "usage --ndjson": ["usage.ndjson-line"],
  "sql --json": ["sql"],
  "sql --ndjson": ["sql.ndjson-line"],
  "follow --ndjson": ["follow.ndjson-line"],
  "index --json": ["index-update"],
  // Writes files into --out, not stdout; their rows are described by schemas/tables/.
  "tables --format ndjson": [],
};

describe("output schemas: no JSON output without a schema", () => {
  it("every --json/--ndjson flag and JSON --format of every command has its schemas, and every schema an output", async () => {
    const found = await jsonOutputs();
    expect(found).toEqual(Object.keys(OUTPUTS).sort());
    const named = Object.values(OUTPUTS).flat().sort();
    expect(named).toEqual(INDEX.schemas.map((s) => s.name).sort());
  });

  it("outputSchemaFor: no schema for text or file outputs", () => {
    expect(outputSchemaFor(["tree", "f.jsonl"])).toBe(null);
    expect(outputSchemaFor(["diff", "f.jsonl", "--leaves"])).toBe(null);
    expect(outputSchemaFor(["validate", "f.jsonl", "-f", "github"])).toBe(null);
    expect(outputSchemaFor(["validate", "f.jsonl", "-f", "ndjson"])).toBe("validate.ndjson-line");
    expect(outputSchemaFor(["validate", "f.jsonl", "--format=sarif"])).toBe("validate.sarif");
    expect(outputSchemaFor(["export", "f.jsonl", "--format", "jsonl", "-o", "out.jsonl"])).toBe(null);
    expect(outputSchemaFor(["export", "f.jsonl", "--format", "markdown"])).toBe(null);
    expect(outputSchemaFor(["tables", "dir", "--out", "t", "--format", "ndjson"])).toBe(null);
    expect(outputSchemaFor(["index", "dir", "--db", "i.duckdb"])).toBe(null);
    expect(outputSchemaFor(["index", "dir", "--json"])).toBe("index-update");
  });

  it("pisess schema lists the output schemas as output/NAME and prints them", async () => {
    const list = await runCli(["schema"]);
    expect(list.code).toBe(0);
    const names = list.stdout.split("\n");
    expect(names).toContain("entry-compaction");
    expect(names.filter((n) => n.startsWith("output/"))).toEqual(INDEX.schemas.map((s) => `output/${s.name}`));
    for (const name of ["output/tree.ndjson-line", "output/validate.sarif.json"]) {
      const one = await runCli(["schema", name]);
      expect(one.code).toBe(0);
      const file = name.replace(/^output\//, "").replace(/(\.json)?$/, ".json");
      expect(JSON.parse(one.stdout)).toEqual(JSON.parse(readFileSync(join(OUT, file), "utf8")));
    }
    expect((await runCli(["schema", "output/nope"])).code).toBe(2);
    expect((await runCli(["schema", "output/header"])).code).toBe(2);
  });

  it("the tables ndjson rows have their schemas in schemas/tables", () => {
    expect(readdirSync(join(ROOT, "schemas", "tables")).sort()).toEqual([
      "entries.json",
      "leaves.json",
      "messages.json",
      "sessions.json",
      "tool_calls.json",
      "usage.json",
    ]);
  });
});

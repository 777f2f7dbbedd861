import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { devNull } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN, corpus, ROOT } from "../support/helpers.js";

// Which code a run of the bundled CLI (dist/bundle, scripts/build-cli.mjs) loads: each module file the run opens
// (test/load-trace.mjs), mapped through esbuild's metafile to the sources and packages bundled into it.
const BUNDLE = join(ROOT, "dist", "bundle");
const TRACE = join(ROOT, "test", "support", "load-trace.mjs");
const FILE = corpus("gen-v3-branchy.jsonl");

interface Meta {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

interface Loaded {
  packages: Set<string>;
  sources: Set<string>;
  /** The files opened, as they are on disk. */
  files: string[];
  stdout: string;
  stderr: string;
  code: number;
}

function loaded(args: string[]): Loaded {
  const meta = JSON.parse(readFileSync(join(BUNDLE, "meta.json"), "utf8")) as Meta;
  const r = spawnSync(process.execPath, ["--import", TRACE, BIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const packages = new Set<string>();
  const sources = new Set<string>();
  const files: string[] = [];
  const add = (input: string) => {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) packages.add(m[1] as string);
    else sources.add(input);
  };
  for (const [, what] of r.stderr.matchAll(/^LOADED (.+)$/gm)) {
    const file = (what as string).startsWith("file:") ? fileURLToPath(what as string) : (what as string);
    files.push(file);
    if (file.startsWith(`${BUNDLE}/`)) {
      const out = meta.outputs[`dist/bundle/${file.slice(BUNDLE.length + 1)}`];
      for (const input of Object.keys(out?.inputs ?? {})) add(input);
    } else add(file);
  }
  return { packages, sources, files, stdout: r.stdout, stderr: r.stderr, code: r.status ?? -1 };
}

// Libraries only some output needs: width measuring, colour, tables, schemas, help layout, progress bars.
const HEAVY = ["string-width", "chalk", "cli-table3", "ajv", "cliui", "cli-progress"];

describe("the bundled CLI loads what a run needs", () => {
  it("--version loads no command module and none of the heavy libraries", () => {
    const r = loaded(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    expect([...r.sources].filter((s) => /^src\/commands\/(?!index|common|run-state)/.test(s))).toEqual([]);
    expect(HEAVY.filter((p) => r.packages.has(p))).toEqual([]);
  });

  for (const args of [
    ["tree", FILE, "--json"],
    ["context", FILE, "--json"],
    ["path", FILE, "--ndjson"],
    ["info", FILE, "--json"],
  ]) {
    it(`${args[0]} ${args[2]} loads none of ${HEAVY.join(", ")}, and only its own command`, () => {
      const r = loaded(args);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout.split("\n")[0] as string)).toBeTruthy();
      expect(HEAVY.filter((p) => r.packages.has(p))).toEqual([]);
      expect([...r.sources].filter((s) => /^src\/commands\/(?!index|common|run-state)/.test(s))).toEqual([`src/commands/${args[0]}.ts`]);
    });
  }

  it("--help loads no command module, and lists each command as its module declares it", async () => {
    const r = loaded(["--help"]);
    expect(r.code).toBe(0);
    expect([...r.sources].filter((s) => /^src\/commands\/(?!index|common|run-state)/.test(s))).toEqual([]);
    const { commandLoaders } = await import("../../src/commands/index.js");
    for (const [command, describe, load] of commandLoaders) {
      const m = await load();
      expect({ command: m.command, describe: m.describe }).toEqual({ command, describe });
      // Only these reach the top-level help; a module growing aliases or deprecated would need the table to carry them.
      expect(Object.keys(m).sort()).toEqual(["builder", "command", "describe", "handler"]);
      expect(r.stdout).toContain(`pisess ${command}`);
    }
  });

  it("a mistyped command loads no command module, and yargs still suggests the name", () => {
    const r = loaded(["tre", FILE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^pisess: Did you mean tree\?$/m);
    expect([...r.sources].filter((s) => /^src\/commands\/(?!index|common|run-state)/.test(s))).toEqual([]);
  });

  it("completion loads every command module: it asks each command's builder for its options", () => {
    const r = loaded(["--get-yargs-completions", "pisess", "tree", "--"]);
    expect(r.code).toBe(0);
    expect(r.sources.has("src/commands/tree.ts")).toBe(true);
    expect(r.sources.has("src/commands/validate.ts")).toBe(true);
    expect(r.stdout.split("\n")).toContain("--leaf");
  });

  // The same tracing sees the libraries when the output does need them, so the checks above can fail.
  it("text output that measures, colours or tables loads string-width, chalk and cli-table3", () => {
    const tree = loaded(["tree", FILE, "--width", "80", "--color", "always"]);
    expect(tree.packages.has("string-width")).toBe(true);
    expect(tree.packages.has("chalk")).toBe(true);
    expect(loaded(["info", FILE]).packages.has("cli-table3")).toBe(true);
    // validate runs the schema validators generated at build time (scripts/gen-validators.mjs), never ajv itself.
    const validate = loaded(["validate", FILE, "--format", "json"]);
    expect(validate.sources.has("src/check/schema-validators.generated.ts")).toBe(true);
    expect(validate.packages.has("ajv")).toBe(false);
    expect(loaded(["--help"]).packages.has("cliui")).toBe(true);
    expect(loaded(["tree", "--help"]).packages.has("cliui")).toBe(true);
  });
});

describe("a run that writes nothing to stderr makes no stream for it", () => {
  const BUILTINS_TRACE = join(ROOT, "test", "support", "node-modules-trace.cjs");
  /** The built-in modules a run loads, its stdout a file (as the bench's /dev/null: written without a stream) and its stderr a pipe. */
  const builtins = (args: string[], status: number): string[] => {
    const out = openSync(devNull, "w");
    try {
      const r = spawnSync(process.execPath, ["-r", BUILTINS_TRACE, BIN, ...args], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", out, "pipe"],
      });
      expect(r.status).toBe(status);
      return JSON.parse(/^BUILTINS (.+)$/m.exec(r.stderr)?.[1] ?? "null") as string[];
    } finally {
      closeSync(out);
    }
  };
  const STREAMS = ["assert", "net", "stream", "tty", "internal/modules/esm/resolve"];
  // node:assert (yargs's two assertions) reads process.stderr for its colours: Node then makes the pipe's stream
  // (net, and the stream modules); require.resolve of a package loads the ES module loader's package resolution.
  for (const args of [["--version"], ["tree", FILE, "--json"]])
    it(`${args.join(" ").replace(FILE, "FILE")} loads neither node:assert, Node's streams nor its package resolution`, () => {
      expect(builtins(args, 0).filter((m) => STREAMS.includes(m))).toEqual([]);
    });

  // The same trace sees them when a run does write to stderr, so the checks above can fail.
  it("a run with a message for stderr makes its stream", () => {
    expect(builtins(["tree", FILE, "--leaf", "nosuch"], 2)).toContain("net");
  });
});

describe("the bundled CLI loads DuckDB's API from one file", () => {
  // scripts/build-cli.mjs bundles @duckdb/node-api into dist/bundle/duckdb-api.cjs: its 186 files were 53–68 ms of
  // every sql, usage and index run. Its native part is loaded from node_modules, as the package's install left it.
  it("sql opens dist/bundle/duckdb-api.cjs and the native bindings, and none of the package's own files", () => {
    const r = loaded(["sql", "SELECT 1 AS x", join(ROOT, "fixtures", "tree"), "--csv"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split(/\r?\n/)).toEqual(["x", "1", ""]);
    expect(r.files).toContain(join(BUNDLE, "duckdb-api.cjs"));
    expect(r.files.some((f) => f.includes("@duckdb/node-bindings"))).toBe(true);
    expect(r.files.filter((f) => f.includes("@duckdb/node-api/"))).toEqual([]);
  });
});

describe("the bundled CLI starts from V8 code caches", () => {
  // bin/pisess.js compiles each file with the cache the build made for it; V8 turns a cache down without a word
  // (another Node, other flags, a file rebuilt without its cache), and the run is then only slower.
  it("tree --json compiles cli.cjs and tree.cjs from their caches", () => {
    const script = `const l = require(${JSON.stringify(BIN)}).bundleLoader();
l.load("cli.cjs").main(${JSON.stringify(["tree", FILE, "--json"])}).then(() => process.stderr.write(JSON.stringify(l.cached())));`;
    const r = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
    expect(JSON.parse(r.stderr)).toEqual(["cli.cjs", "tree.cjs"]);
  });

  it("a cache made for other contents is not used", () => {
    const script = `const fs = require("node:fs");
const read = fs.readFileSync;
fs.readFileSync = (f, ...rest) => (String(f).endsWith("tree.cjs.cache") ? Buffer.from("// pisess build 00\\n") : read(f, ...rest));
const l = require(${JSON.stringify(BIN)}).bundleLoader();
l.load("cli.cjs").main(${JSON.stringify(["tree", FILE, "--json"])}).then((code) => process.stderr.write(JSON.stringify([code, l.cached()])));`;
    const r = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
    expect(JSON.parse(r.stderr)).toEqual([0, ["cli.cjs"]]);
  });
});

describe("the bundle ships the worker threads of the fleet commands and of secrets", () => {
  // pool.ts looks for them beside the code that starts them; without them usage, tables and secrets quietly stay on
  // one thread.
  it("usage-worker.js, tables-worker.js and secrets-worker.js sit beside the chunks, built from their sources", () => {
    const meta = JSON.parse(readFileSync(join(BUNDLE, "meta.json"), "utf8")) as Meta & {
      outputs: Record<string, { entryPoint?: string }>;
    };
    for (const name of ["usage", "tables", "secrets"]) {
      expect(meta.outputs[`dist/bundle/${name}-worker.js`]?.entryPoint).toBe(`src/reports/${name}-worker.ts`);
    }
  });
});

#!/usr/bin/env node
// Bundles the CLI (src/cli.ts and everything it imports) into dist/bundle/: CommonJS files that load on demand,
// cli.cjs (yargs and the command table), one per command, help.cjs (help layout), each with a V8 code cache made
// from a sample run; plus the worker threads of the fleet commands and of secrets (ES modules). A run opens two or
// three files instead of hundreds. bin/pisess.js loads dist/bundle/cli.cjs; the library entry (dist/index.js) stays
// tsc's unbundled output.
// The code caches (and the CommonJS files they need) and yargs's lazy help layout are the start-up tricks that pay:
// bench/RESULTS.md ("Start-up tricks") has what each saves; the others were measured and deleted.
//
// dist/bundle/ sits one level below the package root like src/ and dist/, so paths the code resolves against
// import.meta.url (../../package.json, ../../schemas/, ../../dist/web/) hold for the bundle as well.
//
// For the bench only (bench/run.mjs, the row of the yargs trick): `--plain-yargs DIR` builds the same CLI into DIR (a
// folder two levels below the package root, as dist/bundle/ is) with that trick undone: yargs bundled with its own
// platform shim (cliui and string-width loaded with it), yargs's help cache not skipped (skipHelpCache in src/cli.ts
// made to do nothing), no help.cjs; the code cache made for cli.cjs and tree.cjs alone, from the same sample run.
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { build } from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const plainAt = process.argv.indexOf("--plain-yargs");
const PLAIN = plainAt === -1 ? null : resolve(process.argv[plainAt + 1] ?? "");
if (PLAIN !== null && dirname(dirname(PLAIN)) !== ROOT)
  throw new Error("build-cli: --plain-yargs DIR needs a folder two levels below the package root (as dist/bundle)");
const OUT = PLAIN ?? join(ROOT, "dist", "bundle");
const YARGS = join(ROOT, "node_modules", "yargs");

/** yargs with a platform shim that loads cliui and string-width only for help (scripts/yargs-shim.mjs). */
const lazyYargs = {
  name: "lazy-yargs",
  setup(b) {
    b.onResolve({ filter: /platform-shims\/esm\.mjs$/ }, () => ({ path: join(ROOT, "scripts", "yargs-shim.mjs") }));
    // yargs's internals are not in its package exports; the shim needs one of them.
    b.onResolve({ filter: /^yargs\/build\// }, (a) => ({ path: join(YARGS, a.path.slice("yargs/".length)) }));
    b.onResolve({ filter: /^yargs$/ }, (a) =>
      a.importer.startsWith(join(ROOT, "src")) ? { path: join(ROOT, "scripts", "yargs-entry.mjs") } : undefined,
    );
  },
};

/** The variant of --plain-yargs: src/cli.ts with skipHelpCache a no-op, so yargs builds its help before each handler. */
const helpCacheKept = {
  name: "help-cache-kept",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]cli\.ts$/ }, (a) => {
      if (a.path !== join(ROOT, "src", "cli.ts")) return undefined;
      const source = readFileSync(a.path, "utf8");
      const head = /function skipHelpCache\([^)]*\): void \{/;
      if (!head.test(source)) throw new Error("build-cli --plain-yargs: no skipHelpCache in src/cli.ts to undo");
      return { contents: source.replace(head, "$& return;"), loader: "ts" };
    });
  },
};
/** How yargs is bundled: with the lazy help (the CLI), or plainly (--plain-yargs). */
const YARGS_PLUGINS = PLAIN ? [helpCacheKept] : [lazyYargs];

/**
 * DuckDB's API in one file of the bundle (dist/bundle/duckdb-api.cjs), required by src/reports/duck-api.ts in its
 * place: the package's 186 files took 53–68 ms of every sql, usage and index run to load, one file 24–31 ms. Its
 * native part (@duckdb/node-bindings) stays in node_modules, where the package's install put it.
 */
const DUCK_API_FILE = "./duckdb-api.cjs";
const duckApiFile = {
  name: "duck-api-file",
  setup(b) {
    b.onLoad({ filter: /src[\\/]reports[\\/]duck-api\.ts$/ }, () => ({
      contents: `export function duckApi() { return require(${JSON.stringify(DUCK_API_FILE)}); }`,
      loader: "js",
    }));
    b.onResolve({ filter: /^\.\/duckdb-api\.cjs$/ }, (a) => ({ path: a.path, external: true }));
  },
};

/** What every build of the CLI shares. */
const COMMON = {
  absWorkingDir: ROOT,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Optional and native: resolved at run time, when `pisess sql` asks for it.
  // supports-color: `debug` (secretlint's logger) tries it inside a try/catch and does without it.
  external: ["@duckdb/node-api", "@duckdb/node-bindings", "supports-color"],
  legalComments: "none",
  // Every non-ASCII character escaped (esbuild's default, stated: bin/pisess.js reads the bundle as latin1).
  charset: "ascii",
  // Less source for V8 to parse and compile at start-up (about a tenth of a typical run's CPU); names are kept, so a
  // --debug stack trace still names its functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
};
// The worker threads load these by name from beside the code that starts them (src/reports/pool.ts).
const ENTRIES = {
  cli: join(ROOT, "src", "cli.ts"),
  "usage-worker": join(ROOT, "src", "reports", "usage-worker.ts"),
  "tables-worker": join(ROOT, "src", "reports", "tables-worker.ts"),
  "secrets-worker": join(ROOT, "src", "reports", "secrets-worker.ts"),
  "ls-worker": join(ROOT, "src", "reports", "ls-worker.ts"),
  "grep-worker": join(ROOT, "src", "reports", "grep-worker.ts"),
};
const SPLIT = {
  ...COMMON,
  entryPoints: ENTRIES,
  splitting: true,
  chunkNames: "chunk-[hash]",
  // Some dependencies (cli-table3, ajv) are CommonJS; they need a require() inside the ESM bundle.
  banner: { js: 'import { createRequire as __pisessRequire } from "node:module"; const require = __pisessRequire(import.meta.url);' },
  metafile: true,
};

// Split by esbuild alone, a run of one command opened 15–20 chunks (each set of commands sharing a module gets its
// own), and loading a file costs about 0.7 ms: more than the command's work on a typical session. So each command
// is bundled first into one module (stage 1), and stage 2 makes each of those one file: a run opens cli.cjs and its
// command's file.
// A stage-1 module leaves out (imports, to be shared) only what must stay one instance: the modules cli.ts loads
// (run-state's exit status and error classes). What the command imports on demand (import()) esbuild keeps in the
// same module, run only when imported; the heavy libraries (chalk, string-width, cli-table3) are required at run
// time anyway (createRequire: src/render/style.ts, width.ts, text-table.ts), so a run that does not need them still does not load them.
// Commands share no state with each other (one runs), so their copies of common code are harmless.
const STATIC_KINDS = new Set(["import-statement", "require-call", "require-resolve"]);
const analysis = await build({ ...SPLIT, outdir: OUT, write: false, plugins: [duckApiFile, ...YARGS_PLUGINS] });
const inputs = analysis.metafile.inputs;
const closure = (roots, dynamic) => {
  const seen = new Set();
  const stack = [...roots];
  while (stack.length > 0) {
    const p = stack.pop();
    if (seen.has(p)) continue;
    seen.add(p);
    for (const i of inputs[p]?.imports ?? []) {
      if (!i.external && (STATIC_KINDS.has(i.kind) || (dynamic && i.kind === "dynamic-import"))) stack.push(i.path);
    }
  }
  return seen;
};
const dynamicTargets = (set) =>
  new Set([...set].flatMap((p) => (inputs[p]?.imports ?? []).filter((i) => i.kind === "dynamic-import" && !i.external).map((i) => i.path)));
const commands = [...dynamicTargets(["src/commands/index.ts"])];
if (commands.length < 10) throw new Error(`build-cli: found only ${commands.length} command modules in src/commands/index.ts`);
const core = closure(["src/cli.ts"], false);
const PRE = PLAIN ? `${PLAIN}.prebundle` : join(ROOT, "dist", ".prebundle");
rmSync(PRE, { recursive: true, force: true });
const prebundled = new Map(); // source path (relative) -> stage-1 file (absolute)
const stage1 = await Promise.all(
  commands.map(async (command) => {
    const outfile = join(PRE, `${command.replace(/^src\/commands\//, "").replace(/\.ts$/, "")}.js`);
    prebundled.set(command, outfile);
    const keepShared = {
      name: "keep-shared",
      setup(b) {
        b.onResolve({ filter: /.*/ }, async (a) => {
          if (a.pluginData === "keep-shared" || a.kind === "entry-point") return undefined;
          const r = await b.resolve(a.path, { kind: a.kind, importer: a.importer, resolveDir: a.resolveDir, pluginData: "keep-shared" });
          if (r.errors.length > 0 || r.external || r.namespace !== "file") return r;
          const rel = relative(ROOT, r.path);
          if (core.has(rel)) return { path: r.path, external: true };
          return { path: r.path };
        });
      },
    };
    const result = await build({
      ...COMMON,
      entryPoints: [join(ROOT, command)],
      outfile,
      plugins: [duckApiFile, keepShared, ...YARGS_PLUGINS],
      metafile: true,
    });
    return result.metafile;
  }),
);

rmSync(OUT, { recursive: true, force: true });

// Stage 2: CommonJS, so that a run never starts Node's ES module loader and bin/pisess.js can hand V8 a code cache
// for each file (see below). esbuild splits only ES modules, so the files are cut by hand: cli.cjs holds src/cli.ts
// and what it imports (yargs, run-state); each command's stage-1 module becomes <command>.cjs, which takes the
// modules it shares with cli.cjs from cli.cjs's `__core` (one instance: the exit status, the error classes); help.cjs
// holds yargs's help layout. A file requires another as "./<name>.cjs", through Node's require or bin/pisess.js's.
const CJS = {
  ...COMMON,
  format: "cjs",
  // import() becomes require(): the files load through bin/pisess.js's require, never the ES module loader.
  supported: { "dynamic-import": false },
  // Code that resolves files against import.meta.url (package.json, schemas/, workers) gets this file's URL.
  define: { "import.meta.url": "__pisessUrl" },
  // ("use strict" first: the banner would otherwise push esbuild's below the first statement, where it means nothing.)
  banner: { js: '"use strict";var __pisessUrl = require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
};
const sharedByCommands = new Set();
for (const m of stage1)
  for (const o of Object.values(m.outputs))
    for (const i of o.imports) if (i.external && core.has(relative(ROOT, i.path))) sharedByCommands.add(relative(ROOT, i.path));
const coreEntry = join(PRE, "core-entry.mjs");
const shared = [...sharedByCommands].sort();
writeFileSync(
  coreEntry,
  [
    `export * from ${JSON.stringify(join(ROOT, "src", "cli.ts"))};`,
    ...shared.map((rel, i) => `import * as core${i} from ${JSON.stringify(join(ROOT, rel))};`),
    `export const __core = { ${shared.map((rel, i) => `${JSON.stringify(rel)}: core${i}`).join(", ")} };`,
  ].join("\n"),
);
const commandFile = (command) => `./${command.replace(/^src\/commands\//, "").replace(/\.ts$/, "")}.cjs`;
/** In cli.cjs: each command, and the help layout, is a file of its own. */
const splitCore = {
  name: "split-core",
  setup(b) {
    b.onResolve({ filter: /^\.\/[a-z-]+\.js$/ }, async (a) => {
      if (a.pluginData === "split-core" || relative(ROOT, a.importer) !== "src/commands/index.ts") return undefined;
      const r = await b.resolve(a.path, { kind: a.kind, importer: a.importer, resolveDir: a.resolveDir, pluginData: "split-core" });
      const rel = relative(ROOT, r.path);
      return prebundled.has(rel) ? { path: commandFile(rel), external: true } : r;
    });
    b.onResolve({ filter: /^\.\/yargs-help\.mjs$/ }, () => ({ path: "./help.cjs", external: true }));
  },
};
/** In a command's file: what cli.cjs holds is taken from it. */
const fromCore = {
  name: "from-core",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (a) => {
      if (a.kind === "entry-point" || !a.path.startsWith("/")) return undefined;
      const rel = relative(ROOT, a.path);
      return sharedByCommands.has(rel) ? { path: rel, namespace: "pisess-core" } : undefined;
    });
    b.onResolve({ filter: /^\.\/cli\.cjs$/ }, (a) => ({ path: a.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: "pisess-core" }, (a) => ({
      contents: `module.exports = require("./cli.cjs").__core[${JSON.stringify(a.path)}];`,
      loader: "js",
      resolveDir: OUT,
    }));
  },
};
const builds = await Promise.all([
  build({
    ...CJS,
    entryPoints: { cli: coreEntry },
    outdir: OUT,
    outExtension: { ".js": ".cjs" },
    plugins: [duckApiFile, splitCore, ...YARGS_PLUGINS],
  }),
  ...(PLAIN
    ? []
    : [
        build({
          ...CJS,
          entryPoints: { help: join(ROOT, "scripts", "yargs-help.mjs") },
          outdir: OUT,
          outExtension: { ".js": ".cjs" },
          plugins: [lazyYargs],
        }),
      ]),
  ...commands.map((command) =>
    build({
      ...CJS,
      entryPoints: [prebundled.get(command)],
      outfile: join(OUT, commandFile(command)),
      plugins: [duckApiFile, fromCore, ...YARGS_PLUGINS],
    }),
  ),
  // The worker threads (fleet commands, secrets) are ES modules, started by URL (src/reports/pool.ts) beside the commands.
  build({
    ...CJS,
    entryPoints: { "duckdb-api": join(ROOT, "node_modules", "@duckdb", "node-api", "lib", "index.js") },
    outdir: OUT,
    outExtension: { ".js": ".cjs" },
  }),
  build({
    ...COMMON,
    plugins: [duckApiFile],
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).filter(([name]) => name.endsWith("-worker"))),
    outdir: OUT,
    splitting: true,
    chunkNames: "chunk-[hash]",
    banner: SPLIT.banner,
    metafile: true,
  }),
]);
if (builds.some((r) => r.errors.length > 0)) process.exit(1);
rmSync(PRE, { recursive: true, force: true });
// Which source files went into which output file (through the stage-1 modules): the lazy-loading test reads it.
const stage1Inputs = new Map();
for (const m of stage1) for (const [out, o] of Object.entries(m.outputs)) stage1Inputs.set(out, o.inputs);
const outputs = {};
for (const r of builds)
  for (const [name, o] of Object.entries(r.metafile.outputs)) {
    const expanded = {};
    for (const [input, v] of Object.entries(o.inputs)) Object.assign(expanded, stage1Inputs.get(input) ?? { [input]: v });
    outputs[name] = { ...o, inputs: expanded };
  }
writeFileSync(join(OUT, "meta.json"), JSON.stringify({ outputs }));

// V8 code caches (bin/pisess.js reads them): each file is stamped with a hash of its contents on its last line, then
// run once the way a typical run uses it, with no cache, in a process of its own; the bytecode V8 made for what ran
// is written beside the file, after the same stamp, so that a cache is only ever used with the file it was made
// from. A file without a cache (a command not in this list, or one whose cache V8 turns down: another Node, other
// V8 flags) is compiled as Node compiles any script. The sample is a generated session from the test corpus.
for (const name of readdirSync(OUT).filter((f) => f.endsWith(".cjs"))) {
  const file = join(OUT, name);
  const body = readFileSync(file);
  // bin/pisess.js reads these files as latin1, which is UTF-8 only for ASCII (esbuild's charset: non-ASCII escaped).
  if (!isAscii(body))
    throw new Error(`build-cli: ${name} holds a non-ASCII byte at ${body.findIndex((b) => b >= 0x80)} (bin/pisess.js reads it as latin1)`);
  writeFileSync(file, Buffer.concat([body, Buffer.from(`// pisess build ${createHash("sha256").update(body).digest("hex")}\n`)]));
}
const SAMPLE = join(ROOT, "fixtures", "corpus", "gen-v3-branchy.jsonl");
const CACHE_RUNS = [
  [
    ["tree", SAMPLE, "--json"],
    ["cli.cjs", "tree.cjs"],
  ],
  [["context", SAMPLE, "--json"], ["context.cjs"]],
  [["path", SAMPLE, "--ndjson"], ["path.cjs"]],
  [["info", SAMPLE, "--json"], ["info.cjs"]],
  [["leaves", SAMPLE, "--json"], ["leaves.cjs"]],
  [["labels", SAMPLE, "--json"], ["labels.cjs"]],
  [["bloat", SAMPLE, "--json"], ["bloat.cjs"]],
  [["compactions", SAMPLE, "--json"], ["compactions.cjs"]],
  [["budget", SAMPLE, "--json", "--keep-recent", "20000"], ["budget.cjs"]],
  [["validate", SAMPLE, "--format", "json"], ["validate.cjs"]],
  [["secrets", SAMPLE, "--format", "json"], ["secrets.cjs"]],
  [["tree", "--help"], ["help.cjs"]],
];
// The fleet commands that answer from an index, when DuckDB (an optional dependency) is installed: each builds an
// index of a folder of the fleet fixture (a parent and its forks, no damage to warn of) in a folder of its own,
// removed after. usage through the index of 10,000 sessions after 20 grew and 10 were added: 499 -> 476 and
// 508 -> 483 ms; sql group-by 294 -> 275 ms (hyperfine, 30-40 runs, both orders).
const FLEET = join(ROOT, "fixtures", "fleet", "sessions", "--home-dev-proj-a--");
const DB_DIR = mkdtempSync(join(tmpdir(), "pisess-build-cache-"));
// --plain-yargs: the sample run of tree alone (what the bench times through it).
if (PLAIN) CACHE_RUNS.splice(1);
else if (existsSync(join(ROOT, "node_modules", "@duckdb", "node-api")))
  CACHE_RUNS.push(
    [
      ["usage", FLEET, "--db", join(DB_DIR, "usage.duckdb"), "--by", "day,model", "--json"],
      ["usage.cjs", "duckdb-api.cjs"],
    ],
    [["sql", "SELECT count(*) AS n FROM usage", FLEET, "--db", join(DB_DIR, "sql.duckdb"), "--csv"], ["sql.cjs"]],
    [["index", FLEET, "--db", join(DB_DIR, "index.duckdb")], ["fleet-index.cjs"]],
  );
const produce = `const { writeFileSync } = require("node:fs");
const [bin, out, args, keep] = process.argv.slice(1);
const loader = require(bin).bundleLoader(true, out);
// On exit: yargs ends the process itself after help.
process.on("exit", () => {
  for (const [name, data] of loader.caches()) if (JSON.parse(keep).includes(name)) writeFileSync(out + "/" + name + ".cache", data);
});
const cli = loader.load("cli.cjs");
cli.useFileStdout();
cli.main(JSON.parse(args)).then((code) => { process.exitCode = code; });`;
await Promise.all(
  CACHE_RUNS.map(
    ([args, keep]) =>
      new Promise((done, fail) => {
        const env = { ...process.env, LANG: "en_US.UTF-8", NO_COLOR: "1" };
        // V8 takes a cache only under the flags it was made with: make them for a plain `node` (no NODE_OPTIONS).
        delete env.NODE_OPTIONS;
        const child = spawn(
          process.execPath,
          ["-e", produce, join(ROOT, "bin", "pisess.js"), OUT, JSON.stringify(args), JSON.stringify(keep)],
          {
            env,
            stdio: ["ignore", "ignore", "inherit"],
          },
        );
        child.on("error", fail);
        child.on("exit", (code) =>
          code === 0 || code === 1 ? done() : fail(new Error(`build-cli: pisess ${args.join(" ")} (for its code cache) exited ${code}`)),
        );
      }),
  ),
);
rmSync(DB_DIR, { recursive: true, force: true });
for (const [, keep] of CACHE_RUNS)
  for (const name of keep) if (!existsSync(join(OUT, `${name}.cache`))) throw new Error(`build-cli: no code cache for ${name}`);

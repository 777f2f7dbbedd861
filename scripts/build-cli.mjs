#!/usr/bin/env node
// Bundles the CLI (src/cli.ts and everything it imports) into dist/bundle/: one ESM entry, cli.js, plus chunks that
// load on demand (each command, and heavy pieces such as the table renderer, ajv or help layout), so a run opens a
// few files instead of hundreds. bin/pisess.js loads dist/bundle/cli.js; the library entry (dist/index.js) stays
// tsc's unbundled output.
//
// dist/bundle/ sits one level below the package root like src/ and dist/, so paths the code resolves against
// import.meta.url (../../package.json, ../../schemas/, ../../dist/web/) hold for the bundle as well.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnSync } from "node:child_process";
import { build } from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist", "bundle");
const YARGS = join(ROOT, "node_modules", "yargs");
const HELP_LAYOUT = [join(ROOT, "scripts", "yargs-shim.mjs"), join(ROOT, "node_modules", "cliui"), join(ROOT, "node_modules", "wrap-ansi")];
const WIDTH_SOURCE = readFileSync(join(ROOT, "scripts", "yargs-width.mjs"), "utf8");

/** yargs with a platform shim that loads cliui and string-width only for help (scripts/yargs-shim.mjs). */
const lazyYargs = {
  name: "lazy-yargs",
  setup(b) {
    b.onResolve({ filter: /platform-shims\/esm\.mjs$/ }, () => ({ path: join(ROOT, "scripts", "yargs-shim.mjs") }));
    // yargs's internals are not in its package exports; the shim needs one of them.
    b.onResolve({ filter: /^yargs\/build\// }, (a) => ({ path: join(YARGS, a.path.slice("yargs/".length)) }));
    // Every string-width the help layout imports measures printable ASCII itself (scripts/yargs-width.mjs).
    b.onResolve({ filter: /^string-width$/ }, async (a) => {
      if (a.pluginData === "real" || !HELP_LAYOUT.some((dir) => a.importer.startsWith(dir))) return undefined;
      const real = await b.resolve("string-width", { resolveDir: a.resolveDir, kind: a.kind, pluginData: "real" });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: "ascii-width" };
    });
    b.onLoad({ filter: /.*/, namespace: "ascii-width" }, (a) => ({
      contents: WIDTH_SOURCE.replace("__REAL_STRING_WIDTH__", JSON.stringify(a.path)),
      resolveDir: join(ROOT, "scripts"),
      loader: "js",
    }));
    b.onResolve({ filter: /^yargs$/ }, (a) =>
      a.importer.startsWith(join(ROOT, "src")) ? { path: join(ROOT, "scripts", "yargs-entry.mjs") } : undefined,
    );
  },
};

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  // The fleet commands' worker threads load these by name from beside the code that starts them (src/reports/pool.ts).
  entryPoints: {
    cli: join(ROOT, "src", "cli.ts"),
    "usage-worker": join(ROOT, "src", "reports", "usage-worker.ts"),
    "tables-worker": join(ROOT, "src", "reports", "tables-worker.ts"),
  },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Optional and native: resolved at run time, when `pisess sql` asks for it.
  external: ["@duckdb/node-api"],
  chunkNames: "chunk-[hash]",
  // Some dependencies (cli-table3, ajv) are CommonJS; they need a require() inside the ESM bundle.
  banner: { js: 'import { createRequire as __pisessRequire } from "node:module"; const require = __pisessRequire(import.meta.url);' },
  plugins: [lazyYargs],
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});
if (result.errors.length > 0) process.exit(1);
// Which source files went into which output file: the lazy-loading test reads it.
writeFileSync(join(OUT, "meta.json"), JSON.stringify(result.metafile));

// What bin/pisess.js answers without loading the bundle: the version, and the top-level help at the two widths a
// run of `pisess --help` most often has (100 columns: not a terminal; 110: a terminal at least that wide), as this
// bundle's yargs lays it out in English. bin/pisess.js falls back to the bundle for anything else;
// test/quick-start.test.ts holds the texts equal to what yargs prints.
const cliUrl = pathToFileURL(join(OUT, "cli.js")).href;
function yargsHelp(columns) {
  const script = `Object.defineProperty(process.stdout, "columns", { value: ${columns}, configurable: true });
const { main } = await import(${JSON.stringify(cliUrl)});
process.exitCode = await main(["--help"]);`;
  const env = { ...process.env, LANG: "en_US.UTF-8" };
  for (const k of ["LC_ALL", "LC_MESSAGES", "LANGUAGE"]) delete env[k];
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env });
  if (r.status !== 0 || r.stdout === "") throw new Error(`build-cli: pisess --help failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
writeFileSync(join(OUT, "start.json"), JSON.stringify({ version: pkg.version, help: { 100: yargsHelp(100), 110: yargsHelp(110) } }));

#!/usr/bin/env node
// Builds what a run and the tests use: tsc's library output (dist/), the HTML page script (build-web.mjs) and the CLI
// bundle (build-cli.mjs). The three read only src/ (and node_modules), so they run at once (which saves little:
// build-cli's code-cache runs are most of the time). The schema validators are generated first, into src/, which all
// three read.
//
//   --quick       tsc emits without type-checking (npm test type-checks src and test with tsconfig.test.json)
//   --if-changed  does nothing when dist/.build-stamp names the same inputs as now: `npm ci` has just built (its
//                 `prepare`), so `npm test` after it, or twice in a row, does not build the same bytes again
//
// The stamp is a hash of every file the build reads from this package (src/, schemas/, scripts/, package.json,
// package-lock.json, tsconfig.json), of the Node version (the code caches are V8's), and of the options that change
// the output; written only after every step succeeded, and removed before a build starts.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const STAMP = join(ROOT, "dist", ".build-stamp");
const args = new Set(process.argv.slice(2));
const quick = args.has("--quick");

function filesUnder(dir) {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(ROOT.length + 1));
}

function inputsHash() {
  const hash = createHash("sha256").update(`${process.version}\n`);
  const files = [
    ...filesUnder("src"),
    ...filesUnder("schemas"),
    ...filesUnder("scripts"),
    "package.json",
    "package-lock.json",
    "tsconfig.json",
  ];
  for (const f of files.sort()) hash.update(`${f}\n`).update(readFileSync(join(ROOT, f)));
  return hash.digest("hex");
}

// What the tests and `pisess` load: if one is missing, the stamp alone does not say the build is there.
const OUTPUTS = ["dist/index.js", "dist/index.d.ts", "dist/web/export-app.bundle.js", "dist/bundle/cli.cjs", "dist/bundle/cli.cjs.cache"];

function run(command, argv) {
  return new Promise((done, fail) => {
    const child = spawn(command, argv, { cwd: ROOT, stdio: "inherit" });
    child.on("error", fail);
    child.on("exit", (code, signal) =>
      code === 0 ? done() : fail(new Error(`build: ${[command, ...argv].join(" ")} failed (${signal ?? code})`)),
    );
  });
}

const node = process.execPath;
const tsc = join(ROOT, "node_modules", ".bin", "tsc");
const hash = inputsHash();
if (args.has("--if-changed") && existsSync(STAMP)) {
  const [builtHash, kind] = readFileSync(STAMP, "utf8").trim().split(" ");
  // A checked build serves a quick one; not the other way round.
  if (builtHash === hash && (quick || kind === "checked") && OUTPUTS.every((f) => existsSync(join(ROOT, f)))) {
    process.stderr.write("build: dist/ is up to date (dist/.build-stamp)\n");
    process.exit(0);
  }
}
rmSync(STAMP, { force: true });
try {
  if (!quick) await run(node, ["scripts/gen-validators.mjs"]);
  const tscArgs = quick
    ? ["-p", "tsconfig.json", "--noCheck", "--incremental", "--tsBuildInfoFile", "dist/.tsbuildinfo"]
    : ["-p", "tsconfig.json"];
  await Promise.all([run(tsc, tscArgs), run(node, ["scripts/build-web.mjs"]), run(node, ["scripts/build-cli.mjs"])]);
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
// gen-validators may have rewritten a file under src/: the stamp names what was built from.
writeFileSync(STAMP, quick ? `${hash} quick\n` : `${inputsHash()} checked\n`);

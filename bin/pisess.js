#!/usr/bin/env node
// Thin shim: all logic lives in dist/bundle/ (the bundled CLI, built by `npm run build`, run by `npm ci` through
// `prepare`). A closed stdout (EPIPE) is handled there, where the exit status the run had reached is known.
//
// CommonJS (bin/package.json), like the bundle: a run never starts Node's ES module loader, and each bundle file is
// compiled with the V8 code cache the build left beside it (scripts/build-cli.mjs), so V8 neither parses the code
// a run needs nor compiles its functions one by one as they are first called. Start-up is most of a typical run.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const BUNDLE = path.join(__dirname, "..", "dist", "bundle");

/**
 * `pisess --version` and `pisess --help` alone, answered from dist/bundle/start.json (written by
 * scripts/build-cli.mjs with what the bundle's yargs prints) without loading the bundle: start-up is most of their
 * time. Undefined where that file has no answer (help at another width, or in a language other than English).
 */
function quickAnswer(args) {
  if (args.length !== 1 || !["--version", "-v", "--help", "-h"].includes(args[0])) return undefined;
  let start;
  try {
    start = JSON.parse(fs.readFileSync(path.join(BUNDLE, "start.json"), "utf8"));
  } catch {
    return undefined;
  }
  if (args[0] === "--version" || args[0] === "-v") return typeof start.version === "string" ? `${start.version}\n` : undefined;
  // yargs's own choice of language (its guessLocale); help in English only.
  const env = process.env;
  const locale = (env.LC_ALL || env.LC_MESSAGES || env.LANG || env.LANGUAGE || "en_US").replace(/[.:].*/, "");
  if (!/^(en(_[A-Za-z]+)?|C|POSIX)$/.test(locale)) return undefined;
  // The width src/cli.ts gives yargs for help.
  const text = start.help?.[Math.min(110, process.stdout.columns || 100)];
  return typeof text === "string" ? text : undefined;
}

/** The last line of every bundle file, and the first of its code cache: `// pisess build <hash of the file>`. */
const STAMP = /\/\/ pisess build [0-9a-f]+\n$/;

/**
 * Loads dist/bundle/<name>.cjs files as Node's require would (one instance each; "./<name>.cjs" between them),
 * compiled with the code cache in <name>.cjs.cache where one was built for that very file. V8 itself turns down a
 * cache made by another version or with other flags (the file is then compiled as without one). `fresh`: read no
 * cache (the build makes them this way).
 */
function bundleLoader(fresh = false) {
  const vm = require("node:vm");
  const { createRequire } = require("node:module");
  const loaded = new Map();
  const load = (name) => {
    const have = loaded.get(name);
    if (have !== undefined) return have.module.exports;
    const file = path.join(BUNDLE, name);
    // Through the fs object, so a test's preload (test/load-trace.mjs) sees which files a run loads.
    const source = fs.readFileSync(file, "utf8");
    let cachedData;
    // The stamp is on the last line: looked for there, not through the whole file.
    const stamp = STAMP.exec(source.slice(-200))?.[0];
    if (!fresh && stamp !== undefined) {
      try {
        const cache = fs.readFileSync(`${file}.cache`);
        if (cache.toString("latin1", 0, stamp.length) === stamp) cachedData = cache.subarray(stamp.length);
      } catch {}
    }
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      cachedData,
    });
    const module = { exports: {}, id: file, filename: file };
    loaded.set(name, { module, script, stamp, cached: cachedData !== undefined && !script.cachedDataRejected });
    const own = createRequire(file);
    const req = (id) => (id.startsWith("./") && id.endsWith(".cjs") ? load(id.slice(2)) : own(id));
    // `this` at a CommonJS module's top level is its exports, as under Node's require.
    script.runInThisContext().call(module.exports, module.exports, req, module, file, BUNDLE);
    return module.exports;
  };
  /** The code cache of each file loaded so far (its stamp first), for the build. */
  const caches = () =>
    [...loaded]
      .filter(([, f]) => f.stamp !== undefined)
      .map(([name, f]) => [name, Buffer.concat([Buffer.from(f.stamp, "latin1"), f.script.createCachedData()])]);
  /** The files compiled from their code cache (for the tests). */
  const cached = () => [...loaded].filter(([, f]) => f.cached).map(([name]) => name);
  return { load, caches, cached };
}

if (require.main === module) {
  const quick = quickAnswer(process.argv.slice(2));
  if (quick !== undefined) {
    // A reader that leaves (`| head`) is no failure, as in the bundle; any other failed write (a full disk) is one
    // line and exit 2, as there (src/cli.ts).
    process.stdout.on("error", (err) => {
      if (err.code === "EPIPE") process.exit(0);
      const reason = err.code === "ENOSPC" ? "no space left on device" : err.message;
      process.stderr.write(`pisess: cannot write the output: ${reason}\n`);
      process.exit(2);
    });
    process.stdout.write(quick);
  } else {
    const cli = bundleLoader().load("cli.cjs");
    // Output to a file or /dev/null written without Node's stream for it (src/io/file-stdout.ts).
    cli.useFileStdout();
    cli.main().then((code) => {
      process.exitCode = code;
    });
  }
} else module.exports = { bundleLoader };

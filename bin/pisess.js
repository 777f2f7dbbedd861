#!/usr/bin/env node
// Thin shim: all logic lives in dist/bundle/ (the bundled CLI, built by `npm run build`, run by `npm ci` through
// `prepare`). A closed stdout (EPIPE) is handled there, where the exit status the run had reached is known.
//
// CommonJS (bin/package.json), like the bundle: a run never starts Node's ES module loader, and each bundle file is
// compiled with the V8 code cache the build left beside it (scripts/build-cli.mjs), so V8 neither parses the code
// a run needs nor compiles its functions one by one as they are first called. Start-up is most of a typical run;
// the one start-up trick kept here, because it pays (bench/RESULTS.md, "Start-up tricks").
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const BUNDLE = path.join(__dirname, "..", "dist", "bundle");

/** The last line of every bundle file, and the first of its code cache: `// pisess build <hash of the file>`. */
const STAMP = /\/\/ pisess build [0-9a-f]+\n$/;

/**
 * Loads dist/bundle/<name>.cjs files as Node's require would (one instance each; "./<name>.cjs" between them),
 * compiled with the code cache in <name>.cjs.cache where one was built for that very file. V8 itself turns down a
 * cache made by another version or with other flags (the file is then compiled as without one). `fresh`: read no
 * cache (the build makes them this way). `dir`: another build's folder (the bench's variant of the CLI,
 * bench/plain-yargs.cjs).
 */
function bundleLoader(fresh = false, dir = BUNDLE) {
  const vm = require("node:vm");
  const { createRequire } = require("node:module");
  const loaded = new Map();
  const load = (name) => {
    const have = loaded.get(name);
    if (have !== undefined) return have.module.exports;
    const file = path.join(dir, name);
    // Through the fs object, so a test's preload (test/load-trace.mjs) sees which files a run loads. As latin1: the
    // build writes only ASCII (scripts/build-cli.mjs checks), which latin1 reads as UTF-8 would, without decoding it.
    const source = fs.readFileSync(file, "latin1");
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
    script.runInThisContext().call(module.exports, module.exports, req, module, file, dir);
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
  const cli = bundleLoader().load("cli.cjs");
  // Output to a file or /dev/null written without Node's stream for it (src/io/file-stdout.ts).
  cli.useFileStdout();
  cli.main().then((code) => {
    process.exitCode = code;
  });
} else module.exports = { bundleLoader };

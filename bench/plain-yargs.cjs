#!/usr/bin/env node
// `pisess ARGS` as bin/pisess.js runs it (code caches and all), but from the build in DIR that scripts/build-cli.mjs
// makes with `--plain-yargs DIR`: the same CLI with the yargs trick undone (yargs bundled with its own platform shim,
// which loads cliui and string-width at start-up, and its help text built before each handler, skipHelpCache a
// no-op). The bench's row of what that trick saves. Issue 27: a start-up trick stays only where it saves at least
// 15% of the wall time of `pisess tree --json` on a 400 KB session.
//
//   node bench/plain-yargs.cjs DIR ARGS...
"use strict";
const path = require("node:path");
const { bundleLoader } = require(path.join(__dirname, "..", "bin", "pisess.js"));

const [dir, ...args] = process.argv.slice(2);
const cli = bundleLoader(false, path.resolve(dir)).load("cli.cjs");
cli.useFileStdout();
cli.main(args).then((code) => {
  process.exitCode = code;
});

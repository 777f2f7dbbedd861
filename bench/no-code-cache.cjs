#!/usr/bin/env node
// `pisess ARGS` exactly as bin/pisess.js runs it, but with the build's V8 code caches ignored (bundleLoader(true),
// as the build itself loads the bundle): the bench's row of what the caches save. Issue 27: a start-up trick stays
// only where it saves at least 15% of the wall time of `pisess tree --json` on a 400 KB session.
"use strict";
const path = require("node:path");
const { bundleLoader } = require(path.join(__dirname, "..", "bin", "pisess.js"));

const cli = bundleLoader(true).load("cli.cjs");
cli.useFileStdout();
cli.main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

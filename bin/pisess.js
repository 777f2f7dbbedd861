#!/usr/bin/env node
// Thin shim: all logic lives in dist/ (built by `npm run build`, run by `npm ci` through `prepare`). A closed
// stdout (EPIPE) is handled in dist/cli.js, which knows the exit status the run had reached.
const { main } = await import("../dist/cli.js");
process.exitCode = await main();

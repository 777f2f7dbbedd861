#!/usr/bin/env node
// Thin shim: all logic lives in dist/bundle/cli.js (the bundled CLI, built by `npm run build`, run by `npm ci`
// through `prepare`). A closed stdout (EPIPE) is handled there, where the exit status the run had reached is known.
const { main } = await import("../dist/bundle/cli.js");
process.exitCode = await main();

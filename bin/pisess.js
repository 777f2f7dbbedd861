#!/usr/bin/env node
// Thin shim: all logic lives in dist/ (built by `npm run build`, run by `npm ci` through `prepare`).
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});
const { main } = await import("../dist/cli.js");
process.exitCode = await main();

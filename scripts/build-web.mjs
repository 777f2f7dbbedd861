#!/usr/bin/env node
// Bundles the HTML export's page script (src/web/export-app.ts and the ops modules it imports, with marked) into one
// file that `pisess export --format html` inlines: dist/web/export-app.bundle.js.
import { build } from "esbuild";

const result = await build({
  entryPoints: [new URL("../src/web/export-app.ts", import.meta.url).pathname],
  outfile: new URL("../dist/web/export-app.bundle.js", import.meta.url).pathname,
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "eof",
  charset: "ascii",
  logLevel: "warning",
});
if (result.errors.length > 0) process.exit(1);

#!/usr/bin/env node
// Thin shim: all logic lives in dist/bundle/cli.js (the bundled CLI, built by `npm run build`, run by `npm ci`
// through `prepare`). A closed stdout (EPIPE) is handled there, where the exit status the run had reached is known.
import { readFileSync } from "node:fs";

/**
 * `pisess --version` and `pisess --help` alone, answered from dist/bundle/start.json (written by
 * scripts/build-cli.mjs with what the bundle's yargs prints) without loading the bundle: start-up is most of their
 * time. Undefined where that file has no answer (help at another width, or in a language other than English).
 */
function quickAnswer(args) {
  if (args.length !== 1 || !["--version", "-v", "--help", "-h"].includes(args[0])) return undefined;
  let start;
  try {
    start = JSON.parse(readFileSync(new URL("../dist/bundle/start.json", import.meta.url), "utf8"));
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

const quick = quickAnswer(process.argv.slice(2));
if (quick !== undefined) {
  // A reader that leaves (`| head`) is no failure, as in the bundle.
  process.stdout.on("error", (err) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
  process.stdout.write(quick);
} else {
  const { main } = await import("../dist/bundle/cli.js");
  process.exitCode = await main();
}

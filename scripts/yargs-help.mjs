// What yargs lays help text out with (cliui and string-width): one module of the bundled CLI
// (scripts/build-cli.mjs), loaded by scripts/yargs-shim.mjs before a run that shows help.
export { default as cliui } from "cliui";
export { default as stringWidth } from "string-width";

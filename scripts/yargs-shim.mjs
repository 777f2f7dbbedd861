// The bundled CLI's stand-in for yargs's own ESM platform shim (node_modules/yargs/lib/platform-shims/esm.mjs),
// swapped in by scripts/build-cli.mjs. It differs in one way: cliui and string-width (with their Unicode tables and
// the Intl.Segmenter each of their three copies makes when loaded) are not loaded at start-up. yargs needs them only
// to lay out help text, so the CLI loads them (loadHelp) before a run that shows help; every other run never pays
// for them. One of the start-up tricks kept because it pays (bench/RESULTS.md, "Start-up tricks").
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import escalade from "escalade/sync";
import getCallerFile from "get-caller-file";
import y18n from "y18n";
import Parser from "yargs-parser";
import { getProcessArgvBin } from "yargs/build/lib/utils/process-argv.js";

const require = createRequire(import.meta.url);
/**
 * The folder of package `name` as Node's lookup finds it from this file: in node_modules here or in a folder above
 * (require.resolve only where none holds it). require.resolve's package-exports resolution loaded four modules of
 * Node's ES module loader in every run (2 ms).
 */
function packageDir(name) {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return dirname(require.resolve(`${name}/package.json`));
  }
}

// yargs's messages come from its locales/ folder, wherever npm put the yargs package (its own shim finds them from
// its own file, which the bundle no longer has).
const yargsDir = packageDir("yargs");

let help = null;

/** Loads what help text needs (a separate chunk of the bundle). */
export async function loadHelp() {
  if (help) return;
  const layout = await import("./yargs-help.mjs");
  help = { cliui: layout.cliui, stringWidth: layout.stringWidth };
}

function needHelp() {
  if (!help) throw new Error("internal: yargs laid out help text without loadHelp() (scripts/yargs-shim.mjs)");
  return help;
}

/**
 * yargs's two assertions, with node:assert loaded only for one that fails (both compare as Object.is, as node:assert's
 * do, which then throws its own error): loading it made Node's stream for process.stderr (its colours look at it), in
 * every run, for checks that pass.
 */
const assert = {
  notStrictEqual(actual, expected, message) {
    if (Object.is(actual, expected)) require("node:assert").notStrictEqual(actual, expected, message);
  },
  strictEqual(actual, expected, message) {
    if (!Object.is(actual, expected)) require("node:assert").strictEqual(actual, expected, message);
  },
};

export default {
  assert,
  cliui: (opts) => needHelp().cliui(opts),
  findUp: escalade,
  getEnv: (key) => process.env[key],
  inspect,
  getProcessArgvBin,
  // A file in the package's folder, as yargs's own shim gives (require.main's file): yargs looks for package.json
  // from the folder of this path, and takes it for a file when path.extname finds an extension. The folder itself
  // would do only while its name holds no dot (mktemp's tmp.XXXX does): yargs then looked from the folder above, found
  // no package.json, and loaded node:assert (and with it process.stderr) to report it to itself.
  mainFilename: join(yargsDir.substring(0, yargsDir.lastIndexOf("node_modules")) || process.cwd(), "package.json"),
  Parser,
  path: { basename, dirname, extname, relative, resolve, join },
  process: {
    argv: () => process.argv,
    cwd: process.cwd,
    emitWarning: (warning, type) => process.emitWarning(warning, type),
    execPath: () => process.execPath,
    exit: (code) => {
      process.exit(code);
    },
    nextTick: process.nextTick,
    // A getter: reading process.stdout makes Node's stream for it (its stream modules: ~10M instructions), which a
    // run that never shows help or asks the width never needs (src/commands/run-state.ts writes files without it).
    get stdColumns() {
      return typeof process.stdout.columns !== "undefined" ? process.stdout.columns : null;
    },
  },
  readFileSync,
  readdirSync,
  require,
  getCallerFile: () => {
    const callerFile = getCallerFile(3);
    return callerFile.match(/^file:\/\//) ? fileURLToPath(callerFile) : callerFile;
  },
  stringWidth: (s) => needHelp().stringWidth(s),
  y18n: y18n({ directory: join(yargsDir, "locales"), updateFiles: false }),
};

// The bundled CLI's stand-in for yargs's own ESM platform shim (node_modules/yargs/lib/platform-shims/esm.mjs),
// swapped in by scripts/build-cli.mjs. It differs in one way: cliui and string-width (with their Unicode tables)
// are not loaded at start-up. yargs needs them only to lay out help text, so the CLI loads them (loadHelp) before
// a run that shows help; every other run never pays for them.
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
// yargs's messages come from its locales/ folder, wherever npm put the yargs package. Where Node's lookup from
// dist/bundle/ finds it first (pisess's own node_modules, as in this repository), one stat finds it too:
// require.resolve's walk through yargs's package exports cost about 2.5 ms of every run. Elsewhere (hoisted), resolve.
const nearYargs = fileURLToPath(new URL("../../node_modules/yargs", import.meta.url));
const yargsDir = existsSync(join(nearYargs, "package.json")) ? nearYargs : dirname(require.resolve("yargs/package.json"));

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

export default {
  // node:assert costs a few ms to load (it sets up stderr colours); yargs calls it on every run to check its own
  // state, and those checks pass. The comparison is assert's own (Object.is); assert is loaded to throw its error.
  assert: {
    notStrictEqual: (actual, expected, message) => {
      if (Object.is(actual, expected)) require("node:assert").notStrictEqual(actual, expected, message);
    },
    strictEqual: (actual, expected, message) => {
      if (!Object.is(actual, expected)) require("node:assert").strictEqual(actual, expected, message);
    },
  },
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

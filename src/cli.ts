import { format } from "node:util";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import {
  CliError,
  colorOption,
  exitStatusSoFar,
  OutputClosed,
  ownsProcess,
  runIo,
  STDIN_ARG,
  takeExitStatus,
} from "./commands/run-state.js";
import { commandLoaders, loadCommands } from "./commands/index.js";
import { ioReason } from "./io/errors.js";
import { packageVersion } from "./io/package.js";
import { terminalText } from "./render/sanitize.js";

/** An error's line on stderr: its message may quote a file name, a reference or session text, shown, never sent. */
function writeErrLine(text: string): void {
  runIo().stderr.write(`${terminalText(text)}\n`);
}

// The seam a caller runs main() through with its own streams, env and working directory (the tests' CLI server,
// test/support/cli-server.mjs, runs the bundle this way): exported from the entry so that it is the bundle's one instance.
export { withRunIo } from "./commands/run-state.js";
// For bin/pisess.js only (see there).
export { useFileStdout } from "./commands/run-state.js";

/** Puts "-" back wherever cli.ts swapped it for the marker (option values, positionals, arrays of either). */
function unmarkStdin(argv: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(argv)) {
    if (v === STDIN_ARG) argv[k] = "-";
    else if (Array.isArray(v) && v.includes(STDIN_ARG)) argv[k] = v.map((x) => (x === STDIN_ARG ? "-" : x));
  }
}

let watchingStdout = false;
let failureSaid = false;

/**
 * A write to stdout that failed other than by its reader leaving (a full disk: `> /dev/full`, an I/O error): the
 * output is incomplete, so the run fails (exit 2) with one line, said once however many writes failed.
 */
function outputFailed(err: NodeJS.ErrnoException): number {
  if (!failureSaid) runIo().stderr.write(`pisess: cannot write the output: ${ioReason(err)}\n`);
  failureSaid = true;
  return 2;
}

/** The error a write to stdout failed with, other than EPIPE (a reader that left), if one did. */
function writeFailure(): NodeJS.ErrnoException | undefined {
  const err = runIo().stdout.errored as NodeJS.ErrnoException | null | undefined;
  return err && err.code !== "EPIPE" ? err : undefined;
}

/**
 * A reader that leaves (`| head`) makes the next write fail with EPIPE. Stop at once, with the exit status the run
 * had requested so far (1 once a finding or difference was known), instead of computing output nobody reads. Any
 * other write error ends the run as outputFailed says.
 */
function stopWhenStdoutCloses(): void {
  // A run in process (withRunIo) writes to its own stream and must not end the process.
  if (watchingStdout || !ownsProcess()) return;
  watchingStdout = true;
  runIo().stdout.on("error", (err: NodeJS.ErrnoException) => {
    process.exit(err.code === "EPIPE" ? exitStatusSoFar() : outputFailed(err));
  });
}

/**
 * yargs prints help, the version and the completion script with console.log and console.error: sent through the
 * run's own streams, so that a failed write is seen (Node's console drops write errors) and a run with stdout a
 * file writes it as every other output does. Returns the function that puts the console back.
 */
function consoleThroughRunIo(): () => void {
  const { log, error } = console;
  console.log = (...a: unknown[]) => void runIo().stdout.write(`${format(...a)}\n`);
  console.error = (...a: unknown[]) => void runIo().stderr.write(`${format(...a)}\n`);
  return () => {
    console.log = log;
    console.error = error;
  };
}

interface YargsInternals {
  getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } };
}

/**
 * yargs builds the whole help text before running a command's handler, to show it should the handler fail. This
 * CLI never shows help for a failure (`.fail` turns every failure into one line), so a run that does not ask for
 * help skips that work, and with it the loading of yargs's help layout (scripts/yargs-shim.mjs). Together they are
 * one of the start-up tricks kept because they pay (bench/RESULTS.md, "Start-up tricks").
 */
function skipHelpCache(parser: unknown): void {
  const usage = (parser as YargsInternals).getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === "function") usage.cacheHelpMessage = () => {};
}

/** What `pisess` alone says: one line, the commands to choose from, and where each is described. */
const NO_COMMAND = `no command given; one of: ${commandLoaders.map(([c]) => c.split(" ")[0]).join(", ")} (pisess --help describes each)`;

/** Runs the CLI; resolves with the exit code, the one place it is decided: commands request theirs (requestExit). */
export async function main(argv: string[] = hideBin(process.argv)): Promise<number> {
  stopWhenStdoutCloses();
  const debug = argv.includes("--debug");
  const dashAt = argv.indexOf("--");
  argv = argv.map((a, i) => (a === "-" && (dashAt === -1 || i < dashAt) ? STDIN_ARG : a));
  // yargs's completion command prints the script even for --help; a user asking for help gets help.
  if (argv[0] === "completion" && (argv.includes("--help") || argv.includes("-h"))) {
    runIo().stdout.write(
      "pisess completion\n\nPrints a shell completion script (bash/zsh). Install it with:\n  pisess completion >> ~/.bashrc   (or ~/.zshrc)\n",
    );
    return 0;
  }
  const commands = await loadCommands(argv);
  const showsHelp = argv.includes("--help") || argv.includes("-h");
  // The bundled CLI's yargs loads its help layout (cliui, string-width) on demand (scripts/yargs-shim.mjs): before a
  // run that may show help. Runs of one command never do (`.fail` below never prints help), nor does --version.
  if (showsHelp || commands.length > 1) await (yargs as typeof yargs & { loadHelp?: () => Promise<void> }).loadHelp?.();
  let parser = yargs(argv)
    .scriptName("pisess")
    .usage("$0 <command> [options]\n\nRead-only forensics for pi coding agent session files.")
    .option("color", colorOption)
    .option("debug", { describe: "Print stack traces for errors", type: "boolean", default: false })
    // Back from the marker: every command sees "-" as the user typed it; only documented file operands read stdin.
    .middleware(unmarkStdin, true)
    .command(commands)
    .demandCommand(1, NO_COMMAND)
    .strict();
  // What only help, a mistyped command or completion reads; a run of one named command, without --help, never
  // does (`.fail` below prints one line, never help): yargs's calls cost even when their output is never made.
  if (showsHelp || commands.length !== 1)
    parser = parser
      .recommendCommands()
      .completion("completion", "Print a shell completion script (bash/zsh): pisess completion >> ~/.bashrc")
      .example("$0 tree session.jsonl", "the session tree, active path marked")
      .example("$0 path session.jsonl --leaf @120 --ndjson | jq .entry.type", "entry types on the path to line 120")
      .epilogue(
        "Entry references: a full id, a unique id prefix, @LINE, label:NAME, or leaf.\nExit codes: 0 ok, 1 findings or differences, 2 usage or I/O errors.",
      );
  parser = parser
    .version(packageVersion())
    .help()
    // yargs would end the process after --help or --version, before a failed write of the text could be seen; main's
    // caller ends it (and a run in process, withRunIo, must not end it at all).
    .exitProcess(false)
    .alias("h", "help")
    .alias("v", "version")
    // yargs renders (and caches) the help text on every run; wrapping it costs ~15 ms, so only wrap when it shows.
    .wrap(showsHelp ? Math.min(110, runIo().stdout.columns || 100) : null)
    .fail((msg, err) => {
      // Throwing stops yargs from running the handler after a usage error.
      // yargs's own usage errors (a missing option value: YError) are usage errors too, not failures.
      if (err && err.name !== "YError") throw err;
      // One line that already points to the help needs no second line saying so again.
      const text = msg ?? err?.message;
      throw new CliError(text === NO_COMMAND ? text : `${text}\nRun pisess --help for usage.`, 2);
    });
  if (!showsHelp) skipHelpCache(parser);
  takeExitStatus();
  const restoreConsole = consoleThroughRunIo();
  try {
    await parser.parseAsync();
  } catch (err) {
    const failed = writeFailure();
    if (failed !== undefined) return outputFailed(failed);
    if (err instanceof CliError) {
      writeErrLine(`pisess: ${err.message}`);
      if (debug && err.stack) writeErrLine(err.stack);
      return err.exitCode;
    }
    const e = err as NodeJS.ErrnoException;
    if (err instanceof OutputClosed || e?.code === "EPIPE") return takeExitStatus();
    writeErrLine(`pisess: ${e instanceof Error ? e.message : String(e)}`);
    if (debug && e instanceof Error && e.stack) writeErrLine(e.stack);
    else writeErrLine("pisess: (run with --debug for details)");
    return 2;
  } finally {
    restoreConsole();
  }
  const failed = writeFailure();
  return failed !== undefined ? outputFailed(failed) : takeExitStatus();
}

import type { Options } from "yargs";

// What cli.ts needs on every run, apart from the heavier plumbing in common.ts (loading sessions, renderers): a run
// that only prints its version or help loads this file and no command code.

export { ReportError as CliError } from "../reports/report.js";

export const colorOption: Options = {
  describe: "Colour: auto (TTY and no NO_COLOR), always, never",
  choices: ["auto", "always", "never"],
  default: "auto",
  type: "string",
};

/**
 * yargs turns a lone "-" into an empty string (and may hand it to two arguments at once); cli.ts swaps "-" for this
 * marker before parsing and a middleware swaps it back, so no command ever sees the marker. "-" means stdin only
 * for the file operands whose help says so (`isStdin`); anywhere else it is an ordinary value.
 */
export const STDIN_ARG = "\u0000stdin";

/**
 * Thrown once stdout's reader has gone (EPIPE, e.g. `| head`): the run stops there and ends with the exit status
 * requested so far (cli.ts), so a failing run stays failing however little of its output was read.
 */
export class OutputClosed extends Error {
  constructor() {
    super("stdout closed");
  }
}

let requestedExit = 0;

/** The exit status a command asks for; cli.ts reads it once, when the command is done, and sets the process's. */
export function requestExit(code: number): void {
  requestedExit = code;
}

/** The status requested so far, without taking it: what a run stopped by a closed stdout ends with. */
export function exitStatusSoFar(): number {
  return requestedExit;
}

export function takeExitStatus(): number {
  const code = requestedExit;
  requestedExit = 0;
  return code;
}

import type { Options } from "yargs";
import type { Readable } from "node:stream";
import { fileStdout } from "../io/file-stdout.js";

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

/**
 * Where a run reads and writes: stdin, stdout, stderr, the environment and the working directory. cli.ts and the
 * commands reach them only through `runIo()`, which is the process's own unless a caller runs main() with others
 * (`withRunIo`: the tests run the CLI in process that way, with output captured and env/cwd given). The reports
 * never see it: commands pass them env and cwd as arguments.
 */
export interface RunIo {
  readonly stdin: Readable;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: NodeJS.ProcessEnv;
  cwd(): string;
}

/** The binary's stdout where it is a file (useFileStdout); undefined: process.stdout. */
let fileOut: NodeJS.WriteStream | undefined;

/**
 * For the binary (bin/pisess.js), before main(): where stdout is a regular file or /dev/null, write it without
 * making Node's process.stdout (io/file-stdout.ts). Not for runs in process, whose tests stand in for a terminal by
 * changing process.stdout itself.
 */
export function useFileStdout(): void {
  fileOut = fileStdout();
}

// Getters: process.stdin opens the stream on first use, which a run that never reads it must not do.
const PROCESS_IO: RunIo = {
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return fileOut ?? process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  get env() {
    return process.env;
  },
  cwd: () => process.cwd(),
};

let io: RunIo = PROCESS_IO;

export function runIo(): RunIo {
  return io;
}

/** Whether this run is the process's own (the binary), rather than one run in process with its own streams. */
export function ownsProcess(): boolean {
  return io === PROCESS_IO;
}

/**
 * Runs `run` (main()) with `replacement` as its streams, env and working directory, one run at a time; the exit
 * status requested is cleared before and after, so nothing carries over to the next run.
 */
export async function withRunIo<T>(replacement: RunIo, run: () => Promise<T>): Promise<T> {
  if (io !== PROCESS_IO) throw new Error("withRunIo: a run is already in progress");
  io = replacement;
  requestedExit = 0;
  try {
    return await run();
  } finally {
    io = PROCESS_IO;
    requestedExit = 0;
  }
}

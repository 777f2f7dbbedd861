import type { Stats } from "node:fs";
import type { Argv } from "yargs";
import { loadSession, type LoadOptions } from "../model/load.js";
import type { Session } from "../model/session.js";
import type { Detail } from "../model/detail.js";
import { notReadFinding } from "../model/readable.js";
import { formatMessage, diagnosticLine } from "../render/diagnostics.js";
import { makeStyle, type Style } from "../render/style.js";
import { ReportError as CliError } from "../reports/report.js";
import { ioReason, NotRegularFile } from "../io/errors.js";
import { statOf } from "../io/fsp.js";
import { defaultIndexPath, indexExists } from "../io/index-file.js";
import { problemTally } from "../ops/problems.js";
import { readingProblemsLine } from "../render/problems.js";
import { type OutForm, sanitizeLine, TerminalFilter, terminalText } from "../render/sanitize.js";
import type { Diagnostic } from "../model/types.js";

/** An error meant for the user: printed as one line, exit code 2 unless said otherwise. No stack trace. */
export { ReportError as CliError } from "../reports/report.js";
export { requestExit } from "./run-state.js";
import { OutputClosed, ownsProcess, runIo, type RunIo } from "./run-state.js";
import { checkOutput, type OutputInput, OutputRefused, type OutputTarget, writeOutput } from "../io/output-file.js";
import { CHUNK_CHARS } from "../render/chunks.js";
export { ioReason } from "../io/errors.js";

/**
 * --allow-unreadable, one meaning on every command that scans folders (ls, grep, usage, tables, sql, validate): an
 * unreadable folder or file is reported on stderr as always, but does not make the exit status 2.
 */
export const ALLOW_UNREADABLE = {
  describe: "An unreadable folder or file (still reported on stderr) does not fail the run (by default it is exit 2)",
  type: "boolean",
} as const;

export interface GlobalArgs {
  color?: string;
  debug?: boolean;
}

/** Colour only for a TTY, never with NO_COLOR set (any non-empty value), unless forced with --color always. */
function useColor(args: GlobalArgs, stream: NodeJS.WriteStream = runIo().stdout): boolean {
  if (args.color === "always") return true;
  if (args.color === "never") return false;
  if (runIo().env.NO_COLOR !== undefined && runIo().env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

export function styleFor(args: GlobalArgs, stream: NodeJS.WriteStream = runIo().stdout): Style {
  const style = makeStyle(useColor(args, stream));
  if (style.enabled) palettes.set(stream, style.palette);
  return style;
}

/**
 * The colour sequences the output filter lets through, per stream: those of a Style made with colour on for it. A
 * stream no coloured Style was made for gets none, so with colour off every escape sequence is shown, never sent.
 */
const palettes = new WeakMap<object, ReadonlySet<string>>();

function filterFor(form: OutForm, stream: NodeJS.WriteStream): TerminalFilter {
  return new TerminalFilter(form, palettes.get(stream));
}

export function isStdin(file: string): boolean {
  return file === "-";
}

/** How an input argument is shown to the user. */
export function displayName(file: string): string {
  return isStdin(file) ? "-" : file;
}

/** The accepted range of a numeric option: a whole number from `min` (and up to `max`), `note` saying what a value means. */
export interface WholeRange {
  min: number;
  max?: number;
  note?: string;
}

/**
 * Spread into the declaration of every numeric option. yargs's number type reads a value with Number(): "" is 0,
 * "0x10" is 16, "1e2" is 100. Parsed as a string (the help still says [number]), the value is read here as decimal
 * digits only, with a sign and a fraction; anything else, and the option given twice, is NaN, which the option's
 * check (wholeNumbers, or its own) rejects with the range it takes.
 */
export const numberArg = { type: "number", string: true, requiresArg: true, coerce: decimalArg } as const;

function decimalArg(v: unknown): number {
  // A default arrives as the number it is.
  if (typeof v === "number") return v;
  return typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : Number.NaN;
}

/** `--x a --x b` → ["a", "b"]. */
function repeated(v: unknown): string[] {
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** `--x a,b --x c` → ["a", "b", "c"]. */
function commaSeparated(v: unknown): string[] {
  return repeated(v)
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Spread into an option that takes several values: one value each time it is given (repeat it for more). Not a
 * yargs array, which takes every word after it, the command's operands too (`usage --by leaf FILE`).
 */
export const repeatableArg = { type: "string", requiresArg: true, coerce: repeated } as const;

/** As repeatableArg, each value also split at commas: `--by day,model --by project`. */
export const listArg = { type: "string", requiresArg: true, coerce: commaSeparated } as const;

/**
 * The one "every project" flag, `-a/--all-projects`, in every command that falls back to the sessions dir: read the
 * folders of every project there, not only the current directory's. `what` says what that is for the command.
 */
export function allProjectsArg(what: string): { alias: "a"; describe: string; type: "boolean" } {
  return { alias: "a", describe: `Every project folder in the sessions dir: ${what}`, type: "boolean" };
}

/** A yargs check: --all-projects says where to look, so it goes without the folders or files `operand` names. */
/**
 * The operands of the fleet commands (tables, sql, usage, index): the folders or files to read, and -a for the whole
 * sessions dir (the default without them).
 */
export function fleetTargets<T>(y: Argv<T>): Argv<T> {
  return y
    .positional("targets", {
      describe: "Folders (searched recursively) or files; default: the whole sessions dir",
      type: "string",
      array: true,
    })
    .option("all-projects", allProjectsArg("what is read without targets (the default)"))
    .check(allProjectsAlone("targets")) as unknown as Argv<T>;
}

export function allProjectsAlone(operand: string): (argv: Record<string, unknown>) => true {
  return (argv) => {
    const given = argv[operand];
    if (argv["all-projects"] === true && Array.isArray(given) && given.length > 0)
      throw new CliError(`--all-projects takes no ${operand} (it reads every project folder in the sessions dir)`);
    return true;
  };
}

/**
 * A yargs check that every numeric option given is a whole number in its range: a value that is not (`abc`, `-5`,
 * `1.5`, given twice) stops the run with exit 2 and one line naming the option and the range, never passes silently.
 * Keys are the options' long names.
 */
export function wholeNumbers(ranges: Record<string, WholeRange>): (argv: Record<string, unknown>) => true {
  return (argv) => {
    for (const [name, r] of Object.entries(ranges)) {
      const v = argv[name];
      if (v === undefined) continue;
      if (typeof v !== "number" || !Number.isInteger(v) || v < r.min || (r.max !== undefined && v > r.max)) {
        const range = r.max !== undefined ? `from ${r.min} to ${r.max}` : `≥ ${r.min}`;
        throw new CliError(`--${name} takes a whole number ${range}${r.note ? ` (${r.note})` : ""}`);
      }
    }
    return true;
  };
}

/** Throws the one-line error for a session pisess does not read (model/readable.ts; closing it); returns it otherwise. */
function refuseUnsupported<D extends Detail>(session: Session<D>): Session<D> {
  const d = notReadFinding(session);
  if (d === undefined) return session;
  session.store.close();
  throw new CliError(`${session.file}: ${formatMessage(d)}`);
}

/**
 * Opens a session file (read-only) or stdin ("-"), turning I/O failures into one-line errors, and files pisess
 * does not support into one-line errors too unless `unsupported: "read"` (validate, which reports them).
 */
export async function openInput<D extends Detail = "full">(
  file: string,
  opts: { progress?: boolean; detail?: D; onEntry?: LoadOptions<D>["onEntry"]; unsupported?: "refuse" | "read" } = {},
): Promise<Session<D>> {
  const session = await openSession(file, opts);
  outputSession(session);
  return opts.unsupported === "read" ? session : refuseUnsupported(session);
}

/**
 * What a run's output comes from, per run (a run in process has its own RunIo): sessions it holds open, files it
 * read through a report (opened again only if their findings are wanted), and the findings it reported.
 */
interface RunSources {
  sessions: Session[];
  files: Set<string>;
  reported: Set<string>;
}

const sources = new WeakMap<RunIo, RunSources>();

function runSources(): RunSources {
  let run = sources.get(runIo());
  if (run === undefined) {
    run = { sessions: [], files: new Set(), reported: new Set() };
    sources.set(runIo(), run);
  }
  return run;
}

/**
 * A session this run writes from (openInput says so for every session it opens; follow for the one it watches):
 * where the output filter wrote a lone surrogate as U+FFFD, its lone-surrogate findings go to stderr.
 */
export function outputSession(session: Session<Detail>): void {
  const run = runSources();
  if (!run.sessions.includes(session)) run.sessions.push(session);
}

/** A session file this run writes from that a report read (grep): as outputSession, opened again when needed. */
export function outputSessionFile(file: string): void {
  runSources().files.add(file);
}

/** Findings a command reports itself (export's notes): the output filter's note does not repeat them. */
export function findingsReported(diagnostics: readonly Diagnostic[]): void {
  const run = runSources();
  for (const d of diagnostics) {
    if (d.code !== "lone-surrogate") continue;
    // A finding about the header may come without a line: the header's line is what the filter's note names.
    const header = d.line === null ? run.sessions.find((x) => x.file === d.file)?.headerLine : undefined;
    run.reported.add(findingKey(d, header ?? d.line));
  }
}

function findingKey(d: Diagnostic, line: number | null = d.line): string {
  return `${d.file}\u0000${line}\u0000${String(d.args.path)}`;
}

/** After output that held a lone surrogate: the findings of the sessions it came from, each once a run. */
async function noteReplaced(filter: TerminalFilter): Promise<void> {
  const run = sources.get(runIo());
  if (filter.replaced === 0 || run === undefined) return;
  // The content checks load only here: a run without a lone surrogate never needs them.
  const { loneSurrogateFindings } = await import("../check/content.js");
  const say = (findings: Diagnostic[]): void => {
    for (const d of findings) {
      const key = findingKey(d);
      if (run.reported.has(key)) continue;
      run.reported.add(key);
      writeErr(diagnosticLine(d));
    }
  };
  for (const session of run.sessions) say(loneSurrogateFindings(session));
  for (const file of run.files) {
    run.files.delete(file);
    let session: Session | undefined;
    try {
      session = await openSession(file, { progress: false });
      say(loneSurrogateFindings(session));
    } catch {
      // Gone or unreadable since the report read it: its output stands, without the note.
    } finally {
      session?.store.close();
    }
  }
}

async function openSession<D extends Detail = "full">(
  file: string,
  opts: { progress?: boolean; detail?: D; onEntry?: LoadOptions<D>["onEntry"] },
): Promise<Session<D>> {
  const detail: LoadOptions<D> = {
    ...(opts.detail === undefined ? {} : { detail: opts.detail }),
    ...(opts.onEntry === undefined ? {} : { onEntry: opts.onEntry }),
  };
  if (isStdin(file)) return loadSession({ kind: "stream", name: "-", stream: runIo().stdin }, { name: "-", ...detail });
  let info: Stats;
  try {
    // Not node:fs/promises: it brings a dozen of Node's internal modules, a cost at start-up of every command.
    info = await statOf(file);
  } catch (err) {
    throw new CliError(`${file}: ${ioReason(err)}`);
  }
  // Stat before open: a FIFO's open or read would wait for a writer forever (the loader's open refuses it too).
  if (!info.isFile()) throw new CliError(`${file}: ${new NotRegularFile(file, info).message}`);
  // The size first: asking stderr whether it is a TTY makes Node's stream for it (its stream modules, ~10M
  // instructions), which a run that writes no problems never needs.
  const progress =
    opts.progress !== false && info.size > 64 << 20 && runIo().stderr.isTTY === true
      ? progressReporter("reading", file, info.size)
      : undefined;
  try {
    return await loadSession({ kind: "file", path: file }, progress ? { onProgress: progress.update, ...detail } : detail);
  } catch (err) {
    throw new CliError(`${file}: ${ioReason(err)}`);
  } finally {
    progress?.done();
  }
}

/** A one-line progress bar on stderr, redrawn in place and erased when done. Only for a TTY (callers check). */
export function progressReporter(verb: string, file: string, total: number): { update: (bytes: number) => void; done: () => void } {
  let shown = false;
  return {
    update(bytes) {
      shown = true;
      const pct = Math.min(100, Math.floor((bytes / total) * 100));
      const fill = Math.round((pct / 100) * 30);
      writeControl("clearLine");
      writeErr(
        `${verb} ${file} [${"#".repeat(fill)}${"-".repeat(30 - fill)}] ${pct}% (${(bytes / 1e6).toFixed(0)} / ${(total / 1e6).toFixed(0)} MB)`,
      );
    },
    done() {
      if (shown) writeControl("clearLine");
    },
  };
}

/** The reader left (EPIPE) or a write failed (a full disk): nothing more is written; cli.ts says which and exits. */
function outputClosed(): boolean {
  return runIo().stdout.errored != null;
}

/**
 * Output is handed to stdout in pieces of about this size: a write per small chunk costs a system call each (and no
 * larger: see CHUNK_CHARS).
 */
const WRITE_SIZE = CHUNK_CHARS;

/**
 * The chunks in order, small ones joined into pieces of at least WRITE_SIZE characters; a chunk that size or larger
 * goes as it is (so the piece before it, like the last, may be shorter), and so does a chunk of bytes.
 */
function* coalesced(chunks: Iterable<string | Uint8Array>): Generator<string | Uint8Array> {
  let pending: string[] = [];
  let size = 0;
  for (const chunk of chunks) {
    if (chunk.length === 0) continue;
    if (typeof chunk !== "string" || chunk.length >= WRITE_SIZE) {
      // A big chunk goes out as it is: joined, it would be copied only to be written.
      if (size > 0) yield pending.join("");
      pending = [];
      size = 0;
      yield chunk;
      continue;
    }
    pending.push(chunk);
    size += chunk.length;
    if (size >= WRITE_SIZE) {
      yield pending.join("");
      pending = [];
      size = 0;
    }
  }
  if (size > 0) yield pending.join("");
}

/**
 * Writes chunks to stdout, waiting for the pipe to drain; stops with OutputClosed when the reader has gone. Every
 * chunk passes the output filter for its form (render/sanitize.ts, TerminalFilter): text for a terminal by default,
 * so no field a renderer forgot to sanitize reaches the terminal raw; `json` for JSON and NDJSON, whose value it
 * keeps; `data` for formats whose bytes are the point.
 */
export async function writeOut(chunks: Iterable<string | Uint8Array>, form: OutForm = "text"): Promise<void> {
  const filter = filterFor(form, runIo().stdout);
  await writeFiltered(chunks, filter);
  await writeRaw(filter.end());
  await noteReplaced(filter);
}

/**
 * Output for a file (`-o`): through the same filter as stdout (no colour: a file gets no palette), with the same
 * findings after it. `write` takes the filtered chunks and writes the file.
 */
export async function writeFileOut(
  chunks: Iterable<string>,
  form: OutForm,
  write: (filtered: Iterable<string>) => Promise<void>,
): Promise<void> {
  const filter = new TerminalFilter(form);
  function* filtered(): Generator<string> {
    for (const c of chunks) yield filter.push(c);
    yield filter.end();
  }
  await write(filtered());
  await noteReplaced(filter);
}

/**
 * Writes the chunks through the filter. A chunk of bytes is one the filter would leave as it is (the report said so:
 * contextReport's messageBytes), written as it is after what the filter held back (whole before a JSON value).
 */
async function writeFiltered(chunks: Iterable<string | Uint8Array>, filter: TerminalFilter): Promise<void> {
  for (const chunk of coalesced(chunks)) {
    if (typeof chunk === "string") await writeRaw(filter.push(chunk));
    else {
      await writeRaw(filter.end());
      await writeRaw(chunk);
    }
  }
}

async function writeRaw(chunk: string | Uint8Array): Promise<void> {
  if (chunk.length > 0) {
    if (outputClosed()) throw new OutputClosed();
    if (!runIo().stdout.write(chunk)) {
      await new Promise<void>((resolve) => {
        // A reader that leaves while we wait sends no "drain"; cli.ts ends the run on the error itself.
        const done = (): void => {
          runIo().stdout.off("drain", done);
          runIo().stdout.off("error", done);
          resolve();
        };
        runIo().stdout.on("drain", done);
        runIo().stdout.on("error", done);
      });
    }
  }
  if (outputClosed()) throw new OutputClosed();
}

/**
 * Text for stderr (diagnostics, notes, a status line), through the output filter's text form: file names, ids and
 * any other session text in it are shown, never sent to the terminal.
 */
export function writeErr(text: string): void {
  if (text) runIo().stderr.write(terminalText(text, palettes.get(runIo().stderr)));
}

/** pisess's own terminal controls for stderr: the only escape sequences written past the output filter. */
const CONTROLS = {
  /** Back to the start of the line and erase it (a progress or status line). */
  clearLine: "\r\u001b[2K",
  /** Colours reset and the cursor shown (follow, leaving the terminal as it was). */
  reset: "\u001b[0m\u001b[?25h",
} as const;

export function writeControl(which: keyof typeof CONTROLS): void {
  runIo().stderr.write(CONTROLS[which]);
}

/**
 * Output written piece by piece over many calls (one per comparison, say), handed to writeOut in batches of about
 * WRITE_SIZE: a hundred thousand small writes would cost a system call each. `flush` writes what is left.
 */
export function batchedOut(form: OutForm = "text"): { add: (chunks: Iterable<string>) => Promise<void>; flush: () => Promise<void> } {
  let pending: string[] = [];
  let size = 0;
  // One filter for the whole output: a batch may end inside what the filter must see whole.
  const filter = filterFor(form, runIo().stdout);
  const send = async (): Promise<void> => {
    const out = pending;
    pending = [];
    size = 0;
    await writeFiltered(out, filter);
  };
  const flush = async (): Promise<void> => {
    await send();
    await writeRaw(filter.end());
    await noteReplaced(filter);
  };
  return {
    async add(chunks) {
      for (const c of chunks) {
        pending.push(c);
        size += c.length;
      }
      if (size >= WRITE_SIZE) await send();
    },
    flush,
  };
}

/** The info note for a session without entries (pi's empty result, not an error). */
export function emptyNote(file: string, what: "context" | "path"): string {
  return `${sanitizeLine(file)}: note: the session has no entries; the ${what} is empty, as pi's\n`;
}

/**
 * The one-line stderr note about a session's problems (counted by the one rule, problemTally; worded as validate
 * words its total); stdout stays pure data.
 */
export function problemSummary(file: string, diagnostics: readonly Diagnostic[]): void {
  const t = problemTally(diagnostics);
  if (t.error + t.warning > 0) writeErr(readingProblemsLine(file, t));
}

/** Columns to cut lines to; undefined: no cut. A terminal reporting 0 columns (a pty without a size) is unknown. */
export function terminalWidth(explicit: number | undefined): number | undefined {
  if (explicit !== undefined) return explicit > 0 ? explicit : undefined;
  const columns = runIo().stdout.isTTY ? runIo().stdout.columns : undefined;
  return columns !== undefined && columns > 0 ? columns : undefined;
}

/**
 * `-o OUT` of a command that reads `inputs` (files, or "-"): checked before any work is done, refused with exit 2
 * and its reason (a symlink, an input, a session file, an existing file without --force). The one way a command
 * writes a file: io/output-file.ts.
 */
export function outputFile(out: string, inputs: readonly string[], force: boolean): OutputTarget {
  // stdin is an input too where it is the process's own (`< OUT`); a run in process reads a stream of its own.
  const ids: OutputInput[] = inputs.flatMap((f): OutputInput[] => (isStdin(f) ? (ownsProcess() ? [{ fd: 0 }] : []) : [f]));
  try {
    return checkOutput(out, ids, force);
  } catch (err) {
    if (err instanceof OutputRefused) throw new CliError(err.message);
    throw err;
  }
}

/** Writes the chunks to a checked OUT: a new file beside it, renamed into place once complete. */
export async function writeOutputFile(target: OutputTarget, chunks: Iterable<string>): Promise<void> {
  try {
    await writeOutput(target, chunks);
  } catch (err) {
    if (err instanceof OutputRefused) throw new CliError(err.message);
    // A failed write (a full disk, a folder that went away) as its one line; errors of the run itself pass.
    if (typeof (err as NodeJS.ErrnoException)?.code === "string" && !(err instanceof CliError))
      throw new CliError(`${target.shown}: ${ioReason(err)}`);
    throw err;
  }
}

// The index (pisess index) as usage and sql choose it.

/** The index a fleet command uses: --db, else the one in the cache dir (src/io/index-file.ts). */
export function indexPath(db: string | undefined): string {
  return db ?? defaultIndexPath(runIo().env);
}

/** The options usage and sql take to answer from the index. */
export const INDEX_OPTION = {
  describe: "Answer from the index (pisess index), brought up to date first, when it exists; --no-index reads the files",
  type: "boolean",
  default: true,
} as const;
export const DB_OPTION = {
  describe: "The index database to use (made if missing; default: the one in the cache dir)",
  type: "string",
} as const;

/** The index a usage or sql run answers from: --db, else the default one when it exists; none with --no-index. */
export function chosenIndex(args: { index?: boolean; db?: string }): string | undefined {
  if (args.index === false) return undefined;
  if (args.db !== undefined) return args.db;
  const db = defaultIndexPath(runIo().env);
  return indexExists(db) ? db : undefined;
}

/**
 * A test hook, not an option: with PISESS_TEST_INDEX_PAUSE_MS set, an update says so on stderr once inside its
 * transaction and waits that long before committing (the killed-mid-update test kills it there).
 */
export function testPause(): (() => Promise<void>) | undefined {
  const ms = Number(runIo().env.PISESS_TEST_INDEX_PAUSE_MS);
  if (!Number.isFinite(ms) || ms <= 0) return undefined;
  return async () => {
    writeErr("pisess: paused inside the update (PISESS_TEST_INDEX_PAUSE_MS)\n");
    await new Promise((r) => setTimeout(r, ms));
  };
}

/** The report options of the chosen index (none: read the files), the test pause among them. */
export function indexArgs(args: { index?: boolean; db?: string }): { db?: string; inTransaction?: () => Promise<void> } {
  const db = chosenIndex(args);
  if (db === undefined) return {};
  const pause = testPause();
  return { db, ...(pause ? { inTransaction: pause } : {}) };
}

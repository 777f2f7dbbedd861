import type { Session } from "../model/session.js";
import { stat } from "node:fs/promises";
import { forkParentRef, listSessionFiles } from "../io/discover.js";
import { ioReason } from "../io/errors.js";
import type { Severity } from "../model/types.js";
import type { FileResult, ValidateSummary } from "../check/summary.js";
import type { OpenSession } from "./open.js";
import { ReportError, type Report } from "./report.js";

export interface ValidateOptions {
  /** Session files, directories (every *.jsonl below) or "-" (read through `open`). */
  inputs: string[];
  strict?: boolean;
  /** Keep errors only in `shown` (the exit status still counts everything). */
  quiet?: boolean;
  /** Lowest severity that makes the exit status 1 (default error); more than maxWarnings warnings too (-1: no limit). */
  failOn?: Severity;
  maxWarnings?: number;
  /**
   * A folder holding no session file is an input error (exit 2: a mistyped folder must not pass CI as "no
   * problems"); with allowEmpty it is only a note.
   */
  allowEmpty?: boolean;
  /** Unreadable folders and files are still reported, but do not make the exit status 2 (--allow-unreadable). */
  allowUnreadable?: boolean;
  open: OpenSession;
  /** Whether an input names stdin (the CLI's marker for "-"). */
  isStdin?: (input: string) => boolean;
  /** How an input is named in results (the CLI shows its stdin marker as "-"). */
  displayName?: (input: string) => string;
  /** A progress display for checking one large file (bytes), or undefined for none. */
  progress?: (name: string, bytes: number) => { update: (bytes: number) => void; done: () => void } | undefined;
}

export interface ValidateData {
  /** Every file, with its diagnostics or why it could not be read. */
  results: FileResult[];
  /** The results shown (errors only with `quiet`) and their summary. */
  shown: FileResult[];
  summary: ValidateSummary;
  /** With `quiet`: the findings left out of `shown` (warnings and infos), so no summary claims "no problems". */
  hidden: { warning: number; info: number };
  /** Messages about inputs, in order: folders without session files, unreadable paths. */
  notes: string[];
}

/** `pisess validate`: every defect in session files, with stable codes. */
export async function validateReport(opts: ValidateOptions): Promise<Report<ValidateData>> {
  // The checks and the generated schema validators load only when validate runs: `pisess --help` stays fast.
  const [{ checkSession, contentChecks }, { summarize, exitStatus, atLeast }, { forkLoops }] = await Promise.all([
    import("../check/validate.js"),
    import("../check/summary.js"),
    import("../ops/fork.js"),
  ]);
  const isStdin = opts.isStdin ?? ((i: string) => i === "-");
  const displayName = opts.displayName ?? ((i: string) => i);
  if (opts.inputs.filter((i) => isStdin(i)).length > 1) throw new ReportError("stdin (-) can be read only once");
  const notes: string[] = [];
  const inputs = await expandInputs(opts.inputs, isStdin, notes, opts.allowEmpty === true);
  const results: FileResult[] = [];
  for (const input of inputs) {
    const name = displayName(input.name);
    if (input.ioError !== undefined) {
      notes.push(`${name}: ${input.ioError}`);
      results.push({ file: name, diagnostics: [], ioError: input.ioError });
      continue;
    }
    let session: Session<"check">;
    // The per-entry checks run on each entry as the loader parses it: every line is parsed once, not twice.
    const checked = contentChecks({ strict: opts.strict === true });
    try {
      // The checks read only the check detail's fields of the index (ids, links, roles, tool calls): no previews or
      // usage are kept for a million entries.
      session = await opts.open(input.name, { onEntry: checked.onEntry, detail: "check" });
    } catch (err) {
      if (!(err instanceof ReportError)) throw err;
      const reason = err.message.startsWith(`${name}: `) ? err.message.slice(name.length + 2) : err.message;
      notes.push(err.message);
      results.push({ file: name, diagnostics: [], ioError: reason });
      continue;
    }
    const progress = opts.progress?.(name, session.facts.bytes);
    try {
      const forkLoop = session.path !== undefined && forkParentRef(session.header) !== null && (await forkLoops(session.path));
      const diagnostics = checkSession(session, {
        strict: opts.strict === true,
        forkLoop,
        checked,
        ...(progress ? { onProgress: progress.update } : {}),
      });
      results.push({ file: session.file, diagnostics });
    } catch (err) {
      // Only I/O failures (the file vanished or shrank mid-read) are a per-file error; anything else is a bug.
      if ((err as NodeJS.ErrnoException)?.code === undefined && !/shrank/.test(String(err))) throw err;
      const reason = ioReason(err);
      notes.push(`${name}: ${reason}`);
      results.push({ file: name, diagnostics: [], ioError: reason });
    } finally {
      progress?.done();
      session.store.close();
    }
  }
  const shown = opts.quiet ? atLeast(results, "error") : results;
  const hidden = { warning: 0, info: 0 };
  if (opts.quiet)
    for (const r of results) for (const d of r.diagnostics) if (d.severity === "warning" || d.severity === "info") hidden[d.severity]++;
  const data: ValidateData = { results, shown, summary: summarize(shown), hidden, notes };
  return {
    data,
    diagnostics: results.flatMap((r) => r.diagnostics),
    exitCode: exitStatus(
      opts.allowUnreadable === true ? results.filter((r) => r.ioError === undefined || r.ioError === NO_FILES) : results,
      { failOn: opts.failOn ?? "error", maxWarnings: opts.maxWarnings ?? -1 },
    ),
  };
}

/** The input error of a folder without session files: --allow-empty, not --allow-unreadable, accepts it. */
export const NO_FILES = "no session files under this folder (--allow-empty accepts that)";

interface Input {
  name: string;
  ioError?: string;
}

/** Files as given, directories expanded to every *.jsonl below them (sorted, symlinked folders not followed). */
export async function expandInputs(
  inputs: readonly string[],
  isStdin: (i: string) => boolean,
  notes: string[],
  allowEmpty: boolean,
): Promise<Input[]> {
  const out: Input[] = [];
  for (const input of inputs) {
    if (isStdin(input)) {
      out.push({ name: input });
      continue;
    }
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(input);
    } catch (err) {
      out.push({ name: input, ioError: ioReason(err) });
      continue;
    }
    if (!info.isDirectory()) {
      out.push({ name: input });
      continue;
    }
    const found = await listSessionFiles(input, (dir, err) => out.push({ name: dir, ioError: ioReason(err) }));
    if (found.length === 0) {
      if (allowEmpty) notes.push(`${input}: no session files under this folder`);
      else out.push({ name: input, ioError: NO_FILES });
    }
    for (const f of found) out.push({ name: f });
  }
  return out;
}

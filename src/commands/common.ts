import { stat } from "node:fs/promises";
import type { Options } from "yargs";
import { loadSession, type LoadOptions } from "../model/load.js";
import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { resolveRef } from "../ops/refs.js";
import { makeStyle, type Style } from "../render/style.js";

/** An error meant for the user: printed as one line, exit code 2 unless said otherwise. No stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

export interface GlobalArgs {
  color?: string;
  debug?: boolean;
}

export const colorOption: Options = {
  describe: "Colour: auto (TTY and no NO_COLOR), always, never",
  choices: ["auto", "always", "never"],
  default: "auto",
  type: "string",
};

/** Colour only for a TTY, never with NO_COLOR set (any non-empty value), unless forced with --color always. */
export function useColor(args: GlobalArgs, stream: NodeJS.WriteStream = process.stdout): boolean {
  if (args.color === "always") return true;
  if (args.color === "never") return false;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

export function styleFor(args: GlobalArgs, stream: NodeJS.WriteStream = process.stdout): Style {
  return makeStyle(useColor(args, stream));
}

/**
 * yargs turns a lone "-" into an empty string; cli.ts swaps "-" for this marker before parsing (a NUL can never
 * be part of a real path), and every input argument goes through `isStdin`.
 */
export const STDIN_ARG = "\u0000stdin";

export function isStdin(file: string): boolean {
  return file === STDIN_ARG || file === "-";
}

/** How an input argument is shown to the user. */
export function displayName(file: string): string {
  return isStdin(file) ? "-" : file;
}

/** Opens a session file (read-only) or stdin ("-"), turning I/O failures into one-line errors. */
export async function openInput(file: string, opts: { progress?: boolean; detail?: LoadOptions["detail"] } = {}): Promise<Session> {
  const detail = opts.detail === undefined ? {} : { detail: opts.detail };
  if (isStdin(file)) return loadSession({ kind: "stream", name: "-", stream: process.stdin }, { name: "-", ...detail });
  let info;
  try {
    info = await stat(file);
  } catch (err) {
    throw new CliError(`${file}: ${ioReason(err)}`);
  }
  if (info.isDirectory()) throw new CliError(`${file}: is a directory (expected a session .jsonl file)`);
  const progress = opts.progress !== false && process.stderr.isTTY === true && info.size > 64 << 20 ? progressReporter("reading", file, info.size) : undefined;
  try {
    return await loadSession({ kind: "file", path: file }, progress ? { onProgress: progress.update, ...detail } : detail);
  } catch (err) {
    throw new CliError(`${file}: ${ioReason(err)}`);
  } finally {
    progress?.done();
  }
}

export function ioReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    default:
      return e instanceof Error ? e.message : String(err);
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
      process.stderr.write(
        `\r\u001b[2K${verb} ${file} [${"#".repeat(fill)}${"-".repeat(30 - fill)}] ${pct}% (${(bytes / 1e6).toFixed(0)} / ${(total / 1e6).toFixed(0)} MB)`,
      );
    },
    done() {
      if (shown) process.stderr.write("\r\u001b[2K");
    },
  };
}

/** Resolves an entry reference or fails with exit 2, listing candidates when it is ambiguous. */
export function entryRef(session: Session, ref: string): EntryRec {
  const r = resolveRef(session, ref);
  if (r.ok) return r.rec;
  switch (r.reason) {
    case "ambiguous": {
      const list = (r.candidates ?? []).slice(0, 10).map((c) => `${c.id ?? "(no id)"} (line ${c.line})`).join(", ");
      throw new CliError(`${session.file}: entry reference "${ref}" is ambiguous: ${list}${(r.candidates?.length ?? 0) > 10 ? ", …" : ""}`);
    }
    case "bad-line":
      throw new CliError(`${session.file}: "${ref}" is not a line reference (use @LINE with a line number ≥ 1)`);
    case "no-entries":
      throw new CliError(`${session.file}: the session has no entries`);
    default:
      throw new CliError(
        `${session.file}: no entry matches "${ref}" (use a full id, a unique id prefix, @LINE, label:NAME or leaf)`,
      );
  }
}

/** Writes chunks to stdout, waiting for the pipe to drain; a closed pipe (e.g. `| head`) ends quietly. */
export async function writeOut(chunks: Iterable<string>): Promise<void> {
  for (const chunk of chunks) {
    if (!chunk) continue;
    if (!process.stdout.write(chunk)) {
      await new Promise<void>((resolve) => process.stdout.once("drain", resolve));
    }
  }
}

/** The one-line stderr note about load problems; stdout stays pure data. */
export function problemSummary(session: Session, extra = 0): void {
  const n = session.diagnostics.filter((d) => d.severity !== "info").length + extra;
  if (n > 0) process.stderr.write(`${session.file}: ${n} problem${n === 1 ? "" : "s"}; run pisess validate ${session.file}\n`);
}

/** Columns to cut lines to; undefined: no cut. A terminal reporting 0 columns (a pty without a size) is unknown. */
export function terminalWidth(explicit: number | undefined): number | undefined {
  if (explicit !== undefined) return explicit > 0 ? explicit : undefined;
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  return columns !== undefined && columns > 0 ? columns : undefined;
}

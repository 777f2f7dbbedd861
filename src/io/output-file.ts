import { closeSync, fstatSync, linkSync, lstatSync, openSync, readSync, renameSync, type Stats, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { FileHandle } from "node:fs/promises";
import { ioReason } from "./errors.js";
import { fsp } from "./fsp.js";

// The one way pisess writes a file the user names (`export -o OUT`). The bytes go to a new file beside OUT (created
// with O_EXCL, so nothing existing is opened for writing) that is renamed into place once complete: OUT is never
// truncated, a reader of the old OUT keeps its bytes, and a run that fails or is stopped leaves neither a partial
// OUT nor the temporary file. OUT itself is refused when it is a symlink (the write would land elsewhere), any input
// (same device and inode: a hard link or a second path), or a file that holds a pi session header.

/** Why an output path is refused: the one-line reason, quoting the path. The command turns it into exit 2. */
export class OutputRefused extends Error {}

/** What the output must never be: an input, named by path or (stdin) by descriptor. */
export type OutputInput = string | { fd: number };

interface FileId {
  dev: number;
  ino: number;
  /** The path as given; undefined for stdin. */
  name: string | undefined;
}

/** A checked output path: where to write and what it must not turn out to be when the bytes are put in place. */
export interface OutputTarget {
  readonly path: string;
  readonly shown: string;
  readonly force: boolean;
  readonly inputs: readonly FileId[];
}

function identity(input: OutputInput): FileId | undefined {
  try {
    const st = typeof input === "string" ? statSync(input) : fstatSync(input.fd);
    return { dev: st.dev, ino: st.ino, name: typeof input === "string" ? input : undefined };
  } catch {
    // An input that cannot be stat'ed cannot be the output either: opening it fails with its own message.
    return undefined;
  }
}

/** The bounded start of a file, to see whether its first line is a session header; undefined when unreadable. */
function firstLine(path: string, limit = 1 << 20): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(limit);
    let total = 0;
    while (total < limit) {
      const n = readSync(fd, buf, total, limit - total, total);
      if (n === 0) break;
      const nl = buf.indexOf(0x0a, total);
      total += n;
      if (nl !== -1 && nl < total) return decodeLine(buf.subarray(0, nl));
    }
    return decodeLine(buf.subarray(0, total));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function decodeLine(b: Buffer): string {
  let s = b.toString("utf8");
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  return s.endsWith("\r") ? s.slice(0, -1) : s;
}

/** Whether a first line is a JSON object with `type: "session"`: what pi reads as a session file's header. */
function sessionHeader(path: string): "yes" | "no" | "unreadable" {
  const line = firstLine(path);
  if (line === undefined) return "unreadable";
  if (!line.trimStart().startsWith("{")) return "no";
  try {
    const o: unknown = JSON.parse(line);
    return typeof o === "object" && o !== null && !Array.isArray(o) && (o as { type?: unknown }).type === "session" ? "yes" : "no";
  } catch {
    return "no";
  }
}

/** The reason OUT (an existing entry, `st` from lstat) must not be replaced, or undefined when it may be. */
function refusal(t: OutputTarget, st: Stats): string | undefined {
  if (st.isSymbolicLink()) return "is a symbolic link; pisess never writes through one (name the file itself)";
  if (st.isDirectory()) return "is a directory";
  if (!st.isFile()) return "is not a regular file";
  const input = t.inputs.find((i) => i.dev === st.dev && i.ino === st.ino);
  if (input !== undefined) {
    if (input.name === undefined) return "is the file on stdin; pisess never writes to an input";
    return input.name === t.shown
      ? "is the input file; pisess never writes to it"
      : `is the input file ${input.name} (the same file); pisess never writes to it`;
  }
  const header = sessionHeader(t.path);
  if (header === "yes") return "holds a pi session (its first line is a session header); pisess never replaces one";
  // It might be one: what cannot be checked is not replaced.
  if (header === "unreadable") return "cannot be read to check that it holds no pi session; pisess never replaces it";
  if (t.path.toLowerCase().endsWith(".jsonl")) return "exists and is a .jsonl file; pisess never overwrites session files";
  return undefined;
}

function lstatOrUndefined(path: string, shown: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new OutputRefused(`${shown}: ${ioReason(err)}`);
  }
}

/**
 * Checks OUT before any work is done: refuses (OutputRefused) a symlink, a directory or other non-file, any input,
 * a file holding a session header, an existing .jsonl, an existing file without `force`, or a missing folder.
 */
export function checkOutput(out: string, inputs: readonly OutputInput[], force: boolean): OutputTarget {
  const t: OutputTarget = {
    path: resolve(out),
    shown: out,
    force,
    inputs: inputs.map(identity).filter((i): i is FileId => i !== undefined),
  };
  let dir: Stats;
  try {
    dir = statSync(dirname(t.path));
  } catch (err) {
    throw new OutputRefused(`${out}: its folder: ${ioReason(err)}`);
  }
  if (!dir.isDirectory()) throw new OutputRefused(`${out}: its folder is not a directory`);
  const st = lstatOrUndefined(t.path, out);
  if (st === undefined) return t;
  const why = refusal(t, st);
  if (why !== undefined) throw new OutputRefused(`${out}: ${why}`);
  if (!force) throw new OutputRefused(`${out}: exists (use --force to overwrite)`);
  return t;
}

/** Temporary files being written, removed on every way out: an error, a signal, or the process ending. */
const live = new Set<string>();
let stopped: NodeJS.Signals | undefined;

function removeLive(): void {
  for (const p of live) {
    try {
      unlinkSync(p);
    } catch {
      // already gone
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  removeLive();
  stopped = signal;
  unwatch();
  // With nobody else listening, end as the signal would have without us (the shell sees 128 + its number).
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

let watching = false;

function watch(): void {
  if (watching) return;
  watching = true;
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.on("exit", removeLive);
}

function unwatch(): void {
  watching = false;
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  process.off("SIGHUP", onSignal);
  process.off("exit", removeLive);
}

// Not node:crypto for the name (a start-up cost to every command): O_EXCL makes it unique, with a new name on EEXIST.
function tempBeside(path: string): string {
  const tag = `${process.pid.toString(36)}${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
  return join(dirname(path), `.${basename(path)}.pisess-${tag}.tmp`);
}

/** A new temporary file beside OUT, readable as a new file would be (0666 less the umask), opened for writing. */
async function createTemp(path: string): Promise<{ temp: string; fh: FileHandle }> {
  const { open } = await fsp();
  for (let tries = 0; ; tries++) {
    const temp = tempBeside(path);
    // Listed before it exists: a signal while open() runs removes it too.
    live.add(temp);
    try {
      return { temp, fh: await open(temp, "wx", 0o666) };
    } catch (err) {
      live.delete(temp);
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || tries >= 10) throw err;
    }
  }
}

/** Writes are gathered to about this many characters: one write call per small chunk would dominate the time. */
const BATCH_CHARS = 1 << 20;

/** The temporary file's bytes: every chunk, in batches; stops when a signal removed the file. */
async function fill(fh: FileHandle, chunks: Iterable<string> | AsyncIterable<string>): Promise<void> {
  let batch = "";
  for await (const c of chunks) {
    batch += c;
    if (batch.length < BATCH_CHARS) continue;
    await fh.write(batch);
    batch = "";
    if (stopped !== undefined) throw new OutputRefused(`stopped by ${stopped}`);
  }
  if (batch.length > 0) await fh.write(batch);
  await fh.sync();
}

/** Puts the complete temporary file at OUT, checking OUT again: it may have changed while the bytes were made. */
function commit(t: OutputTarget, temp: string): void {
  const st = lstatOrUndefined(t.path, t.shown);
  if (st !== undefined) {
    const why = refusal(t, st) ?? (t.force ? undefined : "exists (use --force to overwrite)");
    if (why !== undefined) throw new OutputRefused(`${t.shown}: ${why}`);
  }
  if (t.force) {
    renameSync(temp, t.path);
    return;
  }
  // Without --force a file that appeared since the check is never replaced: link() fails on an existing name.
  try {
    linkSync(temp, t.path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new OutputRefused(`${t.shown}: exists (use --force to overwrite)`);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw err;
    // A file system without hard links: the name was free a moment ago.
    renameSync(temp, t.path);
    return;
  }
  unlinkSync(temp);
}

/** Writes `chunks` to the checked OUT: a new file beside it, renamed into place when complete; removed otherwise. */
export async function writeOutput(t: OutputTarget, chunks: Iterable<string> | AsyncIterable<string>): Promise<void> {
  stopped = undefined;
  watch();
  let made: { temp: string; fh: FileHandle };
  try {
    made = await createTemp(t.path);
  } catch (err) {
    if (live.size === 0) unwatch();
    throw err;
  }
  const { temp, fh } = made;
  let done = false;
  try {
    try {
      await fill(fh, chunks);
    } finally {
      await fh.close();
    }
    if (stopped !== undefined) throw new OutputRefused(`stopped by ${stopped}`);
    commit(t, temp);
    done = true;
  } finally {
    if (!done) {
      try {
        unlinkSync(temp);
      } catch {
        // removed already (a signal) or never made it past the rename
      }
    }
    live.delete(temp);
    if (live.size === 0) unwatch();
  }
}

import { execFileSync } from "node:child_process";
import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArgContext } from "./args.js";

/**
 * A throwaway pi home for one case: the mutated file and a second session in the sessions folder of the working
 * directory (so commands without a FILE find them), agent dir and sessions dir pointed there by the environment.
 * Commands only ever see these copies, never a corpus file.
 */
export interface Workspace {
  root: string;
  cwd: string;
  dir: string;
  file: string;
  other: string;
  /** Where outputs go (export -o, tables --out): new names, beside the traps. */
  out: string;
  /** Output paths pisess must refuse to write: a symlink to the second session, a hard link to the file, a FIFO. */
  traps: string[];
  /** TMPDIR of every run: empty again after each case. */
  tmp: string;
  env: NodeJS.ProcessEnv;
  dispose(): void;
}

/** What else a case's sessions folder holds: things a folder scan must pass over without hanging. */
export interface Extras {
  /** A FIFO named `fifo.jsonl` in the sessions folder. */
  fifo?: boolean;
  /** A symlink `linked-fifo.jsonl` to a FIFO outside it. */
  linkedFifo?: boolean;
}

/** A case's `extras` bits: 1, a FIFO in the sessions folder; 2, a symlinked FIFO there. */
export function extrasOf(bits: number): Extras {
  return { fifo: (bits & 1) !== 0, linkedFifo: (bits & 2) !== 0 };
}

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

export function makeWorkspace(file: Buffer, other: Buffer, extras: Extras = {}): Workspace {
  const root = mkdtempSync(join(tmpdir(), "pisess-fuzz-"));
  const cwd = join(root, "work");
  mkdirSync(cwd);
  const dir = join(root, "sessions", `--${cwd.slice(1).replace(/[/\\:]/g, "-")}--`);
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(root, "agent"));
  const f = join(dir, "fuzz.jsonl");
  const o = join(dir, "other.jsonl");
  writeFileSync(f, file);
  writeFileSync(o, other);
  const out = join(root, "out");
  const tmp = join(root, "tmp");
  mkdirSync(out);
  mkdirSync(tmp);
  const traps = [join(out, "link.html"), join(out, "hard.md"), join(out, "fifo.html")];
  symlinkSync(o, traps[0] as string);
  linkSync(f, traps[1] as string);
  mkfifo(traps[2] as string);
  if (extras.fifo) mkfifo(join(dir, "fifo.jsonl"));
  if (extras.linkedFifo) {
    mkfifo(join(root, "elsewhere.fifo"));
    symlinkSync(join(root, "elsewhere.fifo"), join(dir, "linked-fifo.jsonl"));
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    NO_COLOR: "1",
    TMPDIR: tmp,
    PI_CODING_AGENT_DIR: join(root, "agent"),
    PI_CODING_AGENT_SESSION_DIR: join(root, "sessions"),
  };
  return { root, cwd, dir, file: f, other: o, out, traps, tmp, env, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * What the runs of a case left that they should not have: files in TMPDIR, names in the output folder that no
 * command line named (a temporary file not cleaned up), and traps replaced or written through.
 */
export function leftovers(ws: Workspace, named: ReadonlySet<string>): string[] {
  const bad: string[] = [];
  for (const n of readdirSync(ws.tmp)) bad.push(`TMPDIR holds ${n}`);
  for (const n of readdirSync(ws.out)) {
    const p = join(ws.out, n);
    if (!ws.traps.includes(p) && !named.has(p)) bad.push(`output folder holds ${n}`);
  }
  const [link, hard, fifo] = ws.traps as [string, string, string];
  if (!lstatSync(link).isSymbolicLink() || readlinkSync(link) !== ws.other) bad.push("the symlink output was replaced");
  if (statSync(hard).ino !== statSync(ws.file).ino) bad.push("the hard-linked output was replaced");
  if (!lstatSync(fifo).isFIFO()) bad.push("the FIFO output was replaced");
  return bad;
}

function uniq(xs: Iterable<string>, max: number): string[] {
  return [...new Set(xs)].slice(0, max);
}

/** Ids, labels and words of the mutated file, found without pisess, for entry references and patterns. */
export function argContext(ws: Workspace, bytes: Buffer): ArgContext {
  const text = bytes.toString("utf8");
  return {
    file: ws.file,
    other: ws.other,
    dir: ws.dir,
    ids: uniq(
      [...text.matchAll(/"id":"([^"\\]*)"/g)].map((m) => m[1] ?? ""),
      64,
    ),
    labels: uniq(
      [...text.matchAll(/"label":"([^"\\]*)"/g)].map((m) => m[1] ?? ""),
      16,
    ),
    words: uniq(
      [...text.matchAll(/[A-Za-z]{5,12}/g)].map((m) => m[0]),
      64,
    ),
    lines: text.split("\n").length,
    out: ws.out,
    traps: ws.traps,
  };
}

/** Placeholders for the workspace paths, so a kept failure replays anywhere. */
export function toPlaceholders(argv: readonly string[], ws: Workspace): string[] {
  return argv.map((a) =>
    a === ws.file
      ? "{file}"
      : a === ws.other
        ? "{other}"
        : a === ws.dir
          ? "{dir}"
          : a.startsWith(`${ws.out}/`)
            ? `{out}${a.slice(ws.out.length)}`
            : a,
  );
}

export function fromPlaceholders(argv: readonly string[], ws: Workspace): string[] {
  return argv.map((a) =>
    a === "{file}"
      ? ws.file
      : a === "{other}"
        ? ws.other
        : a === "{dir}"
          ? ws.dir
          : a.startsWith("{out}/")
            ? ws.out + a.slice("{out}".length)
            : a,
  );
}

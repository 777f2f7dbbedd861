import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { format } from "node:util";
import type { Session } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { type RunIo, withRunIo } from "../../src/commands/run-state.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(ROOT, "bin", "pisess.js");

export function fixture(...parts: string[]): string {
  return join(ROOT, "fixtures", ...parts);
}

export function corpus(name: string): string {
  return join(ROOT, "fixtures", "corpus", name);
}

/** Every .jsonl file under `dir` (fixtures() by default), at any depth, sorted. */
export function sessionFiles(dir = fixture()): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...sessionFiles(p));
    else if (d.name.endsWith(".jsonl")) out.push(p);
  }
  return out.sort();
}

/**
 * The amounts of a count in the order info, leaves and ls --json write them (docs/commands/info.md, `totals`),
 * written here by hand: a test that compares keys with it fails when the code reorders them.
 */
export const AMOUNT_KEYS: readonly string[] = ["input", "output", "cacheRead", "cacheWrite", "cost", "cacheWrite1h", "reasoning"];

/**
 * The JSON objects of a JSONL file's lines, read with plain JSON.parse (the oracle's reading, not pisess's): a line
 * that does not parse, or holds no object, is left out.
 */
export function jsonObjects<T = Record<string, unknown>>(path: string): T[] {
  const out: T[] = [];
  for (const l of readFileSync(path, "utf8").split("\n")) {
    try {
      const o: unknown = JSON.parse(l);
      if (o && typeof o === "object" && !Array.isArray(o)) out.push(o as T);
    } catch {
      // a damaged line
    }
  }
  return out;
}

/**
 * pi's folder for the sessions of working directory `cwd` (absolute): the leading "/" dropped, "/" as "-", wrapped
 * in "--" (written here from pi's rule, not taken from src).
 */
export function piSessionFolder(cwd: string): string {
  return `--${cwd.slice(1).replaceAll("/", "-")}--`;
}

/** The values of NDJSON text (a command's --ndjson stdout), one a non-empty line. */
export function ndjsonValues(text: string): unknown[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((s) => JSON.parse(s) as unknown);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  input?: string | Buffer;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** The environment a run gets: the test process's, colour off unless the options say otherwise. */
function cliEnv(opts: CliOptions): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined, ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env as NodeJS.ProcessEnv;
}

/**
 * Spawns the built binary (dist/ must be built: `npm test` runs tsc first). For what only a process shows: its exit
 * status and stderr as the shell sees them, the shim's own --help/--version, stdin and pipes, TTYs, signals, the bundle.
 * Everything else runs in process (runCli): a spawn costs ~100 ms of CPU.
 */
export function spawnCli(args: string[], opts: CliOptions = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: opts.input ?? "",
    env: cliEnv(opts),
    cwd: opts.cwd ?? ROOT,
    maxBuffer: 512 * 1024 * 1024,
    encoding: "utf8",
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Output captured as written: never full (writes return true), not a TTY, no width. Decoded once at the end, as
 * a spawned process's output is: bytes of one character may come in two writes.
 */
class Capture extends Writable {
  readonly isTTY = false;
  private readonly chunks: Buffer[] = [];
  constructor() {
    super({ decodeStrings: false, highWaterMark: 1 << 30 });
  }
  override _write(chunk: string | Buffer, _enc: BufferEncoding, done: () => void): void {
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    done();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/**
 * The CLI (src/cli.ts main) run in this worker, through the commands' I/O seam (run-state.ts withRunIo): stdout
 * and stderr captured, `input` on stdin, the environment and working directory as spawnCli would give them,
 * and main()'s exit status. The same argument parsing, commands and renderers as the binary, without a process.
 * Relative file operands resolve against this process's working directory (a worker cannot chdir): give
 * absolute paths with `cwd`. yargs prints help, the version and the completion script itself, with console.log and
 * console.error: those go to the captured streams for the run, in order with the rest.
 */
export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const cwd = opts.cwd ?? ROOT;
  if (cwd !== process.cwd()) {
    // A relative operand that names something under `cwd` would be read from this process's directory instead.
    const relative = args.find((a) => !isAbsolute(a) && existsSync(join(cwd, a)));
    if (relative !== undefined) throw new Error(`runCli: ${relative} is relative to ${cwd}; give it absolute`);
  }
  const { main } = await import("../../src/cli.js");
  const input = opts.input ?? "";
  const stdin = new Readable({
    read() {
      if (input.length > 0) this.push(input);
      this.push(null);
    },
  });
  const stdout = new Capture();
  const stderr = new Capture();
  const io: RunIo = {
    stdin,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    env: cliEnv(opts),
    cwd: () => cwd,
  };
  // As Node's console writes them: the arguments formatted, then a newline.
  const { log, error } = console;
  console.log = (...a: unknown[]) => void stdout.write(`${format(...a)}\n`);
  console.error = (...a: unknown[]) => void stderr.write(`${format(...a)}\n`);
  try {
    const code = await withRunIo(io, () => main(args));
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    console.log = log;
    console.error = error;
  }
}

export interface FileFingerprint {
  path: string;
  sha256: string;
  mtimeMs: number;
  size: number;
}

export function fingerprint(path: string): FileFingerprint {
  const st = statSync(path);
  return { path, sha256: createHash("sha256").update(readFileSync(path)).digest("hex"), mtimeMs: st.mtimeMs, size: st.size };
}

/**
 * Lines pi 1.6 keeps as bogus entries (no type, no id: a line holding `42`, `"x"`, `true` or an array) while
 * pisess reports them as `non-object-line` and skips them: a documented difference. Read here without pisess.
 */
export function piBogusLines(path: string): Set<number> {
  let lines = bogusLines.get(path);
  if (lines === undefined) {
    lines = readBogusLines(path);
    bogusLines.set(path, lines);
  }
  return new Set(lines);
}

/** piBogusLines by path, read once per worker (several test files ask for every corpus file's). */
const bogusLines = new Map<string, ReadonlySet<number>>();

function readBogusLines(path: string): Set<number> {
  const out = new Set<number>();
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text, i) => {
      try {
        const v: unknown = JSON.parse(text);
        if (v && (typeof v !== "object" || Array.isArray(v))) out.add(i + 1);
      } catch {
        // not JSON: pi drops it too
      }
    });
  return out;
}

const expectedDocs = new Map<string, unknown>();

/**
 * The corpus file's `.expected.json` (what pi's own functions made of it: tree, leaves, contexts), parsed once per
 * worker: a dozen test files compare with the same documents, up to 10 MB each. Frozen, as it is shared: a test
 * that changed it would throw instead of changing what the next test reads. `name`: the session file's name or
 * path (`gen-v1.jsonl`), or its stem.
 */
export function expectedOf<T>(name: string): T {
  const stem = basename(name).replace(/\.jsonl$/, "");
  let doc = expectedDocs.get(stem);
  if (doc === undefined) {
    doc = deepFreeze(JSON.parse(readFileSync(corpus(`${stem}.expected.json`), "utf8")));
    expectedDocs.set(stem, doc);
  }
  return doc as T;
}

function deepFreeze(root: unknown): unknown {
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
  return root;
}

/** A run made once and shared by the tests that read it (the same command, spawned once). */
export function once<T>(run: () => T): () => T {
  let done: { value: T } | undefined;
  return () => {
    done ??= { value: run() };
    return done.value;
  };
}

/** What a load made of a session, comparable across load details: each entry through `entryView`, the rest as is. */
export function sessionView(s: Session, entryView: (rec: EntryRec) => unknown): unknown {
  return {
    entries: s.entries.map(entryView),
    byId: [...s.byId].map(([id, r]) => [id, r.line]),
    labels: [...s.labels],
    sessionName: s.sessionName,
    defaultLeaf: s.defaultLeaf?.line ?? null,
    diagnostics: s.diagnostics,
    skipped: s.skipped,
    facts: s.facts,
    header: s.header,
    headerLine: s.headerLine,
    version: s.version,
  };
}

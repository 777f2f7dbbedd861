import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";

export interface ProcResult {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  ms: number;
  stdout: Buffer;
  stderr: Buffer;
}

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: Buffer;
  timeoutMs: number;
}

/** Runs the CLI once with `argv`: a process of the binary (runProc), or a run in a CLI server (test/cli-server.ts). */
export type Runner = (argv: string[], opts: RunOptions) => Promise<ProcResult>;

const OUTPUT_CAP = 256 * 1024 * 1024;

/** Spawns `node bin argv…`, feeding `input` to stdin; killed (SIGKILL) after `timeoutMs`. */
export function runProc(bin: string, argv: string[], opts: RunOptions): Promise<ProcResult> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [bin, ...argv], { cwd: opts.cwd, env: opts.env, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, opts.timeoutMs);
    const collect = (into: Buffer[]) => (b: Buffer) => {
      size += b.length;
      if (size > OUTPUT_CAP) child.kill("SIGKILL");
      else into.push(b);
    };
    child.stdout.on("data", collect(out));
    child.stderr.on("data", collect(err));
    // The command may exit before reading stdin (a usage error): that is not our failure.
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? Buffer.alloc(0));
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, ms: Date.now() - t0, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
  });
}

/** Nesting depth of a parsed JSON value (a scalar is 0, `[]` is 1), without recursion. */
export function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") {
      if (d > max) max = d;
      continue;
    }
    if (d + 1 > max) max = d + 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** The deepest JSON line of a session file: content pisess echoes verbatim may be that deep. */
export function inputDepth(buf: Buffer): number {
  let max = 0;
  for (const line of buf.toString("utf8").split("\n")) {
    try {
      max = Math.max(max, jsonDepth(JSON.parse(line.replace(/^\ufeff/, ""))));
    } catch {
      // not JSON: contributes nothing
    }
  }
  return max;
}

export type ProblemKind =
  | "timeout"
  | "signal"
  | "exit-code"
  | "stack-trace"
  | "internal-error"
  | "stderr-control"
  | "json-parse"
  | "json-depth"
  | "ndjson-parse"
  | "ndjson-depth"
  | "json-empty"
  | "json-surrogate"
  | "stdout-control"
  | "leftover"
  | "input-changed";

export interface Problem {
  kind: ProblemKind;
  detail: string;
}

export const DEPTH_LIMIT = 64;
/** Levels pisess may wrap around content it echoes verbatim (document → list → item → entry → …). */
const ECHO_SLACK = 8;

const STACK_LINE = /^\s+at (?:async )?\S.*(?::\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;
// C0 (but tab and newline), DEL, C1, bidi embeddings/overrides/isolates: none should reach a terminal raw.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

function escapeText(s: string): string {
  return JSON.stringify(s.length > 300 ? `${s.slice(0, 300)}…` : s);
}

export function outputMode(argv: readonly string[]): { json: boolean; ndjson: boolean; text: boolean } {
  const fi = argv.findIndex((a) => a === "-f" || a === "--format");
  const fmt = fi !== -1 ? argv[fi + 1] : undefined;
  const vfmt = argv[0] === "validate" ? fmt : undefined;
  const exportJsonl = argv[0] === "export" && fmt === "jsonl" && !argv.includes("-o");
  const json = argv.includes("--json") || vfmt === "json" || vfmt === "sarif";
  const ndjson = argv.includes("--ndjson") || vfmt === "ndjson" || exportJsonl;
  // Formats meant for files or other programs, not a terminal: they carry content as it is.
  const data = argv[0] === "export" || argv[0] === "tables" || argv[0] === "schema" || argv.includes("--raw") || argv.includes("--csv");
  return { json, ndjson, text: !json && !ndjson && !data };
}

/**
 * A `\uD800`-style escape of a lone surrogate in JSON text: valid JSON, but jq 1.6 (and any strict UTF-8 reader)
 * rejects the whole document. Only escapes count whose backslash is not itself escaped.
 */
export function loneSurrogateEscape(json: string): string | null {
  const re = /\\u(d[89ab][0-9a-f]{2})(\\u(d[c-f][0-9a-f]{2}))?|\\u(d[c-f][0-9a-f]{2})/gi;
  for (let m = re.exec(json); m; m = re.exec(json)) {
    let slashes = 0;
    for (let i = m.index - 1; i >= 0 && json[i] === "\\"; i--) slashes++;
    if (slashes % 2 === 1) continue;
    if (m[4] !== undefined || m[2] === undefined) return m[0];
  }
  return null;
}

/** Every invariant that holds for any input; `allowedDepth` accounts for deep content in the input. */
export function checkResult(argv: readonly string[], res: ProcResult, allowedDepth: number): Problem[] {
  const ps: Problem[] = [];
  if (res.timedOut) return [{ kind: "timeout", detail: `no exit after ${res.ms} ms` }];
  if (res.code === null) return [{ kind: "signal", detail: `killed by ${res.signal ?? "?"}` }];
  if (res.code !== 0 && res.code !== 1 && res.code !== 2) ps.push({ kind: "exit-code", detail: `exit ${res.code}` });
  const stderr = res.stderr.toString("utf8");
  const firstErr = stderr.split("\n").find((l) => l.trim() !== "") ?? "";
  if (STACK_LINE.test(stderr) || stderr.includes("node:internal")) ps.push({ kind: "stack-trace", detail: escapeText(firstErr) });
  if (stderr.includes("(run with --debug for details)")) ps.push({ kind: "internal-error", detail: escapeText(firstErr) });
  const ctl = CONTROL.exec(stderr);
  if (ctl) {
    const lineStart = stderr.lastIndexOf("\n", ctl.index) + 1;
    const line = stderr.slice(lineStart, stderr.indexOf("\n", ctl.index) === -1 ? undefined : stderr.indexOf("\n", ctl.index));
    ps.push({ kind: "stderr-control", detail: `U+${(ctl[0].codePointAt(0) ?? 0).toString(16).padStart(4, "0")} in ${escapeText(line)}` });
  }
  const mode = outputMode(argv);
  const stdout = res.stdout.toString("utf8");
  if (mode.text) {
    const c = CONTROL.exec(stdout);
    if (c) {
      const from = Math.max(0, c.index - 40);
      ps.push({
        kind: "stdout-control",
        detail: `U+${(c[0].codePointAt(0) ?? 0).toString(16).padStart(4, "0")} in ${escapeText(stdout.slice(from, c.index + 40))}`,
      });
    }
  } else if (mode.json || mode.ndjson) {
    const lone = loneSurrogateEscape(stdout);
    if (lone) ps.push({ kind: "json-surrogate", detail: `${lone} in the output` });
  }
  if (mode.json && !mode.ndjson) {
    if (stdout.trim() === "") {
      // Exit 1 with a message (a path into a parent cycle) documents why there is no document; silence does not.
      if (res.code === 0 || (res.code === 1 && stderr.trim() === ""))
        ps.push({ kind: "json-empty", detail: `exit ${res.code} with nothing on stdout or stderr` });
    } else {
      try {
        const d = jsonDepth(JSON.parse(stdout));
        if (d > allowedDepth) ps.push({ kind: "json-depth", detail: `depth ${d} > ${allowedDepth}` });
      } catch (e) {
        ps.push({ kind: "json-parse", detail: `${(e as Error).message} in ${escapeText(stdout.slice(0, 120))}` });
      }
    }
  } else if (mode.ndjson && !mode.json) {
    const lines = stdout.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    let worst = 0;
    for (const [i, l] of lines.entries()) {
      try {
        worst = Math.max(worst, jsonDepth(JSON.parse(l)));
      } catch (e) {
        ps.push({ kind: "ndjson-parse", detail: `line ${i + 1}: ${(e as Error).message} in ${escapeText(l.slice(0, 120))}` });
        break;
      }
    }
    if (worst > allowedDepth) ps.push({ kind: "ndjson-depth", detail: `depth ${worst} > ${allowedDepth}` });
  }
  // A crash half-way through printing leaves invalid JSON behind: one defect, reported as the crash.
  const crash = ps.find((p) => p.kind === "internal-error" || p.kind === "stack-trace");
  if (crash) {
    const cut = ps.findIndex((p) => p.kind === "json-parse" || p.kind === "ndjson-parse");
    if (cut !== -1) {
      crash.detail += " (stdout left as invalid JSON)";
      ps.splice(cut, 1);
    }
  }
  return ps;
}

export function allowedDepthFor(input: Buffer): number {
  return Math.max(DEPTH_LIMIT, inputDepth(input) + ECHO_SLACK);
}

export interface Fingerprint {
  sha256: string;
  mtimeMs: number;
  size: number;
}

export function fingerprint(path: string): Fingerprint {
  const st = statSync(path);
  return { sha256: createHash("sha256").update(readFileSync(path)).digest("hex"), mtimeMs: st.mtimeMs, size: st.size };
}

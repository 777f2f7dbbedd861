import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./helpers.js";

/**
 * The CLI servers of test/cli-server.mjs, for tests that run the built CLI many times: the README examples (through
 * a `pisess` shell script on PATH) and the fuzz short run (through `run`). Each run is the bundle's main() in a
 * long-lived Node process, in its own working directory, environment and stdin: what the binary does after Node has
 * started. What only a fresh process shows (start-up, module loading, the exit status of a closed pipe, a real TTY)
 * is tested by spawning the binary (helpers.ts spawnCli and the files that spawn it).
 */
export interface CliServers {
  /** A folder with an executable `pisess` that hands its run to a server (put it first on PATH). */
  bin: string;
  /** Bash source that defines `pisess` as a shell function, for a shell that runs it without a process. */
  shell: string;
  /** What the `pisess` script and function need in their environment. */
  env: Record<string, string>;
  /** Runs the CLI once in a server; a run past `timeoutMs` kills that server (a new one takes its place). */
  run(args: string[], opts: ServerRunOptions): Promise<ServerRunResult>;
  close(): Promise<void>;
}

export interface ServerRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: Buffer;
  timeoutMs: number;
}

export interface ServerRunResult {
  code: number | null;
  timedOut: boolean;
  ms: number;
  stdout: Buffer;
  stderr: Buffer;
}

// Bash, so that no process starts per run but what the caller's shell already is: `pisess` is a shell function
// (FUNCTION), run in the example's own shell, and the `pisess` script on PATH (SCRIPT) is that function for anything
// that executes a program by name. Only builtins run in a call: the request goes out with printf over /dev/tcp (the
// environment: compgen's exported names, what a program started here would be given, through a file, not a command
// substitution, which forks), and the output comes back in the server's files, read whole by `read -d ''` and
// written by printf; a file holding a NUL byte (where read stops) is copied by `cat` instead. A closed stdout (a
// reader that left early) ends no more than that copy: the call still returns the run's status, as the binary's
// own handling of EPIPE does and a `cat` killed by SIGPIPE did. Only a run that reads stdin (-) has the shell copy
// it to a file first (mktemp, cat), so that a pipeline of two runs cannot wait on each other in one server.
const FUNCTION = `pisess() {
  local input= a code= out= err= base= names n fields env=$PISESS_SERVER_TMP/env.$BASHPID
  for a in "$@"; do
    if [ "$a" = -- ]; then break; fi
    if [ "$a" = - ]; then input=$(mktemp "$PISESS_SERVER_TMP/stdin.XXXXXX") && cat >"$input" || return 2; break; fi
  done
  compgen -e >"$env"
  mapfile -t names <"$env"
  fields=("$PWD" "$input" "$#" "$@")
  for n in "\${names[@]}"; do fields+=("$n=\${!n}"); done
  fields+=("")
  local ports=($PISESS_SERVER_PORTS)
  {
    printf '%s\\0' "\${fields[@]}" >&3
    IFS=' ' read -r code out err base <&3
    if [ "\${out:-0}" != 0 ]; then __pisess_copy "$base.out"; fi
    if [ "\${err:-0}" != 0 ]; then __pisess_copy "$base.err" >&2; fi
  } 3<>"/dev/tcp/127.0.0.1/\${ports[RANDOM % \${#ports[@]}]}"
  return "\${code:-2}"
}
__pisess_copy() {
  local text
  if IFS= read -r -d '' text <"$1"; then cat "$1"; return; fi
  trap '' PIPE
  printf '%s' "$text" 2>/dev/null
  trap - PIPE
}
`;

const SCRIPT = `#!/usr/bin/env bash
${FUNCTION}pisess "$@"
`;

interface Server {
  child: ChildProcess;
  port: number;
  busy: boolean;
}

function startOne(tmp: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "test", "support", "cli-server.mjs"), tmp], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (d: string) => {
      out += d;
      const end = out.indexOf("\n");
      if (end >= 0) resolve({ child, port: Number(out.slice(0, end)), busy: false });
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`cli-server exited (${code}) before it listened`)));
  });
}

/** Sends one request to a server; resolves with what the run wrote and its exit status (null: no answer). */
function ask(port: number, request: Buffer, timeoutMs: number): Promise<{ code: number; stdout: Buffer; stderr: Buffer } | null> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    let done = false;
    const finish = (r: { code: number; stdout: Buffer; stderr: Buffer } | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // The server deletes the run's files when the connection closes.
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      answer += d;
      const m = /^(\d+) (\d+) (\d+) (.*)\n$/.exec(answer);
      if (m) {
        const read = (size: string | undefined, end: string) => (size === "0" ? Buffer.alloc(0) : readFileSync(`${m[4]}${end}`));
        finish({ code: Number(m[1]), stdout: read(m[2], ".out"), stderr: read(m[3], ".err") });
      }
    });
    socket.on("error", () => undefined);
    socket.on("close", () => finish(null));
    socket.write(request);
  });
}

/** A request as the server reads it (cli-server.mjs): fields ended by NUL. */
function request(args: string[], cwd: string, stdinPath: string, env: [string, string][]): Buffer {
  const fields = [cwd, stdinPath, String(args.length), ...args, ...env.map(([k, v]) => `${k}=${v}`), ""];
  return Buffer.from(fields.map((f) => `${f}\0`).join(""), "utf8");
}

/** Starts `count` servers (runs go one at a time in each) and writes the `pisess` script. */
export async function startCliServers(count: number): Promise<CliServers> {
  const home = mkdtempSync(join(tmpdir(), "pisess-cli-server-"));
  const bin = join(home, "bin");
  const tmp = join(home, "runs");
  mkdirSync(bin);
  mkdirSync(tmp);
  writeFileSync(join(bin, "pisess"), SCRIPT);
  chmodSync(join(bin, "pisess"), 0o755);
  const servers = await Promise.all(Array.from({ length: count }, () => startOne(tmp)));
  const waiting: Array<(s: Server) => void> = [];
  const acquire = (): Promise<Server> => {
    const idle = servers.find((s) => !s.busy);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (s: Server): void => {
    const next = waiting.shift();
    if (next) next(s);
    else s.busy = false;
  };
  let serial = 0;
  return {
    bin,
    shell: FUNCTION,
    env: { PISESS_SERVER_TMP: tmp, PISESS_SERVER_PORTS: servers.map((s) => s.port).join(" ") },
    async run(args, opts) {
      const env = Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined);
      let stdinPath = "";
      if (opts.input !== undefined) {
        stdinPath = join(tmp, `node-${serial++}.stdin`);
        writeFileSync(stdinPath, opts.input);
      }
      let server = await acquire();
      const t0 = Date.now();
      try {
        const r = await ask(server.port, request(args, opts.cwd, stdinPath, env), opts.timeoutMs);
        const ms = Date.now() - t0;
        if (r === null) {
          // Hung (or died): this server is gone; a fresh one serves the next run.
          server.child.kill("SIGKILL");
          const fresh = await startOne(tmp);
          servers[servers.indexOf(server)] = fresh;
          server = fresh;
          return { code: null, timedOut: ms >= opts.timeoutMs, ms, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
        }
        return { ...r, timedOut: false, ms };
      } finally {
        release(server);
        if (stdinPath !== "") rmSync(stdinPath, { force: true });
      }
    },
    async close() {
      for (const s of servers) s.child.kill();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

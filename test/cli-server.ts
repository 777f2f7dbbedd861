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
  /** What the `pisess` script needs in its environment. */
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

// Bash, so that no process starts per run but bash itself: the request goes out with builtins (printf over
// /dev/tcp; the environment from compgen), the output comes back in the server's files, copied by `cat` only when
// not empty. Only a run that reads stdin (-) has the shell copy it to a file first (mktemp, cat), so that a
// pipeline of two runs cannot wait on each other in one server.
const SCRIPT = `#!/usr/bin/env bash
in=
for a in "$@"; do
  if [ "$a" = -- ]; then break; fi
  if [ "$a" = - ]; then in=$(mktemp "$PISESS_SERVER_TMP/stdin.XXXXXX") && cat >"$in" || exit 2; break; fi
done
ports=($PISESS_SERVER_PORTS)
exec 3<>"/dev/tcp/127.0.0.1/\${ports[RANDOM % \${#ports[@]}]}" || exit 2
{
  printf '%s\\0' "$PWD" "$in" "$#" "$@"
  for n in $(compgen -e); do printf '%s=%s\\0' "$n" "\${!n}"; done
  printf '\\0'
} >&3
IFS=' ' read -r code out err dir <&3
if [ "\${out:-0}" != 0 ]; then cat "$dir/stdout"; fi
if [ "\${err:-0}" != 0 ]; then cat "$dir/stderr" >&2; fi
exit "\${code:-2}"
`;

interface Server {
  child: ChildProcess;
  port: number;
  busy: boolean;
}

function startOne(tmp: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "test", "cli-server.mjs"), tmp], { stdio: ["pipe", "pipe", "inherit"] });
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
      // The server deletes the run's folder when the connection closes.
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      answer += d;
      const m = /^(\d+) \d+ \d+ (.*)\n$/.exec(answer);
      if (m) {
        const dir = m[2] as string;
        finish({ code: Number(m[1]), stdout: readFileSync(join(dir, "stdout")), stderr: readFileSync(join(dir, "stderr")) });
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

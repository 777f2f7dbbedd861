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

// Bash, so that no Node process starts per run: the request folder's files, then one line over /dev/tcp.
const SCRIPT = `#!/usr/bin/env bash
d=$(mktemp -d "$PISESS_SERVER_TMP/run.XXXXXX") || exit 2
printf '%s\\0' "$@" >"$d/args"
printf '%s' "$PWD" >"$d/cwd"
env -0 >"$d/env"
for a in "$@"; do
  if [ "$a" = -- ]; then break; fi
  if [ "$a" = - ]; then cat >"$d/stdin"; break; fi
done
ports=($PISESS_SERVER_PORTS)
exec 3<>"/dev/tcp/127.0.0.1/\${ports[RANDOM % \${#ports[@]}]}" || exit 2
printf '%s\\n' "$d" >&3
IFS= read -r code <&3
exec 3>&-
cat "$d/stdout"
cat "$d/stderr" >&2
rm -rf "$d"
exit "\${code:-2}"
`;

interface Server {
  child: ChildProcess;
  port: number;
  busy: boolean;
}

function startOne(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "test", "cli-server.mjs")], { stdio: ["pipe", "pipe", "inherit"] });
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

/** Sends one request folder to a server; resolves with the exit status it answers (null: no answer). */
function ask(port: number, dir: string, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(null);
    }, timeoutMs);
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      answer += d;
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(/^\d+\n$/.test(answer) ? Number(answer) : null);
    });
    socket.write(`${dir}\n`);
  });
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
  const servers = await Promise.all(Array.from({ length: count }, startOne));
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
      const dir = join(tmp, `node-${serial++}`);
      mkdirSync(dir);
      const env = Object.entries(opts.env).filter(([, v]) => v !== undefined);
      writeFileSync(join(dir, "args"), args.map((a) => `${a}\0`).join(""));
      writeFileSync(join(dir, "cwd"), opts.cwd);
      writeFileSync(join(dir, "env"), env.map(([k, v]) => `${k}=${v}\0`).join(""));
      if (opts.input !== undefined) writeFileSync(join(dir, "stdin"), opts.input);
      let server = await acquire();
      const t0 = Date.now();
      try {
        const code = await ask(server.port, dir, opts.timeoutMs);
        const ms = Date.now() - t0;
        if (code === null) {
          // Hung (or died): this server is gone; a fresh one serves the next run.
          server.child.kill("SIGKILL");
          const fresh = await startOne();
          servers[servers.indexOf(server)] = fresh;
          server = fresh;
          return { code: null, timedOut: ms >= opts.timeoutMs, ms, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
        }
        return { code, timedOut: false, ms, stdout: readFileSync(join(dir, "stdout")), stderr: readFileSync(join(dir, "stderr")) };
      } finally {
        release(server);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async close() {
      for (const s of servers) s.child.kill();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

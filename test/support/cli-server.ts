import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** Starts `count` servers (runs go one at a time in each). */
export async function startCliServers(count: number): Promise<CliServers> {
  const home = mkdtempSync(join(tmpdir(), "pisess-cli-server-"));
  const tmp = join(home, "runs");
  mkdirSync(tmp);
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

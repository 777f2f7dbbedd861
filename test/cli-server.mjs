// One Node process that runs the built CLI (dist/bundle/cli.cjs, the code bin/pisess.js loads) once per request, so
// a test that runs the CLI many times from a shell (the README examples) or from a fuzz loop pays Node's start-up
// once instead of once per run. Runs go one at a time (the exit status and streams of a run are process-wide), each
// in the working directory, environment and stdin its request names, through the CLI's I/O seam (withRunIo).
//
// A request is one line on a TCP connection to 127.0.0.1: the path of a folder that holds `args` (the arguments,
// each ended by NUL), `cwd`, `env` (NAME=VALUE entries ended by NUL, as `env -0` writes them) and, for a run that
// reads stdin, `stdin`. The server writes `stdout` and `stderr` there and answers with the exit status and a newline.
// test/cli-server.ts starts it and holds both clients (the `pisess` shell script and a Node function).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { main, withRunIo } from "../dist/bundle/cli.cjs";

const BIN = fileURLToPath(new URL("../bin/pisess.js", import.meta.url));

/** yargs prints help, the version and the completion script itself (console.log): those runs get a process. */
function onlyAProcessShows(args) {
  const dash = args.indexOf("--");
  const before = dash < 0 ? args : args.slice(0, dash);
  return args[0] === "completion" || before.some((a) => ["--help", "-h", "--version", "-v"].includes(a));
}

/** Output kept as written: a capture never pushes back, and is not a terminal. */
class Capture extends Writable {
  isTTY = false;
  chunks = [];
  constructor() {
    super({ decodeStrings: false, highWaterMark: 1 << 30 });
  }
  _write(chunk, _enc, done) {
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    done();
  }
}

const fields = (path) => {
  const parts = readFileSync(path, "utf8").split("\0");
  parts.pop();
  return parts;
};

async function run(dir) {
  const args = fields(join(dir, "args"));
  const cwd = readFileSync(join(dir, "cwd"), "utf8");
  const env = {};
  for (const kv of fields(join(dir, "env"))) {
    const eq = kv.indexOf("=");
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const stdinPath = join(dir, "stdin");
  const input = existsSync(stdinPath) ? readFileSync(stdinPath) : Buffer.alloc(0);
  const stdin = new Readable({
    read() {
      if (input.length > 0) this.push(input);
      this.push(null);
    },
  });
  if (onlyAProcessShows(args)) {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, input, maxBuffer: 1 << 30 });
    writeFileSync(join(dir, "stdout"), r.stdout);
    writeFileSync(join(dir, "stderr"), r.stderr);
    return r.status ?? 70;
  }
  const stdout = new Capture();
  const stderr = new Capture();
  process.chdir(cwd);
  let code;
  try {
    code = await withRunIo({ stdin, stdout, stderr, env, cwd: () => cwd }, () => main(args));
  } catch (err) {
    // main() answers every failure itself; anything that escapes is the server's own defect, shown as such.
    stderr.chunks.push(Buffer.from(`cli-server: ${err?.stack ?? err}\n`));
    code = 70;
  }
  writeFileSync(join(dir, "stdout"), Buffer.concat(stdout.chunks));
  writeFileSync(join(dir, "stderr"), Buffer.concat(stderr.chunks));
  return code;
}

let queue = Promise.resolve();
const server = createServer((socket) => {
  let line = "";
  socket.setEncoding("utf8");
  socket.on("error", () => undefined);
  socket.on("data", (data) => {
    line += data;
    const end = line.indexOf("\n");
    if (end < 0) return;
    const dir = line.slice(0, end);
    line = "";
    queue = queue.then(async () => {
      const code = await run(dir);
      socket.end(`${code}\n`);
    });
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
// The test that started this server holds its stdin: when that process ends, however it ends, so does the server.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();

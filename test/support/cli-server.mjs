// One Node process that runs the built CLI (dist/bundle/cli.cjs, loaded as bin/pisess.js loads it) once per
// request, so a test that runs the CLI many times (the snapshot scenarios, the fuzz loop) pays Node's
// start-up once instead of once per run. Runs go one at a time (the exit status and streams of a run are
// process-wide), each in the working directory, environment and stdin its request names, through the CLI's I/O seam
// (withRunIo).
//
// A request comes on a TCP connection to 127.0.0.1 as fields each ended by NUL: the working directory, the file
// that holds stdin ("" for none; the server deletes it), the number of arguments, the arguments, NAME=VALUE
// entries of the environment, and an empty field. The server writes stdout and stderr into files of its own (in the
// folder named by its first argument) and answers one line: the exit status, the two sizes and the files' path
// without its ending (`.out`, `.err`: each written only when not empty). It deletes them when the client closes the
// connection. test/support/cli-server.ts starts it and holds the client.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/pisess.js", import.meta.url));
// The bundle as bin/pisess.js loads it: each file compiled with the V8 code cache the build made for it.
const { main, withRunIo } = createRequire(import.meta.url)(BIN).bundleLoader().load("cli.cjs");

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

const TMP = process.argv[2];

/** The request in `data`, or null while it is incomplete (no empty field after the environment yet). */
function parseRequest(data) {
  const fields = [];
  for (let at = 0; ; ) {
    const end = data.indexOf(0, at);
    if (end < 0) return null;
    fields.push(data.toString("utf8", at, end));
    at = end + 1;
    if (fields.length > 3 && fields.length > 3 + Number(fields[2]) && fields[fields.length - 1] === "") break;
  }
  const [cwd, stdinPath, count] = fields;
  const args = fields.slice(3, 3 + Number(count));
  const env = {};
  for (const kv of fields.slice(3 + args.length, -1)) {
    const eq = kv.indexOf("=");
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return { cwd, stdinPath, args, env };
}

/** One run of the CLI: its exit status and what it wrote. */
async function run({ cwd, stdinPath, args, env }) {
  let input = Buffer.alloc(0);
  if (stdinPath !== "") {
    input = readFileSync(stdinPath);
    unlinkSync(stdinPath);
  }
  const stdin = new Readable({
    read() {
      if (input.length > 0) this.push(input);
      this.push(null);
    },
  });
  if (onlyAProcessShows(args)) {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, input, maxBuffer: 1 << 30 });
    return { code: r.status ?? 70, stdout: r.stdout, stderr: r.stderr };
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
  return { code, stdout: Buffer.concat(stdout.chunks), stderr: Buffer.concat(stderr.chunks) };
}

let queue = Promise.resolve();
let serial = 0;
const server = createServer((socket) => {
  let data = Buffer.alloc(0);
  let base = null;
  socket.on("error", () => undefined);
  socket.on("close", () => {
    if (base !== null) for (const end of [".out", ".err"]) rmSync(base + end, { force: true });
  });
  socket.on("data", (chunk) => {
    if (base !== null) return;
    data = Buffer.concat([data, chunk]);
    const request = parseRequest(data);
    if (request === null) return;
    // Files, not a folder per run: removing a folder cost more than the rest of a small run's bookkeeping.
    base = join(TMP, `run-${process.pid}-${serial++}`);
    const mine = base;
    queue = queue.then(async () => {
      const r = await run(request);
      // A client gone (killed on a timeout) took its files with it.
      if (socket.destroyed) return;
      if (r.stdout.length > 0) writeFileSync(`${mine}.out`, r.stdout);
      if (r.stderr.length > 0) writeFileSync(`${mine}.err`, r.stderr);
      socket.write(`${r.code} ${r.stdout.length} ${r.stderr.length} ${mine}\n`);
    }).catch(() => socket.destroy());
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
// The test that started this server holds its stdin: when that process ends, however it ends, so does the server.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();

#!/usr/bin/env node
// The bloat benchmark row: `pisess bloat` on a generated session with images must stay within the peak memory of
// `pisess tree` on the same file.
//   node bench/bloat-row.mjs [--mb 1000] [--runs 3] [--keep] [--no-write]
// Generates FILE (streamed; a chain of turns with base64 images, long tool outputs and a side branch every 50
// turns), times both commands with GNU time, prints the rows and appends them to bench/RESULTS.md unless --no-write.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : process.argv[i + 1];
};
const MB = Number(arg("mb", "1000"));
const RUNS = Number(arg("runs", "3"));
const file = path.join(os.tmpdir(), `pisess-bloat-${MB}M.jsonl`);

const T0 = Date.UTC(2025, 6, 1, 12, 0, 0);
const id = (i) => (0x20000000 + i).toString(16);
const b64 = (n, seed) => {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + seed * 7) & 255;
  return b.toString("base64");
};

function generate() {
  const fd = fs.openSync(file, "w");
  let bytes = 0;
  const write = (o) => {
    bytes += fs.writeSync(fd, `${JSON.stringify(o)}\n`);
  };
  write({ type: "session", version: 3, id: "0197b000-0000-7000-8000-000000000001", timestamp: new Date(T0).toISOString(), cwd: "/home/dev/bench" });
  const image = b64(300_000, 1);
  const output = "x".repeat(40_000);
  let i = 0;
  let parent = null;
  const entry = (fields) => {
    const e = { ...fields, id: id(i), parentId: fields.parentId === undefined ? parent : fields.parentId, timestamp: new Date(T0 + i * 1000).toISOString() };
    write(e);
    if (fields.parentId === undefined) parent = e.id;
    i++;
    return e.id;
  };
  for (let turn = 0; bytes < MB * 1e6; turn++) {
    const ts = T0 + i * 1000;
    entry({ type: "message", message: { role: "user", content: [{ type: "text", text: `turn ${turn}` }, { type: "image", data: image, mimeType: "image/png" }], timestamp: ts } });
    entry({
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Let me look.", thinkingSignature: "c2ln".repeat(200) },
          { type: "toolCall", id: `call${turn}`, name: "read", arguments: { path: `src/f${turn}.ts` } },
        ],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: { input: 1000, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 1050, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        stopReason: "toolUse",
        timestamp: ts,
      },
    });
    entry({ type: "message", message: { role: "toolResult", toolCallId: `call${turn}`, toolName: "read", content: [{ type: "text", text: output }], isError: false, timestamp: ts } });
    if (turn % 50 === 49) entry({ type: "message", parentId: id(i - 2), message: { role: "user", content: "a side branch", timestamp: ts } });
  }
  fs.closeSync(fd);
  return bytes;
}

function timed(args) {
  const out = path.join(os.tmpdir(), `pisess-bloat-time-${process.pid}.txt`);
  const devnull = fs.openSync("/dev/null", "w");
  const t0 = process.hrtime.bigint();
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", "-o", out, process.execPath, path.join(root, "bin", "pisess.js"), ...args], {
    stdio: ["ignore", devnull, "pipe"],
    encoding: "utf8",
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const [, , , m] = fs.readFileSync(out, "utf8").trim().split("\n").pop().split(/\s+/).map(Number);
  fs.rmSync(out, { force: true });
  return { wall, rssMb: m / 1024, status: r.status, stderr: r.stderr.slice(-300) };
}

if (!fs.existsSync(file) || fs.statSync(file).size < MB * 1e6) {
  console.error(`generating ${file} …`);
  generate();
}
const size = fs.statSync(file).size;
const tasks = [
  ["pisess tree --json", ["tree", "--json", file]],
  ["pisess bloat --json", ["bloat", "--json", file]],
];
const results = new Map(tasks.map(([name]) => [name, []]));
for (let run = 0; run < RUNS; run++) {
  for (const [name, args] of tasks) {
    const r = timed(args);
    if (r.status !== 0) throw new Error(`${name}: exit ${r.status}: ${r.stderr}`);
    console.error(`run ${run + 1} ${name}: ${r.wall.toFixed(2)} s, ${r.rssMb.toFixed(0)} MB`);
    results.get(name).push(r);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let rows = "";
const peak = {};
for (const [name, rs] of results) {
  peak[name] = Math.max(...rs.map((r) => r.rssMb));
  rows += `| ${(size / 1e6).toFixed(0)} MB with images | ${name} | ${median(rs.map((r) => r.wall)).toFixed(2)} | ${peak[name].toFixed(0)} | ok (${rs.length} runs) |\n`;
}
// "Within": bloat's peak RSS at most tree's. The streaming pass allocates nothing per line (src/ops/json-bytes.ts);
// what is left is a constant: its own read buffer (up to the longest line, 1 MB here) and the optimised code of the
// walk. Shown as the difference, with the check against tree's peak itself.
const delta = peak["pisess bloat --json"] - peak["pisess tree --json"];
const ok = delta <= 0;
const md = `\n## bloat (bench/bloat-row.mjs, ${new Date().toISOString().slice(0, 10)})\n\n| file | task | wall s (median) | peak RSS MB | status |\n|---|---|---:|---:|---|\n${rows}\n- ${ok ? "✅" : "❌"} bloat's peak RSS within tree's on the same file: ${peak["pisess bloat --json"].toFixed(0)} MB vs ${peak["pisess tree --json"].toFixed(0)} MB (${delta >= 0 ? "+" : ""}${delta.toFixed(1)} MB)\n`;
process.stdout.write(md);
if (!process.argv.includes("--no-write")) fs.appendFileSync(path.join(here, "RESULTS.md"), md);
if (!process.argv.includes("--keep")) fs.rmSync(file);

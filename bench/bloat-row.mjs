#!/usr/bin/env node
// The bloat benchmark row: `pisess bloat` on a generated session with images must stay within the peak memory of
// `pisess tree` on the same file.
//   node bench/bloat-row.mjs [--mb 1000] [--runs 8] [--keep] [--no-write | --out FILE]
// Generates FILE (streamed; a chain of turns with base64 images, long tool outputs and a side branch every 50
// turns), times both commands with GNU time, interleaved, prints the rows and appends them to bench/RESULTS.md (or
// to FILE with --out; nowhere with --no-write).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
// Measured processes start without a CA bundle to parse (bench/run.mjs says why).
delete process.env.NODE_EXTRA_CA_CERTS;

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : process.argv[i + 1];
};
const MB = Number(arg("mb", "1000"));
const RUNS = Number(arg("runs", "8"));
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
  write({
    type: "session",
    version: 3,
    id: "0197b000-0000-7000-8000-000000000001",
    timestamp: new Date(T0).toISOString(),
    cwd: "/home/dev/bench",
  });
  const image = b64(300_000, 1);
  const output = "x".repeat(40_000);
  let i = 0;
  let parent = null;
  const entry = (fields) => {
    const e = {
      ...fields,
      id: id(i),
      parentId: fields.parentId === undefined ? parent : fields.parentId,
      timestamp: new Date(T0 + i * 1000).toISOString(),
    };
    write(e);
    if (fields.parentId === undefined) parent = e.id;
    i++;
    return e.id;
  };
  for (let turn = 0; bytes < MB * 1e6; turn++) {
    const ts = T0 + i * 1000;
    entry({
      type: "message",
      message: {
        role: "user",
        content: [
          { type: "text", text: `turn ${turn}` },
          { type: "image", data: image, mimeType: "image/png" },
        ],
        timestamp: ts,
      },
    });
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
        usage: {
          input: 1000,
          output: 50,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 1050,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: "toolUse",
        timestamp: ts,
      },
    });
    entry({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: `call${turn}`,
        toolName: "read",
        content: [{ type: "text", text: output }],
        isError: false,
        timestamp: ts,
      },
    });
    if (turn % 50 === 49)
      entry({ type: "message", parentId: id(i - 2), message: { role: "user", content: "a side branch", timestamp: ts } });
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
const loadStart = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" / ");
for (let run = 0; run < RUNS; run++) {
  for (const [name, args] of tasks) {
    const r = timed(args);
    if (r.status !== 0) throw new Error(`${name}: exit ${r.status}: ${r.stderr}`);
    console.error(`run ${run + 1} ${name}: ${r.wall.toFixed(2)} s, ${r.rssMb.toFixed(0)} MB`);
    results.get(name).push(r);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const range = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
let rows = "";
for (const [name, rs] of results) {
  const rss = rs.map((r) => r.rssMb);
  rows += `| ${(size / 1e6).toFixed(0)} MB with images | ${name} | ${median(rs.map((r) => r.wall)).toFixed(2)} | ${median(rss).toFixed(1)} | ${range(rss)} | ok (${rs.length} runs) |\n`;
}
// "Within": bloat's peak RSS at most tree's, run by run (each pair ran back to back, so load drifts cancel), and
// over all runs (bloat's largest at most tree's smallest would leave no doubt).
const tree = results.get("pisess tree --json").map((r) => r.rssMb);
const bloat = results.get("pisess bloat --json").map((r) => r.rssMb);
const deltas = bloat.map((b, i) => b - tree[i]);
const sign = (d) => `${d >= 0 ? "+" : ""}${d.toFixed(1)}`;
const ok = Math.max(...deltas) <= 0;
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" / ");
const md = `\n## bloat (bench/bloat-row.mjs, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC)\n\n| file | task | wall s (median) | peak RSS MB (median) | peak RSS MB (range) | status |\n|---|---|---:|---:|---:|---|\n${rows}\n- ${ok ? "✅" : "❌"} bloat's peak RSS within tree's on the same file, run by run: bloat − tree median ${sign(median(deltas))} MB (${deltas.map(sign).join(", ")}); bloat's largest ${Math.max(...bloat).toFixed(1)} MB, tree's smallest ${Math.min(...tree).toFixed(1)} MB\n- load average ${loadStart} at the start, ${load} at the end\n`;
process.stdout.write(md);
const out = arg("out", null);
if (out) fs.appendFileSync(out, md);
else if (!process.argv.includes("--no-write")) fs.appendFileSync(path.join(here, "RESULTS.md"), md);
if (!process.argv.includes("--keep")) fs.rmSync(file);

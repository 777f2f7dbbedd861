#!/usr/bin/env node
// Fleet benchmark: generates N sessions (about SIZE bytes in all, 10% of them forks that copy part of a parent,
// some in nested subagent folders), then times `pisess usage --by day,model` and `pisess tables --format ndjson`
// (whole processes; wall time and peak RSS from /usr/bin/time when present).
//
//   node bench/fleet.mjs                            10,000 sessions, 2 GB (the size; needs ~2 GB of disk)
//   node bench/fleet.mjs --sessions 500 --size 100M a quick run
//   options: --sessions N  --size BYTES(K/M/G)  --data DIR (kept between runs when the shape matches)  --no-tables
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, "..", "bin", "pisess.js");
const argv = process.argv.slice(2);
const opt = { sessions: "10000", size: "2G", data: path.join(os.tmpdir(), "pisess-bench-fleet") };
const flags = new Set();
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--no-tables") flags.add("no-tables");
  else if (a.startsWith("--")) opt[a.slice(2)] = argv[++i];
}
const N = Number(opt.sessions);
const units = { K: 1e3, M: 1e6, G: 1e9 };
const SIZE = Number.parseFloat(opt.size) * (units[opt.size.slice(-1).toUpperCase()] ?? 1);

// Deterministic pseudo-random numbers (mulberry32).
let seed = 7;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

function generate(dir) {
  const marker = path.join(dir, ".shape");
  const shape = `${N} ${SIZE}`;
  if (fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === shape) return;
  fs.rmSync(dir, { recursive: true, force: true });
  const perSession = SIZE / N;
  const filler = "x".repeat(2000);
  const written = [];
  let t0 = Date.UTC(2026, 0, 1);
  for (let s = 0; s < N; s++) {
    const project = `--home-dev-p${s % 40}--`;
    const nested = s % 17 === 0 ? path.join(`sub-${s}`, "subagents") : "";
    const folder = path.join(dir, project, nested);
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `s${s}.jsonl`);
    const fork = s > 20 && rnd() < 0.1 ? written[Math.floor(rnd() * written.length)] : undefined;
    const header = { type: "session", version: 3, id: `00000000-0000-4000-8000-${String(s).padStart(12, "0")}`, timestamp: new Date(t0).toISOString(), cwd: `/home/dev/p${s % 40}` };
    if (fork) header.parentSession = fork.file;
    const lines = [JSON.stringify(header)];
    let bytes = 0;
    let parent = null;
    if (fork) {
      const keep = fork.lines.slice(1, 1 + Math.floor((fork.lines.length - 1) * rnd()));
      for (const l of keep) {
        lines.push(l);
        bytes += l.length;
      }
      if (keep.length > 0) parent = JSON.parse(keep[keep.length - 1]).id;
    }
    let i = 0;
    while (bytes < perSession) {
      t0 += 1000 + Math.floor(rnd() * 60_000);
      const id = `${s.toString(36)}-${i++}`;
      const ts = new Date(t0).toISOString();
      const e =
        i % 2 === 1
          ? { type: "message", id, parentId: parent, timestamp: ts, message: { role: "user", content: filler, timestamp: t0 } }
          : {
              type: "message",
              id,
              parentId: parent,
              timestamp: ts,
              message: {
                role: "assistant",
                content: [{ type: "text", text: filler }],
                provider: "anthropic",
                model: i % 6 === 0 ? "claude-sonnet-4-5" : "claude-opus-4-6",
                usage: { input: 100, output: 50, cacheRead: 1000, cacheWrite: 10, totalTokens: 1160, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 } },
                stopReason: "stop",
                timestamp: t0,
              },
            };
      const l = JSON.stringify(e);
      lines.push(l);
      bytes += l.length;
      parent = id;
    }
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    // Keep a few parents' lines in memory to fork from.
    if (written.length < 200) written.push({ file, lines });
    else if (rnd() < 0.05) written[Math.floor(rnd() * written.length)] = { file, lines };
  }
  fs.writeFileSync(marker, shape);
}

function timed(args) {
  const useTime = fs.existsSync("/usr/bin/time");
  const cmd = useTime ? "/usr/bin/time" : process.execPath;
  const full = useTime ? ["-f", "%e %M", process.execPath, BIN, ...args] : [BIN, ...args];
  const start = Date.now();
  const r = spawnSync(cmd, full, { encoding: "utf8", maxBuffer: 1 << 30 });
  const wall = (Date.now() - start) / 1000;
  const m = useTime ? /(\S+) (\d+)\s*$/.exec(r.stderr) : null;
  return { code: r.status, wall, rssMB: m ? Number(m[2]) / 1024 : null, stdout: r.stdout };
}

console.log(`generating ${N} sessions, ~${(SIZE / 1e6).toFixed(0)} MB in ${opt.data} …`);
generate(opt.data);
const usage = timed(["usage", opt.data, "--by", "day,model", "--timezone", "UTC", "--json"]);
const totals = JSON.parse(usage.stdout).totals;
console.log(`usage --by day,model: ${usage.wall.toFixed(1)} s, peak RSS ${usage.rssMB?.toFixed(0) ?? "?"} MB, ${totals.turns} turns counted once, $${totals.cost.toFixed(2)}`);
const naive = timed(["usage", opt.data, "--include-copied", "--json"]);
console.log(`usage --include-copied: ${naive.wall.toFixed(1)} s, ${JSON.parse(naive.stdout).totals.turns} turns counted naively`);
if (!flags.has("no-tables")) {
  const out = fs.mkdtempSync(path.join(HERE, "fleet-tables-"));
  const t = timed(["tables", opt.data, "--out", path.join(out, "t"), "--format", "ndjson"]);
  console.log(`tables --format ndjson: ${t.wall.toFixed(1)} s, peak RSS ${t.rssMB?.toFixed(0) ?? "?"} MB (exit ${t.code})`);
  fs.rmSync(out, { recursive: true, force: true });
}

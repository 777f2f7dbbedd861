#!/usr/bin/env node
// follow benchmark: a synthetic pi session written at a realistic pace for SECONDS (default 600): turns of a user
// prompt, assistant messages and tool results a second or two apart (some written in two parts, as a slow write
// lands), a compaction now and then, and idle periods of 30-90 s between turns. `pisess follow --ndjson` runs on
// it the whole time; its CPU time (from /proc/PID/stat) is measured during the idle periods and the turns
// separately, and its RSS (/proc/PID/status) sampled every 5 s. The file starts with EXISTING entries (default
// 20,000) so that the index is not trivially small. Linux only (/proc).
//
//   node bench/follow-idle.mjs                    10 minutes
//   node bench/follow-idle.mjs --seconds 60       a quick run
//   options: --seconds N  --existing N  --poll-ms N (follow's poll interval, default its own 1000)
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, "..", "bin", "pisess.js");
const argv = process.argv.slice(2);
const opt = { seconds: "600", existing: "20000", "poll-ms": "" };
for (let i = 0; i < argv.length; i++) if (argv[i].startsWith("--")) opt[argv[i].slice(2)] = argv[++i];
const SECONDS = Number(opt.seconds);
const EXISTING = Number(opt.existing);

let seed = 11;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const words = "the parser loader session tree branch file line token context model tool result error fix test".split(" ");
const text = (n) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(" ");

let n = 0;
let prev = null;
const t0 = Date.parse("2026-01-01T00:00:00Z");
function entry(kind) {
  n++;
  const id = n.toString(16).padStart(8, "0");
  const base = { type: "message", id, parentId: prev, timestamp: new Date(t0 + n * 1000).toISOString() };
  let e;
  if (kind === "user") e = { ...base, message: { role: "user", content: [{ type: "text", text: text(30) }] } };
  else if (kind === "assistant")
    e = {
      ...base,
      message: {
        role: "assistant",
        content: [
          { type: "text", text: text(120) },
          { type: "toolCall", id: `call_${id}`, name: "bash", arguments: { command: "ls" } },
        ],
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        stopReason: "toolUse",
        usage: { input: 1000, output: 200, cacheRead: 5000, cacheWrite: 0, totalTokens: 6200, cost: { total: 0.01 } },
      },
    };
  else if (kind === "tool")
    e = {
      ...base,
      message: {
        role: "toolResult",
        toolCallId: `call_${(n - 1).toString(16).padStart(8, "0")}`,
        toolName: "bash",
        content: [{ type: "text", text: text(800) }],
        isError: false,
      },
    };
  else
    e = {
      type: "compaction",
      id,
      parentId: prev,
      timestamp: base.timestamp,
      summary: text(200),
      firstKeptEntryId: prev,
      tokensBefore: 150000,
    };
  prev = id;
  return `${JSON.stringify(e)}\n`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-bench-follow-"));
const file = path.join(dir, "session.jsonl");
let head = `${JSON.stringify({ type: "session", version: 3, id: "01942660-60f2-76c4-b069-c43a8c3b7cf3", timestamp: new Date(t0).toISOString(), cwd: "/w" })}\n`;
for (let i = 0; i < EXISTING; i++) head += entry(i % 3 === 0 ? "user" : i % 3 === 1 ? "assistant" : "tool");
fs.writeFileSync(file, head);

const env = { ...process.env };
if (opt["poll-ms"]) env.PISESS_FOLLOW_POLL_MS = opt["poll-ms"];
const child = spawn(process.execPath, [BIN, "follow", file, "--ndjson"], { env, stdio: ["ignore", "pipe", "inherit"] });
let printed = 0;
child.stdout.on("data", (b) => {
  for (const c of b) if (c === 10) printed++;
});
const TICK = 100; // USER_HZ: clock ticks per second in /proc/PID/stat (100 on Linux)
function cpuMs() {
  const f = fs.readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / TICK;
}
function rssMb() {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await sleep(3000); // start-up and indexing of the existing entries
const rss = [];
const rssTimer = setInterval(() => rss.push(rssMb()), 5000);
const rssStart = rssMb();
const cpuStart = cpuMs();
const start = Date.now();
const end = start + SECONDS * 1000;
let idleMs = 0;
let idleCpu = 0;
let busyMs = 0;
let busyCpu = 0;
let appended = 0;
let compactions = 0;
let turns = 0;
while (Date.now() < end) {
  // A turn: prompt, then assistant/tool pairs 0.5-2 s apart.
  const tb = Date.now();
  const cb = cpuMs();
  fs.appendFileSync(file, entry("user"));
  appended++;
  const pairs = 3 + Math.floor(rnd() * 10);
  for (let i = 0; i < pairs && Date.now() < end; i++) {
    await sleep(500 + rnd() * 1500);
    const a = entry("assistant");
    // Now and then a write lands in two parts, split inside the line.
    if (rnd() < 0.3) {
      const cut = Math.floor(a.length / 2);
      fs.appendFileSync(file, a.slice(0, cut));
      await sleep(50);
      fs.appendFileSync(file, a.slice(cut));
    } else fs.appendFileSync(file, a);
    await sleep(200 + rnd() * 800);
    fs.appendFileSync(file, entry("tool"));
    appended += 2;
  }
  if (rnd() < 0.2) {
    fs.appendFileSync(file, entry("compaction"));
    appended++;
    compactions++;
  }
  turns++;
  busyMs += Date.now() - tb;
  busyCpu += cpuMs() - cb;
  // Idle: nothing written for 30-90 s (or what is left of the run).
  const idle = Math.min(30000 + rnd() * 60000, end - Date.now());
  if (idle <= 0) break;
  await sleep(1500); // let follow finish reading the turn before the idle measure starts
  const ti = Date.now();
  const ci = cpuMs();
  await sleep(idle - 1500);
  idleMs += Date.now() - ti;
  idleCpu += cpuMs() - ci;
}
await sleep(3000);
clearInterval(rssTimer);
const rssEnd = rssMb();
const cpuTotal = cpuMs() - cpuStart;
child.kill("SIGINT");
const code = await new Promise((r) => child.on("exit", (c) => r(c)));
fs.rmSync(dir, { recursive: true, force: true });
const r = {
  seconds: Math.round((Date.now() - start) / 1000),
  existing: EXISTING,
  turns,
  appended,
  compactions,
  printed,
  exitOnSigint: code,
  idleSeconds: Math.round(idleMs / 1000),
  idleCpuMs: Math.round(idleCpu),
  idleCpuPercent: Number(((idleCpu / idleMs) * 100).toFixed(3)),
  busySeconds: Math.round(busyMs / 1000),
  busyCpuMs: Math.round(busyCpu),
  cpuTotalMs: Math.round(cpuTotal),
  rssStartMb: Number(rssStart.toFixed(1)),
  rssEndMb: Number(rssEnd.toFixed(1)),
  rssMaxMb: Number(Math.max(...rss, rssStart, rssEnd).toFixed(1)),
  load: os.loadavg().map((x) => Number(x.toFixed(2))),
};
console.log(JSON.stringify(r, null, 2));
if (printed !== appended) {
  console.error(`follow printed ${printed} entries of ${appended} appended`);
  process.exitCode = 1;
}

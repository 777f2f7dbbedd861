#!/usr/bin/env node
// pisess vs pi 1.6.0 (the pi people run; 0.73.1 beside it) vs a bare JSON.parse floor on generated sessions:
// realistic pi 1.6 sessions (bench/gen16.mjs: mostly non-ASCII text, short lines) and long ASCII tool outputs
// (parity/gen.mjs). Whole processes, interleaved, median wall
// time and peak RSS (/usr/bin/time). Writes a Markdown report (default bench/RESULTS.md): the generated part up to
// a marker line; whatever follows the marker (hand-written sections) is kept as it is.
//
//   npm run bench                                    start-up, 400 KB, every size (10M,100M,1G,2G), the shapes
//   npm run bench -- --sizes 10M --runs 5            a quick subset
//   options: --sizes LIST  --runs N  --shapes chain,siblings,comb|none  --shape-runs N  --startup-runs N|0
//            --typical SIZE|none  --inputs realistic,ascii  --tasks SUBSTR,...  --no-pi  --no-build  --seed S
//            --out FILE  --data DIR  --fleet N|0 (the index rows: bench/index-bench.mjs on N sessions, 2 GB)
//   The 400 KB group (--typical) also times tree --json with each start-up trick undone (issue 27): code caches
//   ignored (bench/no-code-cache.cjs), yargs plain (bench/plain-yargs.cjs on a build of its own, dist/.bench-yargs/).
//
// Needs `npm install --no-save` in bench/ (pins pi 1.6.0 and 0.73.1); without it the pi rows are skipped.
// pi only ever sees a copy of a file (SessionManager.open may rewrite a file; a valid v3 header is left alone).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, "..");
const BIN = path.join(ROOT, "bin", "pisess.js");
// Each pi the rows compare with; ratios are against the first (the pi people run).
const PIS = [
  { label: "pi 1.6.0", arg: "1.6", dir: path.join(HERE, "node_modules", "@earendil-works", "pi-coding-agent") },
  { label: "pi 0.73.1", arg: "0.73", dir: path.join(HERE, "node_modules", "@mariozechner", "pi-coding-agent") },
];
const TIME = "/usr/bin/time";
// A CA bundle in the environment (NODE_EXTRA_CA_CERTS) is parsed by every Node process before its first line runs:
// on this machine ~35 ms of each process (node -e 0: 505M instructions with it, 86M without). It would hide what
// pisess itself costs at start-up, so every measured process runs without it (the header says whether it was set).
const CA_BUNDLE = process.env.NODE_EXTRA_CA_CERTS;
delete process.env.NODE_EXTRA_CA_CERTS;

// ---------------------------------------------------------------- options
const argv = process.argv.slice(2);
const opt = {
  sizes: "10M,100M,1G,2G",
  runs: "3",
  shapes: "chain,siblings,comb",
  "shape-runs": "1",
  "startup-runs": "20",
  typical: "400K",
  inputs: "realistic,ascii",
  seed: "7",
  out: path.join(HERE, "RESULTS.md"),
  data: path.join(HERE, "data"),
  fleet: "10000",
};
const flags = new Set();
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--no-pi" || a === "--no-build" || a === "--help") flags.add(a.slice(2));
  else if (a.startsWith("--") && i + 1 < argv.length) opt[a.slice(2)] = argv[++i];
  else {
    console.error(`bench: unexpected argument ${a}`);
    process.exit(2);
  }
}
if (flags.has("help")) {
  console.log(
    fs
      .readFileSync(fileURLToPath(import.meta.url), "utf8")
      .split("\n")
      .slice(1, 15)
      .map((l) => l.replace(/^\/\/ ?/, ""))
      .join("\n"),
  );
  process.exit(0);
}
const RUNS = Math.max(1, Number(opt.runs));
/** A comma-separated option's items. */
const items = (v) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
/** The same, where "none" names no items. */
const listOpt = (v) => (v === "none" ? [] : items(v));
const SIZES = listOpt(opt.sizes);
const SHAPES = listOpt(opt.shapes);
const TASK_FILTER = opt.tasks ? opt.tasks.split(",") : null;
const SHAPE_ENTRIES = { chain: 1_000_000, siblings: 100_000, comb: 1_000_000 };
const SHAPE_LABEL = { chain: "chain-1M", siblings: "siblings-100k", comb: "comb-10k" };
const SHAPE_RUNS = Math.max(1, Number(opt["shape-runs"]));
const STARTUP_RUNS = Math.max(0, Number(opt["startup-runs"]));
const TYPICAL = opt.typical === "none" ? null : opt.typical;
const INPUTS = items(opt.inputs);
for (const k of INPUTS) if (k !== "realistic" && k !== "ascii") throw new Error(`bad --inputs ${k} (realistic, ascii)`);
/** A shape row past this is stopped and reported as a timeout (the target is 5 s). */
const SHAPE_TIMEOUT_MS = 60_000;

function parseSize(s) {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)$/i.exec(s);
  if (!m) throw new Error(`bad size ${s} (use e.g. 10M, 1G)`);
  return Math.round(Number(m[1]) * { "": 1, K: 1e3, M: 1e6, G: 1e9 }[m[2].toUpperCase()]);
}

function log(msg) {
  process.stderr.write(`bench: ${msg}\n`);
}

// ---------------------------------------------------------------- setup
if (!fs.existsSync(TIME)) {
  console.error(`bench: ${TIME} is required (GNU time, for peak RSS)`);
  process.exit(2);
}
if (!flags.has("no-build")) {
  // The CLI runs from the bundle (dist/bundle), so the whole build, not tsc alone.
  log("building pisess (npm run build)");
  const r = spawnSync("npm", ["run", "build"], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0)
    log(`the build reported errors (continuing with what it emitted):\n${(r.stdout + r.stderr).split("\n").slice(0, 10).join("\n")}`);
}
const pis = flags.has("no-pi") ? [] : PIS.filter((p) => fs.existsSync(path.join(p.dir, "package.json")));
const havePi = pis.length > 0;
const piVersion = pis.map((p) => p.label).join(", ") || null;
if (!flags.has("no-pi") && pis.length < PIS.length) log("a pi is not installed: run `npm install --no-save` in bench/ (its rows skipped)");
/** The row every pisess row is compared with: pi 1.6.0's (the first pi installed). */
const PI_MAIN = pis[0]?.label ?? "pi";

// What the export rows write, removed when the run ends.
const EXPORT_OUT = (ext) => path.join(os.tmpdir(), `pisess-bench-export-${process.pid}.${ext}`);
process.on("exit", () => {
  for (const ext of ["md", "jsonl"]) fs.rmSync(EXPORT_OUT(ext), { force: true });
});
// The CLI with the yargs trick undone (scripts/build-cli.mjs --plain-yargs), for its row in the 400 KB group: built
// from src/ as it is now (also under --no-build), beside dist/bundle/ (the same depth: package.json, node_modules),
// removed when the run ends.
const PLAIN_YARGS = path.join(ROOT, "dist", ".bench-yargs");
let plainYargs = false;
if (TYPICAL) {
  log(`building pisess with the yargs trick undone (scripts/build-cli.mjs --plain-yargs ${path.relative(ROOT, PLAIN_YARGS)})`);
  fs.rmSync(PLAIN_YARGS, { recursive: true, force: true });
  fs.mkdirSync(PLAIN_YARGS, { recursive: true });
  process.on("exit", () => fs.rmSync(PLAIN_YARGS, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build-cli.mjs"), "--plain-yargs", PLAIN_YARGS], {
    cwd: ROOT,
    encoding: "utf8",
  });
  plainYargs = r.status === 0;
  if (!plainYargs) log(`that build failed (its row skipped):\n${(r.stdout + r.stderr).split("\n").slice(0, 10).join("\n")}`);
}
// Which pisess commands exist yet (others are still being written).
const PISESS_TASKS = [
  { name: "pisess tree --json", cmd: "tree", args: (f) => ["tree", f, "--json"], vsPi: "open+getTree" },
  { name: "pisess context --json", cmd: "context", args: (f) => ["context", f, "--json"], vsPi: "open+buildSessionContext+JSON out" },
  { name: "pisess validate --format json", cmd: "validate", args: (f) => ["validate", f, "--format", "json"], vsPi: "open+getTree" },
  { name: "pisess info --json", cmd: "info", args: (f) => ["info", f, "--json"], vsPi: "open+getTree" },
  { name: "pisess leaves --json", cmd: "leaves", args: (f) => ["leaves", f, "--json"], vsPi: "open+getTree" },
  // The other commands of one file, each against tree --json on the same file (the 1.2× rule).
  { name: "pisess path --json", cmd: "path", args: (f) => ["path", f, "--json"], vsPi: "open+getTree" },
  { name: "pisess labels --json", cmd: "labels", args: (f) => ["labels", f, "--json"], vsPi: "open+getTree" },
  { name: "pisess lineage --json", cmd: "lineage", args: (f) => ["lineage", f, "--json"], vsPi: "open+getTree" },
  { name: "pisess compactions --json", cmd: "compactions", args: (f) => ["compactions", f, "--json"], vsPi: "open+getTree" },
  { name: "pisess bloat --json", cmd: "bloat", args: (f) => ["bloat", f, "--json"], vsPi: "open+getTree" },
  { name: "pisess diff --leaves --json", cmd: "diff", args: (f) => ["diff", f, "--leaves", "--json"], vsPi: "open+getTree" },
  // Issue 30's row: secrets against validate on the same file (goal: at most 2× its wall).
  { name: "pisess secrets --format json", cmd: "secrets", args: (f) => ["secrets", f, "--format", "json"], vsPi: "open+getTree" },
  { name: "pisess grep --json", cmd: "grep", args: (f) => ["grep", "error", f, "--json"], vsPi: "open+getTree" },
  {
    name: "pisess export --format markdown",
    cmd: "export",
    args: (f) => ["export", f, "--format", "markdown", "-o", EXPORT_OUT("md")],
    vsPi: "open+getTree",
    before: () => fs.rmSync(EXPORT_OUT("md"), { force: true }),
  },
  {
    name: "pisess export --format jsonl",
    cmd: "export",
    args: (f) => ["export", f, "--format", "jsonl", "-o", EXPORT_OUT("jsonl")],
    vsPi: "open+getTree",
    before: () => fs.rmSync(EXPORT_OUT("jsonl"), { force: true }),
  },
];
/** pi's own rows: [row name after the pi's label, pi-task.mjs mode]. */
const PI_MODES = [
  ["open+getTree", "tree"],
  ["open+buildSessionContext", "context"],
  ["open+buildSessionContext+JSON out", "context-json"],
];
// Every command the shape rows run, in text and in JSON.
const SHAPE_TASKS = [["tree"], ["path"], ["context"], ["info"], ["leaves"], ["diff", "--leaves"], ["labels"], ["lineage"]].flatMap((a) => [
  { name: `pisess ${a.join(" ")}`, cmd: a[0], args: (f) => [a[0], f, ...a.slice(1)] },
  { name: `pisess ${a.join(" ")} --json`, cmd: a[0], args: (f) => [a[0], f, ...a.slice(1), "--json"] },
]);
SHAPE_TASKS.push(
  { name: "pisess validate", cmd: "validate", args: (f) => ["validate", f] },
  { name: "pisess validate --format json", cmd: "validate", args: (f) => ["validate", f, "--format", "json"] },
);
// Start-up and a typical session, against Node doing nothing.
const NODE_TASK = { name: "node -e 0", node: true, run: () => timed(process.execPath, ["-e", "0"], 60_000) };
const NO_CACHE_TASK = "pisess tree --json, code caches ignored (bench/no-code-cache.cjs)";
const PLAIN_YARGS_TASK = "pisess tree --json, yargs trick undone (bench/plain-yargs.cjs; code caches in both)";
const TYPICAL_TASKS = [
  { name: "pisess tree --json", args: (f) => ["tree", f, "--json"] },
  { name: "pisess context --json", args: (f) => ["context", f, "--json"] },
  { name: "pisess path --ndjson", args: (f) => ["path", f, "--ndjson"] },
  { name: "pisess info --json", args: (f) => ["info", f, "--json"] },
];
const missing = [];
for (const t of PISESS_TASKS) {
  const r = spawnSync(process.execPath, [BIN, t.cmd, "--help"], { encoding: "utf8" });
  t.exists = r.status === 0 && !/Unknown (command|argument)/i.test(r.stderr);
  if (!t.exists) {
    missing.push(t.cmd);
    log(`skipping \`pisess ${t.cmd}\`: the command does not exist yet`);
  }
}

fs.mkdirSync(opt.data, { recursive: true });

/** A generated session of that size: `realistic` (bench/gen16.mjs) or `ascii` (parity/gen.mjs, long tool outputs). */
function ensureSized(label, kind = "ascii") {
  const bytes = parseSize(label);
  const file = path.join(opt.data, kind === "ascii" ? `v3-s${opt.seed}-${label}.jsonl` : `pi16-s${opt.seed}-${label}.jsonl`);
  if (!fs.existsSync(file)) {
    log(`generating ${file} (${bytes} bytes, seed ${opt.seed}, ${kind})`);
    const gen =
      kind === "ascii"
        ? [path.join(ROOT, "parity", "gen.mjs"), "--seed", opt.seed, "--version", "3", "--bytes", String(bytes)]
        : [path.join(HERE, "gen16.mjs"), "--seed", opt.seed, "--bytes", String(bytes)];
    const r = spawnSync(process.execPath, [...gen, "--out", `${file}.tmp`], { stdio: ["ignore", "inherit", "inherit"] });
    if (r.status !== 0) throw new Error(`${path.basename(gen[0])} failed`);
    fs.renameSync(`${file}.tmp`, file);
  }
  return file;
}
const groupLabel = (size, kind) => (kind === "ascii" ? `${size} ascii` : size);

function ensureShape(shape) {
  const file = path.join(opt.data, `${SHAPE_LABEL[shape]}.jsonl`);
  if (!fs.existsSync(file)) {
    log(`generating ${file}`);
    const r = spawnSync(
      process.execPath,
      [path.join(HERE, "gen-shapes.mjs"), "--shape", shape, "--entries", String(SHAPE_ENTRIES[shape]), "--out", `${file}.tmp`],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    if (r.status !== 0) throw new Error("gen-shapes.mjs failed");
    fs.renameSync(`${file}.tmp`, file);
  }
  return file;
}

function countLines(file) {
  let n = 0;
  const fd = fs.openSync(file, "r");
  const buf = Buffer.allocUnsafe(1 << 20);
  for (;;) {
    const k = fs.readSync(fd, buf, 0, buf.length, null);
    if (k === 0) break;
    for (let i = buf.indexOf(10); i !== -1 && i < k; i = buf.indexOf(10, i + 1)) n++;
  }
  fs.closeSync(fd);
  return n;
}

// ---------------------------------------------------------------- one timed process
const timeOut = path.join(os.tmpdir(), `pisess-bench-time-${process.pid}.txt`);
const devnull = fs.openSync("/dev/null", "w");

function timed(command, args, timeoutMs) {
  const t0 = process.hrtime.bigint();
  // timeout(1) stops the command itself (killing time(1) would leave it running); it exits 124 then.
  const limit = String(Math.ceil(timeoutMs / 1000));
  const r = spawnSync(TIME, ["-f", "%e %U %S %M", "-o", timeOut, "timeout", limit, command, ...args], {
    stdio: ["ignore", devnull, "pipe"],
    encoding: "utf8",
    timeout: timeoutMs + 60_000,
    maxBuffer: 64 << 20,
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  let user = NaN;
  let sys = NaN;
  let rssKb = NaN;
  try {
    const last = fs.readFileSync(timeOut, "utf8").trim().split("\n").pop() ?? "";
    const [, u, s, m] = last.split(/\s+/).map(Number);
    user = u;
    sys = s;
    rssKb = m;
  } catch {}
  // time(1) reports "Command exited with non-zero status N" in its -o file; the status is ours anyway
  const stderr = (r.stderr ?? "").toString();
  return { wall, cpu: user + sys, rssMb: rssKb / 1024, status: r.status, signal: r.signal, stderr: stderr.slice(-400) };
}

// ---------------------------------------------------------------- the plan
/** groups: one per input file; tasks run interleaved within a group (run 1 of every task, then run 2, ...). */
const groups = [];
if (STARTUP_RUNS > 0) groups.push({ label: "start-up", file: null, kind: "startup", runs: STARTUP_RUNS });
if (TYPICAL) {
  groups.push({ label: TYPICAL, file: ensureSized(TYPICAL, INPUTS[0]), kind: "typical", runs: STARTUP_RUNS || RUNS });
  // The same session against pi itself: the 400 KB targets are ratios to pi 1.6.
  if (havePi) groups.push({ label: `${TYPICAL} vs pi`, file: ensureSized(TYPICAL, INPUTS[0]), kind: "size", runs: Math.max(RUNS, 5) });
}
for (const label of SIZES) {
  for (const kind of INPUTS) groups.push({ label: groupLabel(label, kind), file: ensureSized(label, kind), kind: "size" });
}
for (const shape of SHAPES) {
  const file = ensureShape(shape);
  groups.push({ label: SHAPE_LABEL[shape], file, kind: "shape", runs: SHAPE_RUNS });
}

function tasksFor(group) {
  const f = group.file;
  if (group.kind === "startup") {
    return [
      NODE_TASK,
      { name: "pisess --version", pisess: "--version", run: () => timed(process.execPath, [BIN, "--version"], 60_000) },
      { name: "pisess --help", pisess: "--help", run: () => timed(process.execPath, [BIN, "--help"], 60_000) },
    ];
  }
  if (group.kind === "typical") {
    return [
      NODE_TASK,
      ...TYPICAL_TASKS.map((t) => ({
        name: t.name,
        pisess: t.name.split(" ")[1],
        run: () => timed(process.execPath, [BIN, ...t.args(f)], 60_000),
      })),
      // What each start-up trick kept saves: the same bundle with its code caches ignored; the same CLI built with
      // yargs plain (its own platform shim, help built before the handler), with its own code caches.
      { name: NO_CACHE_TASK, run: () => timed(process.execPath, [path.join(HERE, "no-code-cache.cjs"), "tree", f, "--json"], 60_000) },
      ...(plainYargs
        ? [
            {
              name: PLAIN_YARGS_TASK,
              run: () => timed(process.execPath, [path.join(HERE, "plain-yargs.cjs"), PLAIN_YARGS, "tree", f, "--json"], 60_000),
            },
          ]
        : []),
    ];
  }
  const piCopy = path.join(opt.data, `pi-copy-${group.label.replace(/\s+/g, "-")}.jsonl`);
  const tasks = [];
  for (const pi of pis) {
    for (const [name, mode] of PI_MODES) {
      // Shapes: getTree for every shape, the context of the chain (its target); 0.73.1 only beside 1.6 on sizes.
      if (group.kind === "shape" && (pi !== pis[0] || (mode !== "tree" && !(mode === "context-json" && group.label === "chain-1M"))))
        continue;
      if (pi !== pis[0] && mode === "context-json") continue;
      tasks.push({
        name: `${pi.label} ${name}`,
        pi: true,
        before: () => fs.copyFileSync(f, piCopy),
        after: () => fs.rmSync(piCopy, { force: true }),
        run: () => timed(process.execPath, [path.join(HERE, "pi-task.mjs"), pi.arg, mode, piCopy], 600_000),
      });
    }
  }
  if (group.kind === "size") {
    const bytes = fs.statSync(f).size;
    if (bytes < 500e6)
      tasks.push({
        name: "floor (readFileSync+split+parse)",
        floor: true,
        run: () => timed(process.execPath, [path.join(HERE, "floor.mjs"), "whole", f], 600_000),
      });
    tasks.push({
      name: "floor (streamed split+parse)",
      floor: true,
      run: () => timed(process.execPath, [path.join(HERE, "floor.mjs"), "stream", f], 600_000),
    });
  }
  if (group.kind === "shape") {
    for (const t of SHAPE_TASKS) {
      const vsPi = t.name === "pisess context --json" ? "open+buildSessionContext+JSON out" : "open+getTree";
      tasks.push({ name: t.name, pisess: t.cmd, vsPi, run: () => timed(process.execPath, [BIN, ...t.args(f)], SHAPE_TIMEOUT_MS) });
    }
    return TASK_FILTER ? tasks.filter((t) => TASK_FILTER.some((s) => t.name.includes(s))) : tasks;
  }
  for (const t of PISESS_TASKS) {
    if (!t.exists) continue;
    // An export refuses to replace a session file, which the jsonl one writes: each run starts without it.
    tasks.push({
      name: t.name,
      pisess: t.cmd,
      vsPi: t.vsPi,
      before: t.before,
      run: () => timed(process.execPath, [BIN, ...t.args(f)], 600_000),
    });
  }
  return TASK_FILTER ? tasks.filter((t) => TASK_FILTER.some((s) => t.name.includes(s))) : tasks;
}

/** Whether a run completed. */
function okRun(t, r) {
  // Exit 1 is a complete run that found something (findings, differences, no match): only 2 and signals failed.
  return r.status === 0 || (r.status === 1 && t.pisess !== undefined);
}

const f2 = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "–");

const median = (xs) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const results = [];
for (const g of groups) {
  const bytes = g.file ? fs.statSync(g.file).size : 0;
  const lines = g.file ? countLines(g.file) : 0;
  const tasks = tasksFor(g);
  const runs = g.runs ?? RUNS;
  log(`${g.label}: ${(bytes / 1e6).toFixed(1)} MB, ${lines} lines, ${tasks.length} tasks × ${runs} runs`);
  const per = new Map(tasks.map((t) => [t, []]));
  for (let run = 0; run < runs; run++) {
    for (const t of tasks) {
      const prev = per.get(t);
      // a task that failed (e.g. pi over 512 MB, a shape row past its time) is not repeated
      if (prev.length > 0 && prev.some((r) => !okRun(t, r))) continue;
      t.before?.();
      let r;
      try {
        r = t.run();
      } finally {
        t.after?.();
      }
      prev.push(r);
      log(
        `  ${g.label} run ${run + 1} ${t.name}: ${r.wall.toFixed(2)} s, ${r.rssMb.toFixed(0)} MB${r.status !== 0 ? `, exit ${r.status ?? r.signal}` : ""}`,
      );
    }
  }
  for (const t of tasks) {
    const rs = per.get(t);
    const failed = rs.find((r) => !okRun(t, r));
    results.push({
      group: g.label,
      kind: g.kind,
      bytes,
      lines,
      task: t.name,
      pisess: t.pisess,
      pi: t.pi === true,
      floor: t.floor === true,
      vsPi: t.vsPi,
      runs: rs.length,
      wall: median(rs.map((r) => r.wall)),
      cpu: median(rs.map((r) => r.cpu)),
      rss: Math.max(...rs.map((r) => r.rssMb)),
      ok: !failed,
      error:
        failed?.status === 124
          ? `stopped after ${f2(failed.wall, 0)} s`
          : failed
            ? `exit ${failed.status ?? failed.signal}: ${(failed.stderr.match(/(ERR_[A-Z_]+|RangeError[^\n]*|Error[^\n]*)/) ?? [failed.stderr.trim().split("\n").pop() ?? ""])[0].slice(0, 100)}`
            : "",
    });
  }
}
fs.rmSync(timeOut, { force: true });

// ---------------------------------------------------------------- report
const find = (group, task) => results.find((r) => r.group === group && r.task === task);
const bestFloor = (group) => {
  const fl = results.filter((r) => r.group === group && r.floor && r.ok);
  return fl.length ? fl.reduce((a, b) => (a.wall <= b.wall ? a : b)) : undefined;
};
let table = "| file | task | wall s (median) | CPU s | peak RSS MB | MB/s | × pi wall | × pi RSS | × floor wall | status |\n";
table += "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
for (const r of results.filter((x) => x.kind === "size")) {
  const pi = r.vsPi ? find(r.group, `${PI_MAIN} ${r.vsPi}`) : undefined;
  const fl = bestFloor(r.group);
  const piOk = pi?.ok ? pi : undefined;
  const mbps = r.ok ? r.bytes / 1e6 / r.wall : NaN;
  const xPi = r.pisess && r.ok && piOk ? f2(r.wall / piOk.wall) : r.pisess && pi && !pi.ok ? "pi fails" : "";
  const xPiRss = r.pisess && r.ok && piOk ? f2(r.rss / piOk.rss) : "";
  const xFloor = (r.pisess || r.pi) && fl && r.ok ? f2(r.wall / fl.wall) : "";
  table += `| ${r.group} (${f2(r.bytes / 1e6, 0)} MB, ${r.lines} lines) | ${r.task} | ${r.ok ? f2(r.wall) : "–"} | ${r.ok ? f2(r.cpu) : "–"} | ${r.ok ? f2(r.rss, 0) : "–"} | ${f2(mbps, 0)} | ${xPi} | ${xPiRss} | ${xFloor} | ${r.ok ? `ok (${r.runs} runs)` : r.error.replace(/\|/g, "/")} |\n`;
}

// start-up and a typical session: ratios against node -e 0 in the same interleaved run
let quick = "| input | task | wall ms (median) | CPU ms | peak RSS MB | × node -e 0 wall | status |\n|---|---|---:|---:|---:|---:|---|\n";
for (const r of results.filter((x) => x.kind === "startup" || x.kind === "typical")) {
  const base = find(r.group, "node -e 0");
  const input = r.kind === "startup" ? "(none)" : `${r.group} (${f2(r.bytes / 1e3, 0)} KB, ${r.lines} lines)`;
  quick += `| ${input} | ${r.task} | ${r.ok ? f2(r.wall * 1000, 0) : "–"} | ${r.ok ? f2(r.cpu * 1000, 0) : "–"} | ${r.ok ? f2(r.rss, 0) : "–"} | ${r.ok && base?.ok && r !== base ? f2(r.wall / base.wall) : ""} | ${r.ok ? `ok (${r.runs} runs)` : r.error} |\n`;
}

// shapes: every command, text and JSON
const shapeGroups = [...new Set(results.filter((x) => x.kind === "shape").map((x) => x.group))];
let shapes = `| task | ${shapeGroups.map((g) => `${g} wall s / RSS MB`).join(" | ")} |\n|---|${shapeGroups.map(() => "---:").join("|")}|\n`;
for (const task of [...new Set(results.filter((x) => x.kind === "shape").map((x) => x.task))]) {
  const cells = shapeGroups.map((g) => {
    const r = find(g, task);
    if (!r) return "";
    return r.ok ? `${f2(r.wall)} / ${f2(r.rss, 0)}${r.wall >= 5 || r.rss > 1024 ? " ❌" : ""}` : `${r.error.replace(/\|/g, "/")} ❌`;
  });
  shapes += `| ${task} | ${cells.join(" | ")} |\n`;
}

// targets
const checks = [];
const check = (what, pass, detail) => checks.push({ what, pass, detail });
for (const task of ["pisess --version", "pisess --help"]) {
  const r = find("start-up", task);
  const base = find("start-up", "node -e 0");
  if (r?.ok && base?.ok)
    check(
      `${task}: wall ≤ 1.3 × node -e 0`,
      r.wall <= 1.3 * base.wall,
      `${f2(r.wall * 1000, 0)} ms vs ${f2(base.wall * 1000, 0)} ms = ${f2(r.wall / base.wall)}×`,
    );
}
if (TYPICAL) {
  const base = find(TYPICAL, "node -e 0");
  for (const t of TYPICAL_TASKS) {
    const r = find(TYPICAL, t.name);
    if (r?.ok && base?.ok)
      check(
        `${t.name} on ${TYPICAL}: wall ≤ 1.6 × node -e 0`,
        r.wall <= 1.6 * base.wall,
        `${f2(r.wall * 1000, 0)} ms vs ${f2(base.wall * 1000, 0)} ms = ${f2(r.wall / base.wall)}×`,
      );
  }
  // Issue 27: a start-up trick stays only where it saves at least 15% of tree --json's wall at 400 KB.
  const tricks = [
    [NO_CACHE_TASK, "code caches (bin/pisess.js)"],
    [PLAIN_YARGS_TASK, "yargs's lazy help and skipped help cache (scripts/yargs-shim.mjs, src/cli.ts)"],
  ];
  const withTricks = find(TYPICAL, "pisess tree --json");
  for (const [task, trick] of tricks) {
    const without = find(TYPICAL, task);
    if (withTricks?.ok && without?.ok)
      check(
        `${trick} on ${TYPICAL}: save ≥ 15% of pisess tree --json's wall`,
        withTricks.wall <= 0.85 * without.wall,
        `${f2(withTricks.wall * 1000, 0)} ms with, ${f2(without.wall * 1000, 0)} ms without = ${f2((100 * (without.wall - withTricks.wall)) / without.wall, 0)}% saved`,
      );
  }
}
// Against pi 1.6.0 (issue "Simpler and faster than the pi people run"): tree --json and context --json at most
// 0.8× pi's wall at 400 KB, 0.6× at 10 and 100 MB, 0.4× at 1 GB with at most a quarter of its memory, on the
// realistic sessions; every other command at most 1.2× tree --json on the same file.
const PI_LIMITS = [
  [`${TYPICAL} vs pi`, 0.8, null],
  ["10M", 0.6, null],
  ["100M", 0.6, null],
  ["1G", 0.4, 0.25],
];
for (const [group, limit, rssLimit] of PI_LIMITS) {
  for (const task of ["pisess tree --json", "pisess context --json"]) {
    const r = find(group, task);
    const p = r?.vsPi ? find(group, `${PI_MAIN} ${r.vsPi}`) : undefined;
    if (!r || !p?.ok) continue;
    check(
      `${task} ${group}: wall ≤ ${limit} × ${PI_MAIN} ${r.vsPi}`,
      r.ok && r.wall <= limit * p.wall,
      r.ok ? `${f2(r.wall)} s vs ${f2(p.wall)} s = ${f2(r.wall / p.wall)}×` : r.error,
    );
    if (rssLimit !== null && r.ok)
      check(
        `${task} ${group}: peak RSS ≤ ${rssLimit} × pi's`,
        r.rss <= rssLimit * p.rss,
        `${f2(r.rss, 0)} MB vs ${f2(p.rss, 0)} MB = ${f2(r.rss / p.rss)}×`,
      );
  }
}
for (const group of [...new Set(results.filter((x) => x.kind === "size").map((x) => x.group))]) {
  const tree = find(group, "pisess tree --json");
  if (!tree?.ok) continue;
  for (const r of results.filter((x) => x.group === group && x.pisess && x.task !== tree.task && x.task !== "pisess context --json"))
    check(
      `${r.task} ${group}: wall ≤ 1.2 × pisess tree --json`,
      r.ok && r.wall <= 1.2 * tree.wall,
      r.ok ? `${f2(r.wall)} s vs ${f2(tree.wall)} s = ${f2(r.wall / tree.wall)}×` : r.error,
    );
}
// Issue 30: secrets at most 2× validate's wall on the same file, with its peak memory beside validate's.
for (const group of [...new Set(results.filter((x) => x.kind === "size").map((x) => x.group))]) {
  const v = find(group, "pisess validate --format json");
  const r = find(group, "pisess secrets --format json");
  if (!v?.ok || !r) continue;
  check(
    `pisess secrets ${group}: wall ≤ 2 × pisess validate`,
    r.ok && r.wall <= 2 * v.wall,
    r.ok ? `${f2(r.wall)} s vs ${f2(v.wall)} s = ${f2(r.wall / v.wall)}×; peak ${f2(r.rss, 0)} MB vs ${f2(v.rss, 0)} MB` : r.error,
  );
}
{
  const r = find("chain-1M", "pisess context --json");
  const p = find("chain-1M", `${PI_MAIN} open+buildSessionContext+JSON out`);
  if (r && p?.ok)
    check(
      `pisess context --json chain-1M: wall ≤ 0.7 × ${PI_MAIN}'s`,
      r.ok && r.wall <= 0.7 * p.wall,
      r.ok ? `${f2(r.wall)} s vs ${f2(p.wall)} s = ${f2(r.wall / p.wall)}×` : r.error,
    );
}
const G100 = SIZES.includes("100M") ? "100M" : null;
if (SIZES.includes("2G")) {
  for (const r of results.filter((x) => x.group === "2G" && x.pisess)) {
    check(`2 GB: ${r.task} completes with peak RSS ≤ 512 MB`, r.ok && r.rss <= 512, r.ok ? `${f2(r.rss, 0)} MB, ${f2(r.wall)} s` : r.error);
  }
}
if (SIZES.includes("1G") && G100) {
  for (const r of results.filter((x) => x.group === "1G" && x.pisess && x.ok)) {
    const small = find(G100, r.task);
    if (!small?.ok) continue;
    const a = r.bytes / 1e6 / r.wall;
    const b = small.bytes / 1e6 / small.wall;
    check(
      `linear: ${r.task} MB/s at 1 GB within 25% of 100 MB (or faster)`,
      a >= 0.75 * b,
      `${f2(a, 0)} vs ${f2(b, 0)} MB/s (${f2(a / b)}×)`,
    );
  }
}
for (const s of SHAPES) {
  const rows = results.filter((x) => x.group === SHAPE_LABEL[s] && x.pisess);
  const bad = rows.filter((r) => !r.ok || r.wall >= 5 || r.rss > 1024);
  if (rows.length)
    check(
      `${SHAPE_LABEL[s]}: every command, text and JSON, under 5 s and ≤ 1 GB`,
      bad.length === 0,
      bad.length === 0
        ? `${rows.length} rows`
        : `${bad.length} of ${rows.length} rows not: ${bad.map((r) => r.task.replace(/^pisess /, "")).join(", ")}`,
    );
}

const cpu = os.cpus();
let commit = "";
try {
  commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const dirty = spawnSync("git", ["status", "--porcelain", "--", "src"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  if (dirty) commit += " (+ uncommitted changes)";
} catch {}
const load = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(", ");
const cmdline = `npm run bench -- ${argv.join(" ")}`.trim();
let md = `# pisess benchmark\n\n`;
md += `Generated by \`bench/run.mjs\` on ${new Date().toISOString()}.\n\n`;
md += `- Machine: ${cpu.length} × ${cpu[0]?.model ?? "?"}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}; load average at the end: ${load}\n`;
md += `- Node ${process.version}; pi ${piVersion ?? "(not installed)"}; pisess ${commit}\n`;
md += `- Every process runs without NODE_EXTRA_CA_CERTS${CA_BUNDLE ? ` (this environment set it to ${CA_BUNDLE}: parsing it adds ~35 ms to each Node start here)` : ""}.\n`;
md += `- ${RUNS} runs per task, interleaved; wall = median, peak RSS = largest of the runs (GNU time), MB/s = file size / wall. Ratios are against the same run's ${PI_MAIN} row (tree, validate, info, leaves vs open+getTree; context --json vs open+buildSessionContext with the context written to stdout as JSON) and the faster floor.\n`;
md += `- Inputs: \`bench/gen16.mjs --seed ${opt.seed} --bytes N\` (rows without a suffix: realistic pi 1.6 sessions, about two thirds of the lines non-ASCII, 1.5 KB a line, usage entries, context_edits, labels, compactions, branches) and \`parity/gen.mjs --seed ${opt.seed} --version 3 --bytes N\` (rows marked ascii: long tool outputs 1–50 KB, branches, compactions, labels); shapes from \`bench/gen-shapes.mjs\` (a chain of 1,000,000 entries; one root with 99,999 children; a comb: 10,000 branches of 100 entries off a spine, 10,000 labels).\n`;
if (missing.length) md += `- Skipped (command does not exist yet): ${missing.map((m) => `\`pisess ${m}\``).join(", ")}\n`;
if (quick.split("\n").length > 3)
  md += `\n## Start-up and a typical session\n\nEach pisess row against \`node -e 0\` in the same interleaved run (${STARTUP_RUNS || RUNS} runs each).\n\n${quick}`;
md += `\n## Results\n\n${table}`;
if (shapeGroups.length)
  md += `\n## Shapes\n\nEvery command on each shape, stdout to /dev/null (${SHAPE_RUNS} run${SHAPE_RUNS > 1 ? "s" : ""} each, stopped after ${SHAPE_TIMEOUT_MS / 1000} s). ❌: 5 s or more, over 1 GB, or failed.\n\n${shapes}`;
// Issue 29's rows: the index on a generated fleet, against ccusage in the same run (bench/index-bench.mjs).
const FLEET = Number(opt.fleet);
if (FLEET > 0 && fs.existsSync(path.join(HERE, "node_modules", "ccusage"))) {
  log(`index rows: ${FLEET} sessions`);
  const out = path.join(os.tmpdir(), `pisess-index-bench-${process.pid}.json`);
  const r = spawnSync(
    process.execPath,
    [
      path.join(HERE, "index-bench.mjs"),
      "--sessions",
      String(FLEET),
      "--size",
      `${(FLEET / 5000).toFixed(3)}G`,
      "--data",
      path.join(opt.data, "fleet"),
      "--json-out",
      out,
    ],
    {
      encoding: "utf8",
      maxBuffer: 1 << 26,
    },
  );
  if (r.status === 0) {
    const x = JSON.parse(fs.readFileSync(out, "utf8"));
    fs.rmSync(out, { force: true });
    md += `\n${r.stdout.replace(/^### /, "## ")}`;
    const vs = (v) => `${(v.wall / x.ccWall).toFixed(2)}× ccusage (${v.wall.toFixed(2)} s / ${x.ccWall.toFixed(2)} s)`;
    check("index: first `pisess index` ≤ 1.5× `ccusage pi daily --json`'s wall", x.first.wall <= 1.5 * x.ccWall, vs(x.first));
    check(
      "index: `pisess usage` after 20 sessions grew and 10 were added (update + answer) ≤ 0.1× ccusage",
      x.usage.wall <= 0.1 * x.ccWall,
      vs(x.usage),
    );
    check(
      "index: `sql` group-by on the index ≤ 0.3 s",
      x.groupBy.wall <= 0.3,
      `${x.groupBy.wall.toFixed(2)} s through the CLI (update check + query), ${x.groupByDuck.toFixed(3)} s the query alone`,
    );
    check(
      "index: the leaf-cost query ≤ 1 s",
      x.leafCost.wall <= 1,
      `${x.leafCost.wall.toFixed(2)} s through the CLI, ${x.leafCostDuck.toFixed(3)} s alone`,
    );
    // Every pisess run's peak (index-bench.mjs's peakMB), not only the median runs'.
    const peak =
      x.peakMB ?? Math.max(...[x.first, x.again, x.usage, x.usageAgain, x.usageDirect, x.groupBy, x.leafCost].map((v) => v.rssMB));
    check("index: peak memory ≤ 1 GB throughout", peak <= 1024, `${peak.toFixed(0)} MB`);
    check("index: usage through the index = usage --no-index", x.same, x.same ? "byte for byte" : "they differ");
  } else log(`index rows failed (exit ${r.status}): ${r.stderr.slice(-500)}`);
}
md += `\n## Targets\n\n`;
md += checks.length
  ? `${checks.map((c) => `- ${c.pass ? "✅" : "❌"} ${c.what}: ${c.detail}`).join("\n")}\n`
  : "(no target applies to this subset)\n";
md += `\n## Reproduce\n\n\`\`\`sh\nnpm ci && (cd bench && npm install --no-save)\n${cmdline}\n# all of it: npm run bench   (subset: npm run bench -- --sizes 10M,100M --runs 3 --shapes none)\n\`\`\`\n`;
md += `\nEach row is one process: \`node bench/pi-task.mjs 1.6|0.73 tree|context|context-json COPY\` (pi's SessionManager.open + getTree / buildSessionContext / that context written out as JSON, on a copy), \`node bench/floor.mjs whole|stream FILE\`, \`node bin/pisess.js <command> FILE ...\` with stdout to /dev/null.\n`;
// Sections after the marker are written by hand (or by other scripts) and kept as they are.
const MARKER = "<!-- end of the generated part: bench/run.mjs keeps everything below this line -->";
let kept = "";
if (fs.existsSync(opt.out)) {
  const old = fs.readFileSync(opt.out, "utf8");
  const at = old.indexOf(MARKER);
  if (at >= 0) kept = old.slice(at + MARKER.length);
}
fs.writeFileSync(opt.out, `${md}\n${MARKER}\n${kept.replace(/^\n+/, "\n")}`);
process.stdout.write(md);
log(`wrote ${opt.out}`);

#!/usr/bin/env node
// Index benchmark (issue 29): on a generated fleet (bench/fleet-gen.mjs; 10,000 sessions, 2 GB by default), side by
// side in the same run:
//   ccusage pi daily --json --offline            (reads every file, every time)
//   pisess index DIR --db DB                      first build
//   (20 sessions grow by a turn, 10 are added)
//   pisess usage DIR --db DB --by day,model       update + answer (--updates runs from the same index, the median)
//   pisess sql "group-by" DIR --db DB             update check + query; and the same query in DuckDB alone
//   pisess sql leaf-cost query DIR --db DB        on the leaves table
//   pisess ls DIR --json, pisess grep ok DIR --json   every session read (no index)
// Whole processes; wall time, CPU and peak RSS from /usr/bin/time. Prints a Markdown section.
//
//   node bench/index-bench.mjs [--sessions N] [--size 2G] [--data DIR] [--rounds 2] [--updates 3] [--json-out FILE]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateFleet } from "./fleet-gen.mjs";
delete process.env.NODE_EXTRA_CA_CERTS;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, "..", "bin", "pisess.js");
const CCUSAGE = path.join(HERE, "node_modules", "ccusage", "src", "cli.js");
const argv = process.argv.slice(2);
const opt = { sessions: "10000", size: "2G", rounds: "2", updates: "3", data: path.join(os.tmpdir(), "pisess-bench-index") };
for (let i = 0; i < argv.length; i++) if (argv[i].startsWith("--")) opt[argv[i].slice(2)] = argv[++i];
const N = Number(opt.sessions);
const units = { K: 1e3, M: 1e6, G: 1e9 };
const SIZE = Number.parseFloat(opt.size) * (units[opt.size.slice(-1).toUpperCase()] ?? 1);
const ROUNDS = Number(opt.rounds);
const UPDATES = Number(opt.updates);
const HOME = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-index-home-"));

function timed(cmd, args) {
  const start = process.hrtime.bigint();
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S %M", cmd, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, HOME, NO_COLOR: "1", XDG_CACHE_HOME: path.join(HOME, "cache") },
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const m = /(\S+) (\S+) (\d+)\s*$/.exec(r.stderr);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}\n${r.stderr.slice(-2000)}`);
  return { wall, cpu: m ? Number(m[1]) + Number(m[2]) : Number.NaN, rssMB: m ? Number(m[3]) / 1024 : Number.NaN, stdout: r.stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The fleet, made once (kept between runs while its shape is the same); then a working copy to change. */
function fleet() {
  const base = path.join(opt.data, `base-${N}`);
  const marker = path.join(base, ".shape");
  const shape = `v3 ${N} ${SIZE}`;
  if (!(fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === shape)) {
    console.error(`generating ${N} sessions, ~${(SIZE / 1e6).toFixed(0)} MB in ${base} …`);
    generateFleet({ dir: base, sessions: N, size: SIZE, forks: 0.1 });
    fs.writeFileSync(marker, shape);
  }
  const work = path.join(opt.data, "work");
  fs.rmSync(work, { recursive: true, force: true });
  fs.cpSync(base, work, { recursive: true, preserveTimestamps: true });
  fs.rmSync(path.join(work, ".shape"));
  return work;
}

function sessionFiles(dir) {
  return fs
    .readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => path.join(dir, f))
    .sort();
}

/** 20 sessions grow by a user and an assistant turn; 10 new ones appear (copies with their own ids). */
function change(dir) {
  const files = sessionFiles(dir);
  const t = Date.UTC(2026, 5, 1);
  for (let k = 0; k < 20; k++) {
    const f = files[(k * 397) % files.length];
    const lines = fs.readFileSync(f, "utf8").trimEnd().split("\n");
    const last = JSON.parse(lines[lines.length - 1]).id;
    const u = {
      type: "message",
      id: `grow-${k}-u`,
      parentId: last,
      timestamp: new Date(t).toISOString(),
      message: { role: "user", content: "more", timestamp: t },
    };
    const usage = {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 },
    };
    const a = {
      type: "message",
      id: `grow-${k}-a`,
      parentId: u.id,
      timestamp: new Date(t + 1000).toISOString(),
      message: {
        role: "assistant",
        content: [{ type: "text", text: "ok" }],
        provider: "anthropic",
        model: "claude-opus-4-6",
        usage,
        stopReason: "stop",
        timestamp: t + 1000,
      },
    };
    fs.appendFileSync(f, `${JSON.stringify(u)}\n${JSON.stringify(a)}\n`);
  }
  for (let k = 0; k < 10; k++) {
    const src = files[(k * 911 + 5) % files.length];
    const text = fs
      .readFileSync(src, "utf8")
      .replace(/"id":"00000000-0000-4000-8000-(\d{12})"/, `"id":"00000000-0000-4000-9000-${String(k).padStart(12, "0")}"`);
    fs.writeFileSync(path.join(path.dirname(src), `new-${k}.jsonl`), text);
  }
}

const GROUP_BY =
  "SELECT model, date_trunc('day', timestamp) AS day, round(sum(cost), 2) AS cost, count(*) AS n FROM usage WHERE NOT is_copied GROUP BY ALL ORDER BY ALL";
const LEAF_COST = "SELECT session, line, depth, turns, round(cost, 4) AS cost FROM leaves ORDER BY cost DESC LIMIT 10";

/** The query alone, in DuckDB over the index file (no pisess, no update check). */
function duckOnly(db, sql) {
  const script = `
    const { DuckDBInstance } = require(${JSON.stringify(path.join(HERE, "..", "node_modules", "@duckdb", "node-api"))});
    (async () => {
      const i = await DuckDBInstance.create(${JSON.stringify(db)}, { access_mode: "READ_ONLY" });
      const c = await i.connect();
      const t = process.hrtime.bigint();
      await c.runAndReadAll(${JSON.stringify(sql)});
      console.log(Number(process.hrtime.bigint() - t) / 1e9);
    })();`;
  return Number(spawnSync(process.execPath, ["-e", script], { encoding: "utf8" }).stdout.trim());
}

const dir = fleet();
const db = path.join(HOME, "cache", "pisess", "index.duckdb");
const mb = Number(spawnSync("du", ["-sm", dir], { encoding: "utf8" }).stdout.split("\t")[0]);
const load = [os.loadavg()[0]];
const cc = [];
for (let r = 0; r < ROUNDS; r++)
  cc.push(timed(process.execPath, [CCUSAGE, "pi", "daily", "--json", "--offline", "-z", "UTC", "--pi-path", dir]));
/** Runs as one: the median wall and CPU (as ccusage's: the mean of the two middle ones for an even count), the peak memory. */
const medianRun = (runs) => ({
  ...runs[0],
  wall: median(runs.map((r) => r.wall)),
  cpu: median(runs.map((r) => r.cpu)),
  rssMB: Math.max(...runs.map((r) => r.rssMB)),
});
// As many first builds as ccusage's runs, each from no index at all (the runs alternate with nothing else).
const builds = [];
for (let r = 0; r < ROUNDS; r++) {
  for (const f of [db, `${db}.wal`]) fs.rmSync(f, { force: true });
  builds.push(timed(process.execPath, [BIN, "index", dir, "--db", db]));
}
const first = medianRun(builds);
const again = timed(process.execPath, [BIN, "index", dir, "--db", db]);
change(dir);
// The update, run again from a copy of the index as it was before it, and the run of median wall kept: one run alone
// is at the mercy of the machine's state right after the first build (on one 2-core machine the first run took
// 0.83-1.29 s where the same update from the same index took 0.65-0.67 s a moment later).
const kept = [db, `${db}.wal`].filter((f) => fs.existsSync(f));
for (const f of kept) fs.copyFileSync(f, `${f}.before`);
const updates = [];
for (let r = 0; r < UPDATES; r++) {
  if (r > 0) {
    fs.rmSync(`${db}.wal`, { force: true });
    for (const f of kept) fs.copyFileSync(`${f}.before`, f);
  }
  updates.push(timed(process.execPath, [BIN, "usage", dir, "--db", db, "--by", "day,model", "--json"]));
}
for (const f of kept) fs.rmSync(`${f}.before`);
const usage = medianRun(updates);
const usageAgain = timed(process.execPath, [BIN, "usage", dir, "--db", db, "--by", "day,model", "--json"]);
const usageDirect = timed(process.execPath, [BIN, "usage", dir, "--no-index", "--by", "day,model", "--json"]);
const same = updates.every((u) => u.stdout === usageDirect.stdout) && usageAgain.stdout === usageDirect.stdout;
// Commands that read every session whatever the index (no target; on worker threads from 1,000 sessions on).
const lsRun = timed(process.execPath, [BIN, "ls", dir, "--json"]);
const grepRun = timed(process.execPath, [BIN, "grep", "ok", dir, "--json"]);
// Nothing changes between these runs: each query's median of UPDATES runs.
const runs = (args) => Array.from({ length: UPDATES }, () => timed(process.execPath, args));
const groupByRuns = runs([BIN, "sql", GROUP_BY, dir, "--db", db, "--csv"]);
const leafCostRuns = runs([BIN, "sql", LEAF_COST, dir, "--db", db, "--csv"]);
const groupBy = medianRun(groupByRuns);
const leafCost = medianRun(leafCostRuns);
const groupByDuck = duckOnly(db, GROUP_BY);
const leafCostDuck = duckOnly(db, LEAF_COST);
load.push(os.loadavg()[0]);
const ccRun = medianRun(cc);
const ccWall = ccRun.wall;
const row = (name, x, ratio) =>
  `| ${name} | ${x.wall.toFixed(2)} s | ${x.cpu.toFixed(2)} s | ${x.rssMB.toFixed(0)} MB | ${ratio === undefined ? "" : `${(x.wall / ccWall).toFixed(2)}×`} |`;
const lines = [
  `### Index (${N.toLocaleString("en-US")} sessions, ${mb} MB)`,
  "",
  `Generated fleet (bench/fleet-gen.mjs), ${os.cpus().length} cores, 1-min load average ${load.map((l) => l.toFixed(1)).join(" → ")}. ccusage and the first build: median of ${ROUNDS} runs each; the update and the queries: of ${UPDATES}.`,
  "",
  "| run | wall | CPU | peak RSS | ÷ ccusage wall |",
  "|---|---:|---:|---:|---:|",
  row("ccusage pi daily --json --offline", ccRun, 1),
  row(`pisess index (first build; each ${builds.map((u) => u.wall.toFixed(2)).join(" / ")} s)`, first, 1),
  row("pisess index (nothing changed)", again, 1),
  row(
    `pisess usage --by day,model (20 grown, 10 added: update + answer; median of ${UPDATES} from the same index, each ${updates.map((u) => u.wall.toFixed(2)).join(" / ")} s)`,
    usage,
    1,
  ),
  row("pisess usage --by day,model (nothing changed)", usageAgain, 1),
  row("pisess usage --no-index --by day,model", usageDirect, 1),
  row("pisess ls --json (every session read)", lsRun, 1),
  row("pisess grep ok --json (every session searched)", grepRun, 1),
  row(`pisess sql group-by (update check + query; each ${groupByRuns.map((u) => u.wall.toFixed(2)).join(" / ")} s)`, groupBy, 1),
  row(
    `pisess sql leaf-cost query on leaves (update check + query; each ${leafCostRuns.map((u) => u.wall.toFixed(2)).join(" / ")} s)`,
    leafCost,
    1,
  ),
  "",
  `The same queries in DuckDB alone over the index file: group-by ${groupByDuck.toFixed(3)} s, leaf-cost ${leafCostDuck.toFixed(3)} s. usage through the index = usage --no-index: ${same ? "yes, byte for byte" : "NO"}.`,
];
console.log(lines.join("\n"));
// For bench/run.mjs: the numbers its targets read.
if (opt["json-out"])
  fs.writeFileSync(
    opt["json-out"],
    JSON.stringify(
      {
        ccWall,
        first,
        again,
        usage,
        updates: updates.map((u) => u.wall),
        builds: builds.map((u) => u.wall),
        peakMB: Math.max(...[...builds, again, ...updates, usageAgain, usageDirect, ...groupByRuns, ...leafCostRuns].map((v) => v.rssMB)),
        usageAgain,
        usageDirect,
        groupBy,
        leafCost,
        groupByDuck,
        leafCostDuck,
        same,
        sessions: N,
        mb,
      },
      (k, v) => (k === "stdout" ? undefined : v),
    ),
  );
fs.rmSync(HOME, { recursive: true, force: true });

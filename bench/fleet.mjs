#!/usr/bin/env node
// Fleet benchmark (issue 14): generates a fleet of N sessions (about SIZE bytes in all, 10% forks, nested subagent
// folders; bench/fleet-gen.mjs) and a tenth of it, then on each, interleaved round by round:
//   pisess usage --by day,model   and   ccusage pi daily --offline (the same files, --pi-path)
// then once: pisess tables --format parquet, and pisess sql --tables over what it wrote (a group-by over all
// messages). Whole processes; wall time and peak RSS from /usr/bin/time. Prints a Markdown section for RESULTS.md.
//
//   node bench/fleet.mjs                              10,000 + 1,000 sessions, 2 GB + 200 MB (~2.3 GB of disk in /tmp)
//   node bench/fleet.mjs --sessions 500 --size 100M   a quick run
//   options: --sessions N  --size BYTES(K/M/G)  --rounds R (2)  --data DIR (kept between runs when the shape matches)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateFleet } from "./fleet-gen.mjs";
// Measured processes start without a CA bundle to parse (bench/run.mjs says why).
delete process.env.NODE_EXTRA_CA_CERTS;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, "..", "bin", "pisess.js");
const CCUSAGE = path.join(HERE, "node_modules", "ccusage", "src", "cli.js");
const argv = process.argv.slice(2);
const opt = { sessions: "10000", size: "2G", rounds: "2", data: path.join(os.tmpdir(), "pisess-bench-fleet") };
for (let i = 0; i < argv.length; i++) if (argv[i].startsWith("--")) opt[argv[i].slice(2)] = argv[++i];
const N = Number(opt.sessions);
const units = { K: 1e3, M: 1e6, G: 1e9 };
const SIZE = Number.parseFloat(opt.size) * (units[opt.size.slice(-1).toUpperCase()] ?? 1);
const ROUNDS = Number(opt.rounds);
// ccusage reads its config from HOME; an empty one keeps a developer's config out of the run.
const HOME = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-fleet-home-"));

function fleet(sessions, size) {
  const dir = path.join(opt.data, `${sessions}`);
  const marker = path.join(dir, ".shape");
  const shape = `v2 ${sessions} ${size}`;
  if (!(fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === shape)) {
    console.error(`generating ${sessions} sessions, ~${(size / 1e6).toFixed(0)} MB in ${dir} …`);
    generateFleet({ dir, sessions, size, forks: 0.1 });
    fs.writeFileSync(marker, shape);
  }
  return dir;
}

function timed(cmd, args) {
  const start = process.hrtime.bigint();
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S %M", cmd, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, HOME, NO_COLOR: "1" },
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const m = /(\S+) (\S+) (\d+)\s*$/.exec(r.stderr);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}\n${r.stderr.slice(-2000)}`);
  // CPU seconds (user + system) above the wall time: more than one core at work.
  return { wall, cpu: m ? Number(m[1]) + Number(m[2]) : Number.NaN, rssMB: m ? Number(m[3]) / 1024 : Number.NaN, stdout: r.stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function measure(sessions, size) {
  const dir = fleet(sessions, size);
  const mb = Number(spawnSync("du", ["-sm", dir], { encoding: "utf8" }).stdout.split("\t")[0]);
  const runs = { usage: [], ccusage: [] };
  const load = [];
  for (let r = 0; r < ROUNDS; r++) {
    load.push(os.loadavg()[0]);
    // Alternate who goes first, so neither always gets the warmer page cache.
    const order = r % 2 === 0 ? ["usage", "ccusage"] : ["ccusage", "usage"];
    for (const which of order) {
      if (which === "usage")
        runs.usage.push(timed(process.execPath, [BIN, "usage", dir, "--by", "day,model", "--timezone", "UTC", "--json"]));
      else runs.ccusage.push(timed(process.execPath, [CCUSAGE, "pi", "daily", "--json", "--offline", "-z", "UTC", "--pi-path", dir]));
      console.error(`  ${sessions}: ${which} ${runs[which].at(-1).wall.toFixed(1)} s`);
    }
  }
  const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-fleet-tables-"));
  const tablesDir = path.join(outRoot, "t");
  load.push(os.loadavg()[0]);
  const tables = timed(process.execPath, [BIN, "tables", dir, "--out", tablesDir, "--format", "parquet"]);
  console.error(`  ${sessions}: tables ${tables.wall.toFixed(1)} s`);
  const query =
    "SELECT model, count(*) AS n, sum(total_tokens) AS tokens, sum(cost) AS cost FROM messages WHERE NOT is_copied GROUP BY model ORDER BY model";
  const sql = [0, 1, 2].map(() => timed(process.execPath, [BIN, "sql", "--tables", tablesDir, query, "--json"]));
  const parquetMB = fs.readdirSync(tablesDir).reduce((n, f) => n + fs.statSync(path.join(tablesDir, f)).size, 0) / 1e6;
  fs.rmSync(outRoot, { recursive: true, force: true });
  const totals = JSON.parse(runs.usage[0].stdout).totals;
  const sqlRows = JSON.parse(sql[0].stdout).rows;
  const sqlTurns = sqlRows.reduce((n, r) => n + Number(r.n), 0);
  const cc = JSON.parse(runs.ccusage[0].stdout).totals;
  return { sessions, mb, runs, tables, sql, parquetMB, totals, sqlTurns, cc, load };
}

const small = measure(Math.max(1, Math.round(N / 10)), SIZE / 10);
const big = measure(N, SIZE);

const row = (name, xs) =>
  `| ${name} | ${median(xs.map((x) => x.wall)).toFixed(2)} | ${median(xs.map((x) => x.cpu)).toFixed(2)} | ${Math.max(...xs.map((x) => x.rssMB)).toFixed(0)} | ${xs.length} |`;
const lines = [];
const day = new Date().toISOString().slice(0, 10);
lines.push("## fleet", "", `\`node bench/fleet.mjs --sessions ${N} --size ${opt.size} --rounds ${ROUNDS}\`, ${day}.`, "");
lines.push(
  `Generated fleets (bench/fleet-gen.mjs): user/assistant turns with usage, 10% forks copying part of an earlier session, every 17th session in a nested \`subagents/\` folder. ccusage ${JSON.parse(fs.readFileSync(path.join(HERE, "node_modules", "ccusage", "package.json"), "utf8")).version} (native linux-x64 binary). Runs interleaved, who goes first alternating; ${os.cpus().length} cores, 1-min load average ${load(small, big)} during the runs.`,
  "",
);
for (const f of [small, big]) {
  lines.push(
    `### ${f.sessions} sessions, ${f.mb} MB`,
    "",
    "| task | wall s (median) | CPU s (median) | peak RSS MB | runs |",
    "|---|---:|---:|---:|---:|",
  );
  lines.push(row("pisess usage --by day,model", f.runs.usage));
  lines.push(row("ccusage pi daily --offline", f.runs.ccusage));
  lines.push(row("pisess tables --format parquet", [f.tables]));
  lines.push(row("pisess sql --tables (group-by over messages)", f.sql));
  lines.push("");
  lines.push(
    `Counted: pisess ${f.totals.turns} turns once each, ${f.totals.totalTokens} tokens; ccusage ${f.cc.totalTokens} tokens; sql counted ${f.sqlTurns} messages not copied. Parquet written: ${f.parquetMB.toFixed(0)} MB.`,
    "",
  );
}
const u = (f) => median(f.runs.usage.map((x) => x.wall));
const c = (f) => median(f.runs.ccusage.map((x) => x.wall));
const check = (ok, text) => lines.push(`- ${ok ? "✅" : "❌"} ${text}`);
check(u(big) <= c(big), `usage wall ≤ ccusage pi daily wall at ${N}: ${u(big).toFixed(2)} vs ${c(big).toFixed(2)} s`);
const rss = Math.max(...big.runs.usage.map((x) => x.rssMB));
check(rss <= 512, `usage peak RSS ≤ 512 MB: ${rss.toFixed(0)} MB`);
check(
  big.tables.wall <= 2 * u(big),
  `tables --format parquet ≤ 2× usage: ${big.tables.wall.toFixed(2)} s = ${(big.tables.wall / u(big)).toFixed(2)}×`,
);
const q = median(big.sql.map((x) => x.wall));
check(q < 1, `sql group-by over all messages (whole process) under 1 s: ${q.toFixed(2)} s`);
const per = (f) => u(f) / f.sessions;
const growth = per(big) / per(small);
check(growth <= 1.25, `linear: usage time per session at ${N} within 25% of ${small.sessions}: ${(growth).toFixed(2)}×`);
console.log(lines.join("\n"));
fs.rmSync(HOME, { recursive: true, force: true });

function load(...fs_) {
  const all = fs_.flatMap((f) => f.load);
  return `${Math.min(...all).toFixed(1)}–${Math.max(...all).toFixed(1)}`;
}

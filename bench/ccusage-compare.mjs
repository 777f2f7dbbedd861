#!/usr/bin/env node
// pisess usage side by side with `ccusage pi daily|monthly|session --json --offline` (issue 14), on generated fleets
// (bench/fleet-gen.mjs). Exits 1 on any mismatch. Checks:
//   1. a fleet without forks: tokens (input, output, cache read, cache write, total) and recorded cost per day,
//      month and session are equal;
//   2. a fleet with forks: pisess --include-copied less pisess equals the copied entries' sums, computed here from
//      the generator's list of copied lines (not from pisess); and ccusage equals pisess (ccusage ≥ 20.0.21 leaves
//      fork copies out too: ccusage#1634);
//   3. one project folder of that fleet, whose forks' parents are partly in other folders: pisess still leaves the
//      copies out (it reads the parent named by parentSession from disk); ccusage, seeing only the folder, counts
//      once each copied entry that no file in the folder wrote first. The difference must equal those entries.
//   node bench/ccusage-compare.mjs [--keep]      (fleets under the OS temp dir; --keep leaves them there)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateFleet } from "./fleet-gen.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, "..", "bin", "pisess.js");
const CCUSAGE = path.join(HERE, "node_modules", "ccusage", "src", "cli.js");
const ROOT = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-ccusage-"));
// An empty HOME: no ccusage config of the developer's, no ~/.pi sessions.
const HOME = path.join(ROOT, "home");
fs.mkdirSync(HOME);
const FIELDS = ["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"];

function run(args) {
  const r = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 28, env: { ...process.env, HOME, NO_COLOR: "1" } });
  if (r.status !== 0) throw new Error(`${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

const zero = () => Object.fromEntries(FIELDS.map((f) => [f, 0]));
const stem = (file) => path.basename(file, ".jsonl");

/** pisess usage by day, month or session: key → sums. */
function pisess(dir, by, extra = []) {
  const out = run([BIN, "usage", dir, "--by", by, "--timezone", "UTC", "--json", ...extra]);
  return new Map(out.rows.map((r) => [by === "session" ? stem(r.session) : r[by], pick(r)]));
}

function pick(r) {
  return Object.fromEntries(FIELDS.map((f) => [f, r[f]]));
}

/** ccusage pi daily|monthly|session: key → sums, named as pisess names them. */
function ccusage(dir, report) {
  const out = run([CCUSAGE, "pi", report, "--json", "--offline", "-z", "UTC", "--pi-path", dir]);
  const list = out[report === "daily" ? "daily" : report === "monthly" ? "monthly" : "sessions"];
  const key = report === "daily" ? "date" : report === "monthly" ? "month" : "sessionId";
  return new Map(
    list.map((r) => [
      r[key],
      {
        input: r.inputTokens,
        output: r.outputTokens,
        cacheRead: r.cacheReadTokens,
        cacheWrite: r.cacheCreationTokens,
        totalTokens: r.totalTokens,
        cost: r.totalCost,
      },
    ]),
  );
}

/** Sums of assistant usage in raw JSONL lines, by day, month and the file they sit in. */
function sumLines(items) {
  const out = { day: new Map(), month: new Map(), session: new Map() };
  for (const { file, line } of items) {
    const e = JSON.parse(line);
    const u = e.message?.role === "assistant" ? e.message.usage : undefined;
    if (!u) continue;
    const keys = { day: e.timestamp.slice(0, 10), month: e.timestamp.slice(0, 7), session: stem(file) };
    for (const by of ["day", "month", "session"]) {
      const m = out[by];
      const s = m.get(keys[by]) ?? zero();
      s.input += u.input;
      s.output += u.output;
      s.cacheRead += u.cacheRead;
      s.cacheWrite += u.cacheWrite;
      s.totalTokens += u.input + u.output + u.cacheRead + u.cacheWrite;
      s.cost += u.cost.total;
      m.set(keys[by], s);
    }
  }
  return out;
}

let failures = 0;
const table = [];

/** Checks a − b == expected, key by key and field by field (tokens exact, cost to 1e-6). */
function expectDiff(label, a, b, expected) {
  const keys = new Set([...a.keys(), ...b.keys(), ...expected.keys()]);
  let bad = 0;
  const total = { a: zero(), b: zero(), d: zero() };
  for (const k of [...keys].sort()) {
    const x = a.get(k) ?? zero();
    const y = b.get(k) ?? zero();
    const e = expected.get(k) ?? zero();
    for (const f of FIELDS) {
      total.a[f] += x[f];
      total.b[f] += y[f];
      total.d[f] += e[f];
      const d = x[f] - y[f];
      const ok = f === "cost" ? Math.abs(d - e[f]) < 1e-6 : d === e[f];
      if (!ok) {
        if (bad++ < 5) console.error(`  ${label} ${k} ${f}: ${x[f]} − ${y[f]} = ${d}, expected ${e[f]}`);
      }
    }
  }
  failures += bad > 0 ? 1 : 0;
  table.push({ label, rows: keys.size, ok: bad === 0, a: total.a, b: total.b, d: total.d });
  console.error(`${bad === 0 ? "ok  " : "FAIL"} ${label}: ${keys.size} rows`);
}

const none = new Map();
const SHAPE = { sessions: 150, size: 4e6, filler: 200, stepMs: 600_000 };

// 1. No forks.
const plain = path.join(ROOT, "plain");
generateFleet({ dir: plain, ...SHAPE, forks: 0, seed: 11 });
expectDiff("no forks, per day: ccusage − pisess = 0", ccusage(plain, "daily"), pisess(plain, "day"), none);
expectDiff("no forks, per month: ccusage − pisess = 0", ccusage(plain, "monthly"), pisess(plain, "month"), none);
expectDiff("no forks, per session: ccusage − pisess = 0", ccusage(plain, "session"), pisess(plain, "session"), none);

// 2. Forks (30% of sessions, forks of forks among them).
const forked = path.join(ROOT, "forked");
const copies = generateFleet({ dir: forked, ...SHAPE, forks: 0.3, seed: 12, manifest: true });
const copied = sumLines(copies.flatMap((c) => c.lines.map((line) => ({ file: c.file, line }))));
for (const by of ["day", "month", "session"]) {
  expectDiff(
    `forks, per ${by}: pisess --include-copied − pisess = copied entries`,
    pisess(forked, by, ["--include-copied"]),
    pisess(forked, by),
    copied[by],
  );
}
expectDiff("forks, per day: ccusage − pisess = 0", ccusage(forked, "daily"), pisess(forked, "day"), none);
expectDiff("forks, per month: ccusage − pisess = 0", ccusage(forked, "monthly"), pisess(forked, "month"), none);
expectDiff("forks, per session: ccusage − pisess = 0", ccusage(forked, "session"), pisess(forked, "session"), none);

// 3. One project folder of the forked fleet: copies whose first writer is outside it.
const folder = path.join(forked, "--home-dev-p3--");
const inside = (f) => f.startsWith(`${folder}${path.sep}`);
// Lines first written by a file in the folder: its lines that are not copies of another file's.
const ownInFolder = new Set();
const copiesOf = new Map(copies.map((c) => [c.file, new Set(c.lines)]));
for (const file of walk(folder)) {
  const mine = copiesOf.get(file) ?? new Set();
  for (const l of fs.readFileSync(file, "utf8").split("\n").slice(1)) if (l !== "" && !mine.has(l)) ownInFolder.add(l);
}
const outsiders = new Map();
for (const c of copies.filter((c) => inside(c.file)))
  for (const line of c.lines) if (!ownInFolder.has(line) && !outsiders.has(line)) outsiders.set(line, { file: c.file, line });
const extra = sumLines([...outsiders.values()]);
expectDiff(
  "one folder of the forked fleet, per day: ccusage − pisess = copies first written outside the folder",
  ccusage(folder, "daily"),
  pisess(folder, "day"),
  extra.day,
);

function* walk(dir) {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) yield* walk(p);
    else if (d.name.endsWith(".jsonl")) yield p;
  }
}

// The Markdown table for docs/commands/usage.md.
const fmt = (s) => `${s.totalTokens.toLocaleString("en-US")} tok, $${s.cost.toFixed(2)}`;
console.log("| check | rows | left | right | expected difference | result |");
console.log("|---|---:|---:|---:|---:|---|");
for (const t of table) console.log(`| ${t.label} | ${t.rows} | ${fmt(t.a)} | ${fmt(t.b)} | ${fmt(t.d)} | ${t.ok ? "equal" : "MISMATCH"} |`);
if (!process.argv.includes("--keep")) fs.rmSync(ROOT, { recursive: true, force: true });
else console.error(`fleets kept in ${ROOT}`);
process.exit(failures > 0 ? 1 : 0);

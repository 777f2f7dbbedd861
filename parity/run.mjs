#!/usr/bin/env node
// Parity suite: pisess vs pi 1.6.0 (the reference) and pi 0.73.1.
// Generates sessions into parity/work/ (fixed seeds): plain v1/v2/v3 ones and v3 ones with pi 1.6's features
// (gen.mjs --pi-features); adds every fixtures/corpus/*.jsonl; computes pi's answer with oracle.mjs; then compares
// pisess's context of every leaf, both the SessionContext view and the --llm (convertToLlm) view:
//   - every leaf in-process, through the built library (pisess-adapter.mjs pisessLeaves);
//   - a sample of leaves per file (first, default, last, cycle leaves) through the CLI, end to end.
// Files that use pi 1.6 features (context_edit, usage, system messages, compaction systemMessage, null/missing
// content: see usesPi16Features) are compared with pi 1.6.0 only; all others with both versions. Where both versions
// were run, their own answers are compared too, and the differences are listed (information: pi vs pi).
//
//   node parity/run.mjs [--pi 0.73|1.6|both] [--count N] [--count16 N] [--cli K|all] [--concurrency C] [--show K]
//                       [--strict] [--only SUBSTR] [--fixtures DIR]
//   PARITY_SELFTEST=1 node parity/run.mjs      (adapter answers from the oracle: must report all passing)
//
// One check = one (file, leaf, view, pi version, way in). A check passes when:
//   - pi would hang on the leaf (parent cycle): pisess exits with code 1;
//   - otherwise pisess exits 0, doc.leaf.line is the leaf's line (and doc.leaf.id pi's id, except v1 where pi invents
//     ids), and doc.thinkingLevel / doc.model / doc.messages deep-equal pi's context (or convertToLlm output).
// Leaves where pi itself throws (contextError), or where pi resolves the leaf to another entry (duplicate or missing
// id: resolvedLine/contextLeafLine) are reported as skipped unless --strict; files a pi version refuses or resets
// (bad header) are skipped for that version.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { cloneDeep, firstDiff, preview } from "./diff.mjs";
import { writeSession } from "./gen.mjs";
import { computeOracle, PI, stripIds } from "./oracle.mjs";
import { adapterMode, assertBuilt, pisessContext, pisessLeaves, REPO_ROOT } from "./pisess-adapter.mjs";

const SELF = fileURLToPath(import.meta.url);
const HERE = path.dirname(SELF);
const WORK = path.join(HERE, "work");
const PI_ORDER = ["1.6", "0.73"];

function parseArgs(argv) {
  const o = {
    pi: PI_ORDER,
    count: 200,
    count16: 100,
    cli: 3,
    concurrency: Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 8)),
    show: 5,
    strict: false,
    only: null,
    fixtures: path.join(REPO_ROOT, "fixtures", "corpus"),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--count") o.count = Number(argv[++i]);
    else if (a === "--count16") o.count16 = Number(argv[++i]);
    else if (a === "--pi") {
      const v = argv[++i];
      if (v === "both") o.pi = PI_ORDER;
      else if (PI_ORDER.includes(v)) o.pi = [v];
      else usage(`--pi takes 0.73, 1.6 or both, not ${v}`);
    } else if (a === "--cli") {
      const v = argv[++i];
      o.cli = v === "all" ? Infinity : Number(v);
    } else if (a === "--concurrency") o.concurrency = Number(argv[++i]);
    else if (a === "--show") o.show = Number(argv[++i]);
    else if (a === "--strict") o.strict = true;
    else if (a === "--only") o.only = argv[++i];
    else if (a === "--fixtures") o.fixtures = argv[++i];
    else usage(`unknown argument ${a}`);
  }
  for (const k of ["count", "count16", "show"]) if (!Number.isInteger(o[k]) || o[k] < 0) usage(`--${k} must be a non-negative integer`);
  if (!(o.cli === Infinity || (Number.isInteger(o.cli) && o.cli >= 0))) usage("--cli takes a non-negative integer or all");
  if (!Number.isInteger(o.concurrency) || o.concurrency < 1) usage("--concurrency must be >= 1");
  if (!o.pi.includes("1.6")) o.count16 = 0; // feature files are compared with 1.6 only
  return o;
}

function usage(msg) {
  console.error(
    `parity: ${msg}\nusage: node parity/run.mjs [--pi 0.73|1.6|both] [--count N] [--count16 N] [--cli K|all] [--concurrency C] [--show K] [--strict] [--only SUBSTR] [--fixtures DIR]`,
  );
  process.exit(2);
}

// Fixed plan: session i -> seed, version, size. Mostly v3, then v2, then v1; sizes from tiny to ~1200 entries.
const VERSIONS = [3, 3, 2, 1, 3, 2, 3, 1];
const SIZES = [1, 3, 8, 20, 40, 80, 120, 200, 300, 450, 700, 1200];
const size = (i) => SIZES[(i * 5 + Math.floor(i / SIZES.length)) % SIZES.length];
export function plan(count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const seed = 1000 + i * 7919;
    const version = VERSIONS[i % VERSIONS.length];
    const entries = size(i);
    out.push({ seed, version, entries, file: path.join(WORK, `gen-${String(i).padStart(4, "0")}-v${version}-s${seed}-n${entries}.jsonl`) });
  }
  return out;
}
/** v3 sessions with pi 1.6's features (gen.mjs piFeatures). */
export function plan16(count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const seed = 500000 + i * 7919;
    const entries = size(i + 3);
    out.push({
      seed,
      version: 3,
      entries,
      piFeatures: true,
      file: path.join(WORK, `gen16-${String(i).padStart(4, "0")}-s${seed}-n${entries}.jsonl`),
    });
  }
  return out;
}

/**
 * True when the file holds something pi 1.6 reads differently from 0.73 (so that pisess, which follows 1.6, cannot
 * equal both): context_edit or usage entries, system messages, a compaction's systemMessage, message content null or
 * missing, a custom_message without content. Passed-through additions (thinking level max, cacheWrite1h, usage on
 * compactions and branch summaries) are not such features.
 */
export function usesPi16Features(file) {
  const text = fs.readFileSync(file, "utf8");
  for (const line of text.split("\n")) {
    if (!/context_edit|"usage"|"system"|systemMessage|"content":null|"message"|custom_message/.test(line)) continue;
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (!e || typeof e !== "object") continue;
    if (e.type === "context_edit" || e.type === "usage") return true;
    if (e.type === "compaction" && e.systemMessage) return true;
    if (e.type === "custom_message" && e.content == null) return true;
    if (e.type === "message" && e.message && typeof e.message === "object") {
      const role = e.message.role;
      if (role === "system") return true;
      if ((role === "user" || role === "assistant" || role === "toolResult") && e.message.content == null) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------- one file
/** Leaves a pi version's answer lets us compare, and the rest as skips. */
function comparable(res, opts, file, pi, skips) {
  const out = [];
  for (const leaf of res.leaves) {
    if (!opts.strict && leaf.contextError) {
      skips.push({ file, pi, line: leaf.line, reason: `pi throws: ${leaf.contextError}` });
      continue;
    }
    if (!opts.strict && (leaf.resolvedLine !== undefined || leaf.contextLeafLine !== undefined)) {
      skips.push({ file, pi, line: leaf.line, reason: `pi resolves this leaf to line ${leaf.resolvedLine ?? leaf.contextLeafLine}` });
      continue;
    }
    out.push(leaf);
  }
  return out;
}

/** The CLI sample: first, default and last leaf, and every cycle leaf, at most `max`; views alternate. */
function cliSample(leaves, max, salt) {
  if (max === Infinity)
    return leaves.flatMap((leaf) => [
      { leaf, llm: false },
      { leaf, llm: true },
    ]);
  const picked = [];
  const add = (l) => l && !picked.includes(l) && picked.push(l);
  add(leaves.find((l) => l.default));
  for (const l of leaves) if (l.error) add(l);
  add(leaves[0]);
  add(leaves[leaves.length - 1]);
  return picked.slice(0, max).map((leaf, k) => ({ leaf, llm: (salt + k) % 2 === 1 }));
}

export async function checkFile(task, opts) {
  const { file } = task;
  if (task.seed !== undefined) writeSession(file, task.seed, { version: task.version, entries: task.entries, piFeatures: task.piFeatures });
  const r = { file, passed: 0, failures: [], skips: [], piDiffs: [], versions: [], ways: { lib: 0, cli: 0 }, cliRuns: 0 };
  const with16 = task.piFeatures === true || usesPi16Features(file);
  const oracles = {};
  for (const pi of opts.pi) {
    if (pi === "0.73" && with16) {
      // pisess follows 1.6 where the two differ; such files are compared with 1.6 only
      if (!opts.pi.includes("1.6")) r.skips.push({ file, pi, reason: "uses pi 1.6 features (compared with pi 1.6 only)" });
      continue;
    }
    let res;
    try {
      res = computeOracle(file, { pi });
    } catch (err) {
      r.skips.push({ file, pi, reason: `oracle failed: ${err.message}` });
      continue;
    }
    if (!res.open?.ok || res.open.reset) {
      r.skips.push({
        file,
        pi,
        reason: `pi ${pi} ${res.open?.ok ? "resets" : "refuses"} this file${res.open?.error ? ` (${res.open.error})` : ""}`,
      });
      oracles[pi] = null;
      continue;
    }
    oracles[pi] = res;
    r.versions.push(pi);
  }
  if (oracles["0.73"] !== undefined && oracles["1.6"] !== undefined)
    for (const d of piDifferences(file, oracles["0.73"], oracles["1.6"])) r.piDiffs.push(d);

  const record = (pi, leaf, llm, way, answer, idsSynthetic) => {
    r.ways[way]++;
    const problem = judge({ leaf, llm, idsSynthetic, cli: way === "cli" }, answer.exitCode, answer.doc, answer.stderr);
    if (problem) r.failures.push({ file, pi, line: leaf.line, llm, way, ...problem });
    else r.passed++;
  };
  const cmp = {};
  for (const pi of r.versions) cmp[pi] = comparable(oracles[pi], opts, file, pi, r.skips);
  // The CLI runs start first and are awaited last: their wall time overlaps the in-process comparisons.
  const cli = [];
  const base = r.versions[0];
  if (base) {
    for (const { leaf, llm } of cliSample(cmp[base], opts.cli, task.index)) {
      for (const pi of r.versions) {
        const mine = cmp[pi].find((l) => l.line === leaf.line);
        if (mine) cli.push({ pi, leaf: mine, llm, answer: pisessContext(file, leaf.line, llm, { pi }) });
      }
      r.cliRuns++;
    }
  }
  for (const pi of r.versions) {
    const res = oracles[pi];
    const answers = await pisessLeaves(
      file,
      cmp[pi].map((l) => l.line),
      { pi },
    );
    for (const leaf of cmp[pi]) {
      const a = answers.get(leaf.line);
      record(pi, leaf, false, "lib", a.ctx, !!res.idsSynthetic);
      record(pi, leaf, true, "lib", a.llm, !!res.idsSynthetic);
    }
  }
  for (const c of cli) record(c.pi, c.leaf, c.llm, "cli", await c.answer, !!oracles[c.pi].idsSynthetic);
  return r;
}

/**
 * pi 0.73.1 vs pi 1.6.0 on one file (what each computes, not what pisess does): the first difference in the
 * file-level fields, then leaf by leaf. Fields only 1.6 reports (piVersion, open.appendsNewline, messageLines, edits)
 * are left out.
 */
function piDifferences(file, a, b) {
  if (!a || !b) return [{ file, line: null, path: "$.open.ok", old: preview(!!a), new: preview(!!b) }];
  if (a.idsSynthetic || b.idsSynthetic) {
    // v1: each run of pi invents other ids. No structuredClone: it recurses, and pi's tree of a long chain nests
    // one level per entry (a stack overflow on the main thread, --concurrency 1)
    a = stripIds(cloneDeep(a));
    b = stripIds(cloneDeep(b));
  }
  const out = [];
  const fileLevel = (d) => {
    const { oracle, piVersion, leaves, ...rest } = d;
    return { ...rest, open: { ...d.open, appendsNewline: undefined } };
  };
  const fd = firstDiff(fileLevel(a), fileLevel(b));
  if (fd) out.push({ file, line: null, path: fd.path, old: fd.expected, new: fd.actual });
  const byLine = new Map(b.leaves.map((l) => [l.line, l]));
  const pick = (l) => l && { error: l.error, contextError: l.contextError, path: l.path, context: l.context, llm: l.llm };
  for (const la of a.leaves) {
    const d = firstDiff(pick(la), pick(byLine.get(la.line)), "$.leaf");
    if (d) out.push({ file, line: la.line, path: d.path, old: d.expected, new: d.actual });
  }
  return out;
}

/** Returns null when pisess agrees with pi for this job, else {what, diff?, stderr?}. */
function judge(job, exitCode, doc, stderr) {
  const { leaf, llm } = job;
  if (leaf.error === "cycle") {
    if (exitCode === 1) return null;
    return {
      what: `pi never returns here (parent cycle through lines ${leaf.cycleLines.join(",")}); expected exit code 1, got ${exitCode}`,
      stderr,
    };
  }
  if (leaf.contextError) {
    return { what: `pi throws (${leaf.contextError}); pisess exit ${exitCode}`, stderr };
  }
  if (exitCode !== 0) return { what: `exit code ${exitCode}, expected 0`, stderr };
  if (!doc || typeof doc !== "object") return { what: "stdout is not one JSON document", stderr };
  const expected = {
    // an entry without id: pi's leaf id is undefined, the CLI's JSON says null
    leaf: job.idsSynthetic ? { line: leaf.line } : { id: leaf.id ?? null, line: leaf.line },
    thinkingLevel: leaf.context.thinkingLevel,
    model: leaf.context.model,
    // Through the CLI, a string with a lone surrogate is written with U+FFFD in its place (UTF-8 cannot hold
    // one; the lone-surrogate diagnostic says so); in-process, pisess's messages hold pi's strings as they are.
    messages: job.cli ? cloneDeep(llm ? leaf.llm : leaf.context.messages, (s) => s.toWellFormed()) : llm ? leaf.llm : leaf.context.messages,
  };
  const actual = {
    leaf: job.idsSynthetic ? { line: doc.leaf?.line } : { id: doc.leaf?.id, line: doc.leaf?.line },
    thinkingLevel: doc.thinkingLevel,
    model: doc.model,
    messages: doc.messages,
  };
  const diff = firstDiff(expected, actual);
  if (!diff) return null;
  // the roles of the two messages where they part, to tell mismatch classes apart
  const at = /^\$\.messages\[(\d+)\]/.exec(diff.path);
  const roleAt = (list) => (at && Array.isArray(list) ? (list[Number(at[1])]?.role ?? "-") : undefined);
  const roles = at ? { pi: roleAt(expected.messages), pisess: roleAt(actual.messages) } : undefined;
  return { what: `${llm ? "convertToLlm output" : "SessionContext"} differs`, diff, roles };
}

export { judge, preview };

// ---------------------------------------------------------------- driver
async function runAll(tasks, opts) {
  const results = new Array(tasks.length);
  if (opts.concurrency === 1) {
    for (let i = 0; i < tasks.length; i++) results[i] = await checkFile(tasks[i], opts);
    return results;
  }
  let next = 0;
  const n = Math.min(opts.concurrency, tasks.length);
  await Promise.all(
    Array.from({ length: n }, () => {
      const w = new Worker(SELF, { workerData: { opts: { ...opts, cli: opts.cli === Infinity ? "all" : opts.cli } } });
      return new Promise((resolve, reject) => {
        let current = -1;
        const feed = () => {
          if (next >= tasks.length) {
            w.terminate().then(resolve);
            return;
          }
          current = next++;
          w.postMessage(tasks[current]);
        };
        w.on("message", (res) => {
          results[current] = res;
          feed();
        });
        w.on("error", reject);
        feed();
      });
    }),
  );
  return results;
}

if (!isMainThread && workerData?.opts) {
  const opts = { ...workerData.opts, cli: workerData.opts.cli === "all" ? Infinity : workerData.opts.cli };
  parentPort.on("message", async (task) => {
    try {
      parentPort.postMessage(await checkFile(task, opts));
    } catch (err) {
      parentPort.postMessage({
        file: task.file,
        passed: 0,
        failures: [{ file: task.file, pi: "-", line: 0, llm: false, way: "-", what: `runner error: ${err?.stack ?? err}` }],
        skips: [],
        piDiffs: [],
        versions: [],
        ways: { lib: 0, cli: 0 },
        cliRuns: 0,
      });
    }
  });
}

/** A JSON path with array indices blanked, for grouping differences into classes. */
const pathClass = (p) => (p ?? "").replace(/\[\d+\]/g, "[]");
const rel = (f) => path.relative(process.cwd(), f);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  assertBuilt();
  const t0 = Date.now();
  fs.mkdirSync(WORK, { recursive: true });
  for (const f of fs.readdirSync(WORK)) if (/^gen(16)?-.*\.jsonl$/.test(f)) fs.rmSync(path.join(WORK, f));

  const tasks = [...plan(opts.count), ...plan16(opts.count16)];
  let nFixtures = 0;
  if (fs.existsSync(opts.fixtures)) {
    for (const f of fs.readdirSync(opts.fixtures).sort()) {
      if (!f.endsWith(".jsonl")) continue;
      tasks.push({ file: path.join(opts.fixtures, f) });
      nFixtures++;
    }
  } else console.log(`parity: note: no fixtures dir ${opts.fixtures}`);
  const selected = (opts.only ? tasks.filter((t) => t.file.includes(opts.only)) : tasks).map((t, index) => ({ ...t, index }));
  const piNames = opts.pi.map((k) => `pi ${PI[k].version}`).join(" + ");
  console.log(
    `parity: ${selected.length} files (${opts.count} plain generated, ${opts.count16} with pi 1.6 features, ${nFixtures} fixtures), ${piNames}, adapter: ${adapterMode}, CLI sample ${opts.cli === Infinity ? "all" : opts.cli}/file, concurrency ${opts.concurrency}`,
  );

  const results = await runAll(selected, opts);
  let passed = 0;
  const failures = [];
  const skips = [];
  const piDiffs = [];
  const perVersion = {};
  const ways = { lib: 0, cli: 0 };
  let cliRuns = 0;
  for (const r of results) {
    ways.lib += r.ways?.lib ?? 0;
    ways.cli += r.ways?.cli ?? 0;
    cliRuns += r.cliRuns ?? 0;
    passed += r.passed;
    // one at a time: a spread of a long list into push overflows the stack
    for (const f of r.failures) failures.push(f);
    for (const s of r.skips) skips.push(s);
    for (const d of r.piDiffs) piDiffs.push(d);
    for (const v of r.versions) perVersion[v] = (perVersion[v] ?? 0) + 1;
  }
  console.log(
    `parity: files compared: ${Object.entries(perVersion)
      .map(([v, n]) => `${n} with pi ${PI[v].version}`)
      .join(", ")}; checks: ${ways.lib} in-process, ${ways.cli} through the CLI (${cliRuns} CLI runs)`,
  );

  failures.sort((a, b) =>
    a.file < b.file
      ? -1
      : a.file > b.file
        ? 1
        : a.line - b.line || Number(a.llm) - Number(b.llm) || (a.pi < b.pi ? -1 : a.pi > b.pi ? 1 : 0),
  );
  for (const f of failures.slice(0, opts.show)) {
    console.log(`MISMATCH ${rel(f.file)} leaf @${f.line}${f.llm ? " --llm" : ""} vs pi ${PI[f.pi]?.version ?? f.pi} (${f.way}): ${f.what}`);
    if (f.diff) console.log(`  at ${f.diff.path}\n  pi:     ${f.diff.expected}\n  pisess: ${f.diff.actual}`);
    if (f.stderr) console.log(`  stderr: ${f.stderr.trim().split("\n").slice(0, 3).join(" | ").slice(0, 300)}`);
    console.log(`  repro: node bin/pisess.js context ${path.relative(REPO_ROOT, f.file)} --leaf @${f.line} --json${f.llm ? " --llm" : ""}`);
  }
  if (failures.length > opts.show) console.log(`... and ${failures.length - opts.show} more mismatches`);
  if (failures.length) {
    // classes: pi version, what, JSON path without indices; one example each
    const classes = new Map();
    for (const f of failures) {
      const where = f.diff
        ? `${f.llm ? "--llm" : "context"} differs at ${pathClass(f.diff.path)}${f.roles ? ` (message roles: pi ${f.roles.pi}, pisess ${f.roles.pisess})` : ""}`
        : f.what.replace(/\d+(,\d+)*/g, "N");
      const key = `pi ${PI[f.pi]?.version ?? f.pi}: ${where}`;
      const c = classes.get(key) ?? { n: 0, files: new Set(), ex: f };
      c.n++;
      c.files.add(f.file);
      classes.set(key, c);
    }
    console.log(`parity: mismatch classes (${classes.size}${classes.size > 20 ? ", the 20 largest" : ""}):`);
    for (const [key, c] of [...classes].sort((a, b) => b[1].n - a[1].n).slice(0, 20)) {
      console.log(
        `  ${c.n} checks in ${c.files.size} files: ${key}\n    e.g. ${rel(c.ex.file)} @${c.ex.line}${c.ex.llm ? " --llm" : ""} (${c.ex.way})${c.ex.diff ? ` at ${c.ex.diff.path}` : ""}`,
      );
    }
  }
  if (skips.length) {
    console.log(`parity: ${skips.length} skipped (not comparable${opts.strict ? "" : "; --strict to include leaves"})`);
    for (const s of skips.slice(0, 5))
      console.log(`  skip ${rel(s.file)}${s.line ? ` @${s.line}` : ""} (pi ${PI[s.pi]?.version ?? s.pi}): ${s.reason}`);
  }
  if (opts.pi.length > 1) {
    const classes = new Map();
    for (const d of piDiffs) {
      const key = pathClass(d.path);
      const c = classes.get(key) ?? { n: 0, ex: d };
      c.n++;
      classes.set(key, c);
    }
    console.log(
      `parity: pi 0.73.1 vs pi 1.6.0 on the files compared with both: ${piDiffs.length ? `${piDiffs.length} differences` : "same contexts"}`,
    );
    for (const [key, c] of classes)
      console.log(
        `  ${c.n} at ${key}, e.g. ${rel(c.ex.file)}${c.ex.line === null ? "" : ` @${c.ex.line}`}: ${c.ex.old} (0.73) vs ${c.ex.new} (1.6)`,
      );
  }
  console.log(`parity: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`parity: ${passed} passed, ${failures.length} failed`);
  process.exit(failures.length ? 1 : 0);
}

if (isMainThread && process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  main().catch((err) => {
    console.error(err?.stack ?? err);
    process.exit(2);
  });
}

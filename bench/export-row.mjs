#!/usr/bin/env node
// The export benchmark rows: `pisess export --format html` wall time and peak RSS, and the page's time to
// interactive in Chromium, for generated 10 MB and 100 MB sessions.
//   node bench/export-row.mjs [--sizes 10,100] [--runs 3] [--keep] [--no-write]
// Inputs as bench/run.mjs makes them: `parity/gen.mjs --seed 7 --version 3 --bytes N` into the temp folder (reused
// when present). The page is opened from file:// in Chromium from the system (/usr/bin/chromium, or PISESS_CHROMIUM),
// driven by playwright-core (a root devDependency), one fresh browser context per load.
//
// Time to interactive: from the start of navigation until (1) the page's script has run (body[data-ready=1]),
// (2) the tree pane shows rows and the context pane the selected leaf's messages, and (3) a click on another entry's
// row in the tree is answered: the context pane's heading names that entry's line (drawn in the same task as the
// first chunk of its messages). The
// click's own latency is reported as well.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : process.argv[i + 1];
};
const SIZES = arg("sizes", "10,100").split(",").map(Number);
const RUNS = Number(arg("runs", "3"));
const EXECUTABLE = process.env.PISESS_CHROMIUM || "/usr/bin/chromium";
const log = (s) => process.stderr.write(`${s}\n`);

function input(mb) {
  const file = path.join(os.tmpdir(), `pisess-export-bench-s7-${mb}M.jsonl`);
  if (!fs.existsSync(file)) {
    log(`generating ${file}`);
    const r = spawnSync(
      process.execPath,
      [path.join(root, "parity", "gen.mjs"), "--seed", "7", "--version", "3", "--bytes", String(mb * 1e6), "--out", `${file}.tmp`],
      {
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    if (r.status !== 0) throw new Error("parity/gen.mjs failed");
    fs.renameSync(`${file}.tmp`, file);
  }
  return file;
}

function exportTimed(file, out) {
  const timeOut = path.join(os.tmpdir(), `pisess-export-time-${process.pid}.txt`);
  fs.rmSync(out, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(
    "/usr/bin/time",
    ["-f", "%e %U %S %M", "-o", timeOut, process.execPath, path.join(root, "bin", "pisess.js"), "export", file, "-o", out],
    {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
    },
  );
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`export ${file}: exit ${r.status}: ${r.stderr.slice(-300)}`);
  const [, user, sys, kb] = fs.readFileSync(timeOut, "utf8").trim().split("\n").pop().split(/\s+/).map(Number);
  fs.rmSync(timeOut, { force: true });
  return { wall, cpu: user + sys, rssMb: kb / 1024 };
}

async function loadTimed(browser, html) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const t0 = performance.now();
  await page.goto(pathToFileURL(html).href, { timeout: 600_000 });
  await page.waitForFunction(
    () =>
      document.body.dataset.ready === "1" &&
      document.querySelector("#tree-rows .row") &&
      document.querySelector("#context section.msg, #context-head h2"),
    null,
    { timeout: 600_000, polling: "raf" },
  );
  const ready = performance.now() - t0;
  // Another entry's row in sight: the tenth drawn row that is not the selected one.
  const line = await page.evaluate(() => {
    const rows = [...document.querySelectorAll("#tree-rows .row:not(.selected)")];
    const row = rows[Math.min(9, rows.length - 1)];
    return row ? Number(row.dataset.line) : null;
  });
  if (line === null) throw new Error("no row to click");
  const c0 = performance.now();
  await page.click(`#tree-rows .row[data-line="${line}"]`);
  await page.waitForFunction(
    // The page draws the heading and the first chunk of messages in the same task.
    (l) => document.querySelector("#context-head h2")?.textContent?.includes(`line ${l}`),
    line,
    { timeout: 600_000, polling: "raf" },
  );
  const now = performance.now();
  const heapMb = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize / 1e6 : NaN));
  await context.close();
  if (errors.length > 0) throw new Error(`page errors: ${errors.join("; ")}`);
  return { ready: ready / 1e3, click: (now - c0) / 1e3, tti: (now - t0) / 1e3, heapMb };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
const loadStart = load();
const browser = await chromium.launch({ executablePath: EXECUTABLE, args: ["--no-sandbox", "--enable-precise-memory-info"] });
const rows = [];
try {
  for (const mb of SIZES) {
    const file = input(mb);
    const size = fs.statSync(file).size;
    const html = path.join(os.tmpdir(), `pisess-export-bench-${mb}M.html`);
    const ex = [];
    const pg = [];
    // Interleaved: export, then load what it wrote, RUNS times.
    for (let run = 0; run < RUNS; run++) {
      const e = exportTimed(file, html);
      log(`${mb} MB run ${run + 1}: export ${e.wall.toFixed(2)} s, ${e.rssMb.toFixed(0)} MB`);
      ex.push(e);
      const p = await loadTimed(browser, html);
      log(`${mb} MB run ${run + 1}: ready ${p.ready.toFixed(2)} s, click ${p.click.toFixed(2)} s, interactive ${p.tti.toFixed(2)} s`);
      pg.push(p);
    }
    rows.push({
      label: `${(size / 1e6).toFixed(0)} MB`,
      htmlMb: fs.statSync(html).size / 1e6,
      exportWall: median(ex.map((e) => e.wall)),
      exportCpu: median(ex.map((e) => e.cpu)),
      exportRss: Math.max(...ex.map((e) => e.rssMb)),
      ready: median(pg.map((p) => p.ready)),
      click: median(pg.map((p) => p.click)),
      tti: median(pg.map((p) => p.tti)),
      heap: Math.max(...pg.map((p) => p.heapMb)),
    });
    if (!process.argv.includes("--keep")) fs.rmSync(html, { force: true });
  }
} finally {
  await browser.close();
}
const f2 = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "–");
let md = `\n## export (\`node bench/export-row.mjs\`, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC)\n\n`;
md += `Inputs: \`parity/gen.mjs --seed 7 --version 3 --bytes N\` (as bench/run.mjs makes them). ${RUNS} runs each, export and page load interleaved; wall = median, peak RSS = largest (GNU time). Chromium ${browser.version()} (system package, headless, playwright-core), a fresh browser context per load. Load average ${loadStart} at the start, ${load()} at the end, on the same 2-core machine as above (shared with other work while it ran).\n\n`;
md +=
  "Time to interactive: navigation start until the page's script has run, the tree pane shows rows, the context pane shows the selected leaf, and a click on another entry's row has been answered (the context pane names that entry's line; the page draws it with the first chunk of that entry's messages). Ready = the same without the click; click = the click alone.\n\n";
md +=
  "| file | HTML MB | export wall s | export CPU s | export peak RSS MB | page ready s | click s | time to interactive s | page JS heap MB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
for (const r of rows)
  md += `| ${r.label} | ${f2(r.htmlMb, 1)} | ${f2(r.exportWall)} | ${f2(r.exportCpu)} | ${f2(r.exportRss, 0)} | ${f2(r.ready)} | ${f2(r.click)} | ${f2(r.tti)} | ${f2(r.heap, 0)} |\n`;
process.stdout.write(md);
if (!process.argv.includes("--no-write")) fs.appendFileSync(path.join(here, "RESULTS.md"), md);
if (!process.argv.includes("--keep"))
  for (const mb of SIZES) fs.rmSync(path.join(os.tmpdir(), `pisess-export-bench-s7-${mb}M.jsonl`), { force: true });

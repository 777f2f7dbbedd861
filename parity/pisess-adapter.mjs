// Adapter between the parity runner and pisess, two ways in:
//
//   pisessLeaves(file, lines, {pi}) -> Map(line -> {ctx: Answer, llm: Answer})
//     in-process, through the built library (dist/index.js: openSession, findByLine, pathTo, buildContext, readEntry,
//     convertToLlm), the same steps as `pisess context FILE --leaf @LINE --json [--llm]`; one open per file.
//   pisessContext(file, line, llm, {pi}) -> Answer
//     spawns `node bin/pisess.js context FILE --leaf @LINE --json [--llm]` from the repository root (the end-to-end
//     check, run for a sample of leaves).
//
// Answer = {exitCode, doc, stderr}: exitCode as the CLI's (0 ok, 1 the leaf's path runs into a parent cycle, 2 other
// errors); doc = the --json document, parsed ({file, leaf: {id, line}, thinkingLevel, model, messages, ...}).
//
// PARITY_SELFTEST=1 answers from the oracle itself (of the pi version `pi` names), so that the runner's comparison
// logic can be tested without pisess: every comparison must pass. PISESS_BIN / PISESS_DIST name another CLI / library;
// PARITY_TIMEOUT_MS bounds one CLI run (default 30 s).

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, "..");
const BIN = process.env.PISESS_BIN ?? path.join(REPO_ROOT, "bin", "pisess.js");
const DIST = process.env.PISESS_DIST ?? path.join(REPO_ROOT, "dist", "index.js");
export const SELFTEST = process.env.PARITY_SELFTEST === "1";

export const adapterMode = SELFTEST
  ? "selftest (oracle answers itself)"
  : `in-process ${path.relative(process.cwd(), DIST) || DIST} + spawn node ${path.relative(process.cwd(), BIN) || BIN} for a sample`;

/** Throws a readable error when pisess is not built (the CLI needs dist/ too). */
export function assertBuilt() {
  if (SELFTEST) return;
  if (!fs.existsSync(DIST)) throw new Error(`${DIST} is missing: build pisess first (npm run build at the repository root)`);
}

const TIMEOUT_MS = Number(process.env.PARITY_TIMEOUT_MS ?? 30000);

// ---------------------------------------------------------------- selftest: the oracle answers
const oracleCache = new Map(); // `${pi}\0${file}` -> result (small LRU)
async function oracleFor(file, pi) {
  const key = `${pi}\0${file}`;
  let res = oracleCache.get(key);
  if (!res) {
    const { computeOracle } = await import("./oracle.mjs");
    res = computeOracle(file, { pi });
    oracleCache.set(key, res);
    if (oracleCache.size > 4) oracleCache.delete(oracleCache.keys().next().value);
  }
  return res;
}

function selftestAnswer(res, line, llm) {
  const leaf = (res.leaves ?? []).find((l) => l.line === line);
  if (!leaf || leaf.error || leaf.contextError) return { exitCode: 1, doc: null, stderr: "selftest: no context" };
  const doc = {
    file: "selftest",
    leaf: { id: leaf.id ?? null, line: leaf.line },
    thinkingLevel: leaf.context.thinkingLevel,
    model: leaf.context.model,
    messages: llm ? leaf.llm : leaf.context.messages,
  };
  return { exitCode: 0, doc: JSON.parse(JSON.stringify(doc)), stderr: "" };
}

// ---------------------------------------------------------------- in-process
let libPromise = null;
function lib() {
  libPromise ??= import(pathToFileURL(DIST).href);
  return libPromise;
}

const roundTrip = (v) => JSON.parse(JSON.stringify(v)); // what the CLI's JSON output turns the values into

let lastInProcess = null; // {file, answers}: the runner asks once per pi version for the same file

/**
 * @param {string} file
 * @param {number[]} lines
 * @param {{pi?: string}} [opts] pi: only for the selftest (whose oracle answers)
 * @returns {Promise<Map<number, {ctx: object, llm: object}>>}
 */
export async function pisessLeaves(file, lines, opts = {}) {
  if (SELFTEST) {
    const res = await oracleFor(file, opts.pi ?? "1.6");
    return new Map(lines.map((line) => [line, { ctx: selftestAnswer(res, line, false), llm: selftestAnswer(res, line, true) }]));
  }
  if (lastInProcess?.file === file && lines.every((l) => lastInProcess.answers.has(l))) return lastInProcess.answers;
  const L = await lib();
  const answers = new Map();
  const both = (a) => ({ ctx: a, llm: a });
  const session = await L.openSession(file, { detail: "skeleton" });
  try {
    for (const line of lines) {
      const rec = L.findByLine(session, line);
      if (!rec) {
        answers.set(line, both({ exitCode: 2, doc: null, stderr: `no entry on line ${line}` }));
        continue;
      }
      const res = L.pathTo(session, rec);
      if (!res.ok) {
        answers.set(line, both({ exitCode: 1, doc: null, stderr: `parent cycle through lines ${res.cycle.map((r) => r.line).join(",")}` }));
        continue;
      }
      try {
        const ctx = L.buildContext(session, res.path, (r) => L.readEntry(session, r));
        const head = { file, leaf: { id: rec.id ?? null, line: rec.line }, thinkingLevel: ctx.thinkingLevel, model: ctx.model };
        answers.set(line, {
          ctx: { exitCode: 0, doc: roundTrip({ ...head, messages: ctx.messages }), stderr: "" },
          llm: { exitCode: 0, doc: roundTrip({ ...head, messages: L.convertToLlm(ctx.messages) }), stderr: "" },
        });
      } catch (err) {
        answers.set(line, both({ exitCode: 2, doc: null, stderr: `pisess threw: ${err?.stack ?? err}` }));
      }
    }
  } finally {
    session.store?.close?.();
  }
  lastInProcess = { file, answers };
  return answers;
}

// ---------------------------------------------------------------- CLI
function spawnContext(file, line, llm) {
  const args = [BIN, "context", file, "--leaf", `@${line}`, "--json"];
  if (llm) args.push("--llm");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    const err = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, TIMEOUT_MS);
    child.stdout.on("data", (b) => out.push(b));
    child.stderr.on("data", (b) => err.push(b));
    child.on("error", (e) => clearTimeout(timer) || resolve({ exitCode: -1, doc: null, stderr: String(e.message) }));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ exitCode: 124, doc: null, stderr: `timed out after ${TIMEOUT_MS} ms`, timedOut: true });
      const stdout = Buffer.concat(out).toString("utf8");
      let doc = null;
      try {
        doc = stdout.trim() ? JSON.parse(stdout) : null;
      } catch {
        doc = null;
      }
      resolve({ exitCode: code ?? (signal ? 128 : -1), doc, stderr: Buffer.concat(err).toString("utf8") });
    });
  });
}

const cliCache = new Map(); // `${file}\0${line}\0${llm}` -> Promise<Answer>, for the runner's second pi version

/** @returns {Promise<{exitCode: number, doc: any, stderr: string}>} */
export async function pisessContext(file, line, llm, opts = {}) {
  if (SELFTEST) return selftestAnswer(await oracleFor(file, opts.pi ?? "1.6"), line, llm);
  const key = `${file}\0${line}\0${llm}`;
  let p = cliCache.get(key);
  if (!p) {
    p = spawnContext(file, line, llm);
    cliCache.set(key, p);
    if (cliCache.size > 64) cliCache.delete(cliCache.keys().next().value);
  }
  return p;
}

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import fc from "fast-check";
import { buildInvocation, COMMANDS, type CommandName } from "./args.js";
import { allowedDepthFor, checkResult, fingerprint, type Problem, type RunOptions, type Runner, runProc } from "./check.js";
import { knownDefect } from "./known.js";
import { applyMutations, baseSlice, mutationArb, type Mutation, type MutationLimits } from "./mutate.js";
import { argContext, extrasOf, leftovers, makeWorkspace, toPlaceholders } from "./workspace.js";

export interface CmdPick {
  cmd: number;
  argSeed: number;
  odd: boolean;
}

export interface FuzzCase {
  base: number;
  start: number;
  keep: number | null;
  other: number;
  muts: Mutation[];
  cmds: CmdPick[];
  /** Bits: 1, a FIFO in the sessions folder; 2, a symlinked FIFO named *.jsonl there (see Extras). */
  extras: number;
}

export interface FuzzOptions {
  seed: number;
  runs: number;
  /** fast-check's counterexample path: replays one case (and shrinks on from it). */
  path?: string;
  /** Commands per mutated file; 12 = every command. */
  commandsPerCase: number;
  concurrency: number;
  timeoutMs: number;
  limits: MutationLimits;
  /** Lines of the corpus file a case keeps at most; `wholeFiles` lets a quarter of the cases keep them all. */
  maxKeep: number;
  wholeFiles: boolean;
  shrink: boolean;
  /** Property runs spent shrinking at most (each spawns processes). */
  shrinkBudget: number;
  bin: string;
  /** How a command runs; by default a process of `bin` each time (runProc). */
  runner?: Runner;
  corpus: string[];
  /** Defect classes to replay and shrink at most. */
  maxShrinks?: number;
  /** Where a failing case's files go (kept fixtures: fixtures/fuzz). */
  saveDir?: string;
  log?: (line: string) => void;
}

export interface Finding extends Problem {
  cmd: CommandName;
  argv: string[];
  code: number | null;
  ms: number;
}

export interface KnownHit {
  id: string;
  why: string;
  count: number;
  example: Finding;
}

export interface FuzzReport {
  seed: number;
  runs: number;
  failed: boolean;
  processes: number;
  perCommand: Record<string, number>;
  known: KnownHit[];
  classes: DefectClass[];
  minimal: MinimalFailure[];
  repro?: string;
}

export interface DefectClass {
  signature: string;
  count: number;
  /** The case's index in the run: `--path INDEX` replays it. */
  caseIndex: number;
  example: Finding;
}

export interface MinimalFailure {
  signature: string;
  path: string;
  numShrinks: number;
  case: FuzzCase;
  failures: Finding[];
  repro: string;
  saved?: string[];
}

function pickArb(cmd: fc.Arbitrary<number>): fc.Arbitrary<CmdPick> {
  return fc.record({ cmd, argSeed: fc.nat(), odd: fc.boolean() });
}

export function caseArb(o: Pick<FuzzOptions, "commandsPerCase" | "limits" | "maxKeep" | "wholeFiles" | "corpus">): fc.Arbitrary<FuzzCase> {
  const cmds =
    o.commandsPerCase >= COMMANDS.length
      ? fc.tuple(...COMMANDS.map((_, i) => pickArb(fc.constant(i))))
      : fc.uniqueArray(pickArb(fc.noBias(fc.nat({ max: COMMANDS.length - 1 }))), {
          selector: (p) => p.cmd,
          minLength: o.commandsPerCase,
          maxLength: o.commandsPerCase,
        });
  return fc.record({
    base: fc.nat({ max: o.corpus.length - 1 }),
    start: fc.nat(),
    // 0 shrinks toward a window of the file; 3 (a quarter of the cases) keeps it whole.
    keep: fc.tuple(fc.integer({ min: 1, max: o.maxKeep }), fc.nat({ max: o.wholeFiles ? 3 : 0 })).map(([k, w]) => (w === 3 ? null : k)),
    other: fc.nat({ max: o.corpus.length - 1 }),
    muts: mutationArb(o.limits),
    cmds: cmds.map((xs) => [...xs]),
    // Mostly 0 (shrinks there): a FIFO in the folder only changes what folder scans meet.
    extras: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }),
  });
}

export function caseBytes(c: FuzzCase, corpus: string[]): { file: Buffer; other: Buffer } {
  const read = (i: number): Buffer => readFileSync(corpus[i % corpus.length] as string);
  return { file: applyMutations(baseSlice(read(c.base), c.start, c.keep), c.muts), other: baseSlice(read(c.other), 0, 30) };
}

async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

export interface CaseRun {
  findings: Finding[];
  ran: CommandName[];
}

/** Runs the picked commands on the case's files in a fresh workspace; every invariant violation is a finding. */
export async function runCase(
  c: FuzzCase,
  picks: CmdPick[],
  o: Pick<FuzzOptions, "bin" | "runner" | "corpus" | "concurrency" | "timeoutMs">,
): Promise<CaseRun & { placeholders: string[][] }> {
  const { file, other } = caseBytes(c, o.corpus);
  const ws = makeWorkspace(file, other, extrasOf(c.extras));
  try {
    const ctx = argContext(ws, file);
    const allowed = allowedDepthFor(file);
    const before = [fingerprint(ws.file), fingerprint(ws.other)];
    const invs = picks.map((p) => ({
      cmd: COMMANDS[p.cmd % COMMANDS.length] as CommandName,
      inv: buildInvocation(COMMANDS[p.cmd % COMMANDS.length] as CommandName, ctx, p.argSeed, p.odd),
    }));
    const results = await pool(invs, o.concurrency, async ({ cmd, inv }) => {
      const argv = inv.argv.map((a) => a.replace(/\0/g, ""));
      const run = o.runner ?? ((a: string[], opts: RunOptions) => runProc(o.bin, a, opts));
      const res = await run(argv, { cwd: ws.cwd, env: ws.env, input: inv.stdin ? file : undefined, timeoutMs: o.timeoutMs });
      return checkResult(argv, res, allowed).map((p): Finding => ({ ...p, cmd, argv, code: res.code, ms: res.ms }));
    });
    const findings = results.flat();
    const named = new Set(invs.flatMap(({ inv }) => inv.argv.filter((a) => a.startsWith(`${ws.out}/`))));
    const debris = leftovers(ws, named);
    if (debris.length) {
      // Blamed on the commands that write (outputs, staging for DuckDB), or on all when none of them ran.
      const writers = invs.filter(({ cmd, inv }) => inv.argv.some((a) => a.startsWith(`${ws.out}/`)) || WRITERS.has(cmd));
      for (const { cmd, inv } of writers.length ? writers : invs)
        findings.push({ kind: "leftover", detail: debris.join("; "), cmd, argv: inv.argv, code: null, ms: 0 });
    }
    const after = [fingerprint(ws.file), fingerprint(ws.other)];
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      for (const { cmd, inv } of invs)
        findings.push({
          kind: "input-changed",
          detail: `${JSON.stringify(before)} → ${JSON.stringify(after)}`,
          cmd,
          argv: inv.argv,
          code: null,
          ms: 0,
        });
    }
    return { findings, ran: invs.map((i) => i.cmd), placeholders: findings.map((f) => toPlaceholders(f.argv, ws)) };
  } finally {
    ws.dispose();
  }
}

const WRITERS = new Set<CommandName>(["export", "tables", "sql"]);

/** A defect class: command and symptom; for errors, their message with names and numbers taken out. */
export function signature(f: Finding): string {
  if (f.kind !== "internal-error" && f.kind !== "stack-trace" && f.kind !== "exit-code" && f.kind !== "signal") return `${f.cmd}:${f.kind}`;
  const msg = f.detail.replace(/\\u[0-9a-f]{4}|"[^"]*"|'[^']*'|\/\S+|\d+/g, "_").slice(0, 60);
  return `${f.cmd}:${f.kind}:${msg}`;
}

export function reproCommand(o: FuzzOptions, path?: string): string {
  const extra = o.commandsPerCase >= COMMANDS.length ? "" : ` --commands ${o.commandsPerCase}`;
  const size = o.wholeFiles
    ? ""
    : ` --max-keep ${o.maxKeep} --max-huge ${o.limits.maxHuge} --max-depth ${o.limits.maxDepth} --max-mutations ${o.limits.maxMutations} --no-whole`;
  return `npm run fuzz -- --seed ${o.seed} --runs ${o.runs}${extra}${size}${path ? ` --path ${path}` : ""}`;
}

/** Saves the case's file, the second session, and a sidecar naming the failing command lines. */
export function saveFailure(
  dir: string,
  c: FuzzCase,
  failures: Finding[],
  placeholders: string[][],
  o: FuzzOptions,
  path?: string,
): string[] {
  mkdirSync(dir, { recursive: true });
  const { file, other } = caseBytes(c, o.corpus);
  const f0 = failures[0] as Finding;
  const name = `${f0.cmd}-${f0.kind}-${createHash("sha256").update(file).digest("hex").slice(0, 8)}`;
  writeFileSync(join(dir, `${name}.jsonl`), file);
  writeFileSync(join(dir, `${name}.other.jsonl`), other);
  const sidecar = {
    found: { seed: o.seed, runs: o.runs, path, repro: reproCommand(o, path), base: basename(o.corpus[c.base % o.corpus.length] ?? "") },
    checks: failures.map((f, i) => ({ argv: placeholders[i], stdin: f.argv.includes("-"), kind: f.kind, detail: f.detail })),
    case: c,
  };
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(sidecar, null, 2)}\n`);
  return [join(dir, `${name}.jsonl`), join(dir, `${name}.json`)];
}

interface Hit {
  c: FuzzCase;
  failures: Finding[];
  placeholders: string[][];
}

/**
 * Phase 1 runs every case and collects each defect class (first case, count). Phase 2 replays the first case of
 * each new class through fast-check (`path` = its index), running only that command, and shrinks it to the
 * smallest failing mutation list and file window, then saves it.
 */
export async function fuzz(o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? (() => undefined);
  const report: FuzzReport = {
    seed: o.seed,
    runs: o.runs,
    failed: false,
    processes: 0,
    perCommand: {},
    known: [],
    classes: [],
    minimal: [],
  };
  const known = new Map<string, KnownHit>();
  const classes = new Map<string, DefectClass>();
  let focus: string | null = null;
  let shrinkRuns = 0;
  let last: Hit | null = null;
  let caseNo = 0;
  const prop = fc.asyncProperty(caseArb(o), async (c) => {
    if (focus !== null && ++shrinkRuns > o.shrinkBudget) return true;
    // focus "": a --path replay, locked onto the class of its first failure.
    const picks =
      focus === null || focus === "" ? c.cmds : c.cmds.filter((p) => (focus as string).startsWith(`${COMMANDS[p.cmd % COMMANDS.length]}:`));
    const run = await runCase(c, picks, o);
    report.processes += picks.length;
    const failures: Finding[] = [];
    const ph: string[][] = [];
    run.findings.forEach((f, i) => {
      const k = knownDefect(f.cmd, f.argv, f.kind, f.detail);
      if (focus !== null) {
        if (focus === "" && !k) focus = signature(f);
        if (!k && signature(f) === focus) {
          failures.push(f);
          ph.push(run.placeholders[i] ?? []);
        }
      } else if (k) {
        const hit = known.get(k.id) ?? { id: k.id, why: k.why, count: 0, example: f };
        hit.count++;
        known.set(k.id, hit);
      } else {
        const sig = signature(f);
        const cl = classes.get(sig) ?? { signature: sig, count: 0, caseIndex: caseNo, example: f };
        if (cl.count === 0) log(`  new defect class ${sig} in case ${caseNo}: ${f.detail}`);
        cl.count++;
        classes.set(sig, cl);
      }
    });
    if (focus === null) {
      for (const cmd of run.ran) report.perCommand[cmd] = (report.perCommand[cmd] ?? 0) + 1;
      caseNo++;
      if (caseNo % 10 === 0) log(`  ${caseNo}/${o.runs} cases, ${report.processes} processes, ${classes.size} defect classes`);
      return true;
    }
    if (failures.length === 0) return true;
    last = { c, failures, placeholders: ph };
    return false;
  });
  if (o.path === undefined) {
    // The property only fails by throwing (a harness bug): stop there rather than shrink.
    const d = await fc.check(prop, { seed: o.seed, numRuns: o.runs, endOnFailure: true });
    if (d.failed) throw new Error(`fuzz harness error in case ${caseNo}: ${String(d.errorInstance)}`, { cause: d.errorInstance });
  }
  report.known = [...known.values()];
  report.classes = [...classes.values()];
  report.failed = classes.size > 0;
  report.repro = reproCommand(o);
  // Phase 2: one replay per class (or the one given by --path), shrunk unless told not to.
  const todo: Array<{ sig: string | null; path: string }> =
    o.path !== undefined ? [{ sig: null, path: o.path }] : report.classes.map((cl) => ({ sig: cl.signature, path: String(cl.caseIndex) }));
  for (const t of todo.slice(0, o.maxShrinks ?? 8)) {
    focus = t.sig ?? "";
    shrinkRuns = 0;
    last = null;
    log(`  shrinking ${focus} (case ${t.path})`);
    const details = await fc.check(prop, { seed: o.seed, numRuns: o.runs, path: t.path, endOnFailure: !o.shrink });
    const got = last as Hit | null;
    if (!got) {
      log(`  case ${t.path}: no failure outside the known defects`);
      continue;
    }
    report.failed = true;
    const min: MinimalFailure = {
      signature: focus ?? "",
      path: details.counterexamplePath ?? t.path,
      numShrinks: details.numShrinks,
      case: got.c,
      failures: got.failures,
      repro: reproCommand(o, details.counterexamplePath ?? t.path),
    };
    if (o.saveDir) min.saved = saveFailure(o.saveDir, got.c, got.failures, got.placeholders, o, min.path);
    report.minimal.push(min);
  }
  return report;
}

const cmdLine = (argv: string[]): string => `pisess ${argv.map((a) => JSON.stringify(a)).join(" ")}`;

export function formatReport(r: FuzzReport): string {
  const out: string[] = [];
  out.push(
    `seed ${r.seed}, ${r.runs} cases, ${r.processes} processes; per command: ${Object.entries(r.perCommand)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  for (const k of r.known)
    out.push(`known defect ${k.id} (${k.count}×): ${k.why}\n    e.g. ${cmdLine(k.example.argv)} → ${k.example.kind}: ${k.example.detail}`);
  for (const cl of r.classes) {
    out.push(
      `DEFECT ${cl.signature} (${cl.count}×, first in case ${cl.caseIndex}): ${cl.example.detail}\n    ${cmdLine(cl.example.argv)} (exit ${cl.example.code}, ${cl.example.ms} ms)`,
    );
  }
  for (const m of r.minimal) {
    out.push(
      `SHRUNK ${m.signature} (${m.numShrinks} shrinks): mutations ${JSON.stringify(m.case.muts)}, lines kept ${m.case.keep ?? "all"}`,
    );
    for (const f of m.failures) out.push(`    ${cmdLine(f.argv)} → ${f.kind}: ${f.detail}`);
    if (m.saved) out.push(`    saved: ${m.saved.join(", ")}`);
    out.push(`    reproduce: ${m.repro}`);
  }
  out.push(r.failed ? `FAILED: seed ${r.seed}; reproduce the whole run: ${r.repro ?? ""}` : "ok");
  return out.join("\n");
}

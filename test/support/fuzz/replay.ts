import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandName } from "./args.js";
import { allowedDepthFor, checkResult, fingerprint, runProc, type Problem, type ProblemKind } from "./check.js";
import { extrasOf, fromPlaceholders, leftovers, makeWorkspace } from "./workspace.js";

/** The second session when a kept failure has none of its own (its commands name only the first). */
const OTHER_HEADER =
  '{"type":"session","version":3,"id":"0195a000-0000-7000-8000-0000000000ff","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}';

/** A kept failing input: NAME.jsonl, NAME.other.jsonl (the second session, optional) and this sidecar NAME.json. */
export interface KeptFailure {
  name: string;
  /** Set while the defect is not fixed: the regression test is then `it.fails`. */
  known?: string;
  found: { seed: number; runs: number; path?: string; repro: string; base: string };
  checks: Array<{ argv: string[]; stdin: boolean; kind: ProblemKind; detail: string }>;
  /** The case as the harness drew it; its `extras` say what else the sessions folder held. */
  case?: { extras?: number };
}

export function keptFailures(dir: string): KeptFailure[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ ...(JSON.parse(readFileSync(join(dir, f), "utf8")) as Omit<KeptFailure, "name">), name: f.slice(0, -".json".length) }));
}

/**
 * Runs a kept failure's command lines on copies of its files: the problems each one shows (none once fixed), and,
 * last, an `input-changed` problem if a file was written.
 */
export async function replay(dir: string, k: KeptFailure, bin: string, timeoutMs: number): Promise<Problem[][]> {
  const file = readFileSync(join(dir, `${k.name}.jsonl`));
  const otherPath = join(dir, `${k.name}.other.jsonl`);
  const other = existsSync(otherPath) ? readFileSync(otherPath) : Buffer.from(`${OTHER_HEADER}\n`);
  const ws = makeWorkspace(file, other, extrasOf(k.case?.extras ?? 0));
  try {
    const before = [fingerprint(ws.file), fingerprint(ws.other)];
    const out: Problem[][] = [];
    for (const c of k.checks) {
      const argv = fromPlaceholders(c.argv, ws);
      const res = await runProc(bin, argv, { cwd: ws.cwd, env: ws.env, input: c.stdin ? file : undefined, timeoutMs });
      out.push(checkResult(argv, res, allowedDepthFor(file)));
    }
    const after = [fingerprint(ws.file), fingerprint(ws.other)];
    const named = new Set(k.checks.flatMap((c) => fromPlaceholders(c.argv, ws).filter((a) => a.startsWith(`${ws.out}/`))));
    const debris = leftovers(ws, named);
    out.push(debris.length ? [{ kind: "leftover", detail: debris.join("; ") }] : []);
    out.push(
      JSON.stringify(before) === JSON.stringify(after)
        ? []
        : [{ kind: "input-changed", detail: `${JSON.stringify(before)} → ${JSON.stringify(after)}` }],
    );
    return out;
  } finally {
    ws.dispose();
  }
}

export type { CommandName };

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandName } from "./args.js";
import { allowedDepthFor, checkResult, fingerprint, runProc, type Problem, type ProblemKind } from "./check.js";
import { fromPlaceholders, makeWorkspace } from "./workspace.js";

/** A kept failing input: NAME.jsonl, NAME.other.jsonl (the second session) and this sidecar NAME.json. */
export interface KeptFailure {
  name: string;
  /** Set while the defect is not fixed: the regression test is then `it.fails`. */
  known?: string;
  found: { seed: number; runs: number; path?: string; repro: string; base: string };
  checks: Array<{ argv: string[]; stdin: boolean; kind: ProblemKind; detail: string }>;
}

export function keptFailures(dir: string): KeptFailure[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ ...(JSON.parse(readFileSync(join(dir, f), "utf8")) as Omit<KeptFailure, "name">), name: f.slice(0, -".json".length) }));
}

/** Runs a kept failure's command lines on copies of its files; the problems found (none once fixed). */
export async function replay(dir: string, k: KeptFailure, bin: string, timeoutMs: number): Promise<Array<Problem & { argv: string[] }>> {
  const file = readFileSync(join(dir, `${k.name}.jsonl`));
  const ws = makeWorkspace(file, readFileSync(join(dir, `${k.name}.other.jsonl`)));
  try {
    const before = [fingerprint(ws.file), fingerprint(ws.other)];
    const out: Array<Problem & { argv: string[] }> = [];
    for (const c of k.checks) {
      const argv = fromPlaceholders(c.argv, ws);
      const res = await runProc(bin, argv, { cwd: ws.cwd, env: ws.env, input: c.stdin ? file : undefined, timeoutMs });
      out.push(...checkResult(argv, res, allowedDepthFor(file)).map((p) => ({ ...p, argv })));
    }
    const after = [fingerprint(ws.file), fingerprint(ws.other)];
    if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ kind: "input-changed", detail: "", argv: [] });
    return out;
  } finally {
    ws.dispose();
  }
}

export type { CommandName };

import { stat } from "node:fs/promises";
import { collectFiles, defaultSessionRoot, type PiEnv } from "../io/discover.js";
import { ioReason } from "../io/errors.js";
import type { Diagnostic } from "../model/types.js";

/** A path that could not be read, and why. */
export interface FleetFailure {
  path: string;
  reason: string;
}

/** One line of stderr per damaged file and code: how many findings, the first line. */
export interface DamageNote {
  file: string;
  code: string;
  count: number;
  firstLine: number | null;
}

export interface FleetFiles {
  files: string[];
  /** The sessions dir searched when no targets were given. */
  root?: string;
  /** That dir, when it does not exist. */
  missingRoot?: string;
  failures: FleetFailure[];
}

/** Session files of the targets (recursive), or of the whole sessions dir when none are given; sorted by path. */
export async function fleetFiles(targets: readonly string[], env: PiEnv, cwd: string): Promise<FleetFiles> {
  const failures: FleetFailure[] = [];
  const fail = (path: string, err: unknown): void => {
    failures.push({ path, reason: ioReason(err) });
  };
  if (targets.length > 0) return { files: (await collectFiles([...targets], fail)).sort(), failures };
  const root = await defaultSessionRoot(true, env, cwd);
  try {
    await stat(root);
  } catch {
    return { files: [], root, missingRoot: root, failures };
  }
  return { files: (await collectFiles([root], fail)).sort(), root, failures };
}

/** The loader's errors (damaged lines, a broken header), one note per code. */
export function damageNotes(file: string, diagnostics: readonly Diagnostic[]): DamageNote[] {
  const byCode = new Map<string, DamageNote>();
  for (const d of diagnostics) {
    if (d.severity !== "error") continue;
    const n = byCode.get(d.code);
    if (n) n.count++;
    else byCode.set(d.code, { file, code: d.code, count: 1, firstLine: d.line });
  }
  return [...byCode.values()];
}

import type { Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { SessionTree } from "./tree.js";

/**
 * A session's problems, the one rule every command counts by: what the loader found plus what the tree found
 * (dangling parents, cycles, …). Content checks are validate's.
 */
export function sessionProblems(session: Session, tree: Pick<SessionTree, "problems"> | null): Diagnostic[] {
  return tree ? [...session.diagnostics, ...tree.problems] : [...session.diagnostics];
}

/** The problems among the diagnostics by severity (errors and warnings; infos are not problems). */
export function problemTally(diagnostics: readonly Diagnostic[]): { error: number; warning: number } {
  const t = { error: 0, warning: 0 };
  for (const d of diagnostics) if (d.severity === "error" || d.severity === "warning") t[d.severity]++;
  return t;
}

/** How many of the diagnostics are problems (warnings and errors; infos are not). */
export function problemCount(diagnostics: readonly Diagnostic[]): number {
  let n = 0;
  for (const d of diagnostics) if (d.severity !== "info") n++;
  return n;
}

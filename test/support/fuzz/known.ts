import type { ProblemKind } from "./check.js";

/**
 * Defect classes already reported and being fixed elsewhere. A hit is listed in the report but does not fail a
 * run. Each has a kept input under fixtures/fuzz/ and a regression test marked `it.fails`: once the defect is
 * fixed that test starts failing, and the entry here (and the `known` mark on the fixture) must go.
 */
export interface KnownDefect {
  id: string;
  why: string;
  match: (cmd: string, argv: readonly string[], kind: ProblemKind, detail: string) => boolean;
}

export const KNOWN: KnownDefect[] = [];

export function knownDefect(cmd: string, argv: readonly string[], kind: ProblemKind, detail: string): KnownDefect | undefined {
  return KNOWN.find((k) => k.match(cmd, argv, kind, detail));
}

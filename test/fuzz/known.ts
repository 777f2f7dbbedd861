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

export const KNOWN: KnownDefect[] = [
  {
    id: "stderr-raw-reference",
    why: "an unknown, ambiguous or malformed entry reference (and, for an ambiguous one, the candidate ids from the session) is quoted raw in the error on stderr: escape sequences and bidi controls reach the terminal",
    match: (_cmd, _argv, kind, detail) => kind === "stderr-control" && /no entry matches|is ambiguous|is not a line reference/.test(detail),
  },
  {
    id: "stderr-raw-option-value",
    why: "yargs' usage error for an invalid choice (--filter, --format, --sort, -f, …) quotes the given value with JSON.stringify, which leaves C1 controls (U+009B CSI) and bidi overrides raw on stderr",
    match: (_cmd, _argv, kind, detail) => kind === "stderr-control" && /Invalid values|Argument: .*Given: /.test(detail),
  },
  {
    id: "deep-value-stack-overflow",
    why: "a value nested a few thousand levels deep in an entry (JSON.parse reads it) overflows the stack when path, show or context print the entry or message (JSON.stringify is recursive): an internal error, exit 2, and with --json the document is left cut off on stdout",
    match: (cmd, _argv, kind, detail) =>
      ["path", "show", "context"].includes(cmd) && kind === "internal-error" && detail.includes("Maximum call stack size exceeded"),
  },
];

export function knownDefect(cmd: string, argv: readonly string[], kind: ProblemKind, detail: string): KnownDefect | undefined {
  return KNOWN.find((k) => k.match(cmd, argv, kind, detail));
}

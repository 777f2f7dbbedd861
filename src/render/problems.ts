/**
 * The one wording of a problem count, shared by validate's total line and the reading commands' notes: "N problems
 * (E errors, W warnings[, I info])". Reading commands count what the loader and the tree found (never infos);
 * validate counts those and its content checks too, so its number can only be larger.
 */
export interface ProblemTally {
  error: number;
  warning: number;
  info?: number;
}

function plural(n: number, one: string): string {
  return `${n} ${n === 1 ? one : `${one}s`}`;
}

/** `paint` colours each part by its severity (validate's text output on a TTY). */
export function problemWords(t: ProblemTally, paint: (severity: "error" | "warning" | "info", s: string) => string = (_, s) => s): string {
  const total = t.error + t.warning + (t.info ?? 0);
  const parts = [
    paint("error", plural(t.error, "error")),
    paint("warning", plural(t.warning, "warning")),
    ...(t.info !== undefined ? [paint("info", `${t.info} info`)] : []),
  ];
  return `${plural(total, "problem")} (${parts.join(", ")})`;
}

/** What a reading command says about a session's problems (stderr note, info's line): where they come from, and what checks more. */
export function readingProblemsLine(file: string, t: ProblemTally): string {
  return `${file}: ${problemWords(t)} found while reading; pisess validate ${file} checks more\n`;
}

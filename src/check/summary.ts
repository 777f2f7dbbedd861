import { CODES, type Code } from "../model/codes.js";
import type { Diagnostic, Severity } from "../model/types.js";

/** The outcome of validating one input. */
export interface FileResult {
  file: string;
  diagnostics: Diagnostic[];
  /** Set when the input could not be read (missing, unreadable): exit status 2. */
  ioError?: string;
}

interface CodeCount {
  code: string;
  severity: Severity;
  count: number;
  files: number;
}

interface FileCount {
  file: string;
  error: number;
  warning: number;
  info: number;
  ioError?: string;
}

export interface ValidateSummary {
  files: number;
  filesWithFindings: number;
  ioErrors: number;
  error: number;
  warning: number;
  info: number;
  /** Per code, errors first, then in registry order; only codes that occur. */
  byCode: CodeCount[];
  /** Per file with findings or an I/O error, in input order. */
  byFile: FileCount[];
}

const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2 };

export function summarize(results: readonly FileResult[]): ValidateSummary {
  const s: ValidateSummary = {
    files: results.length,
    filesWithFindings: 0,
    ioErrors: 0,
    error: 0,
    warning: 0,
    info: 0,
    byCode: [],
    byFile: [],
  };
  const codes = new Map<string, CodeCount>();
  for (const r of results) {
    const fc: FileCount = { file: r.file, error: 0, warning: 0, info: 0 };
    const seenCodes = new Set<string>();
    for (const d of r.diagnostics) {
      s[d.severity]++;
      fc[d.severity]++;
      let c = codes.get(d.code);
      if (!c) {
        c = { code: d.code, severity: d.severity, count: 0, files: 0 };
        codes.set(d.code, c);
      }
      c.count++;
      if (!seenCodes.has(d.code)) {
        seenCodes.add(d.code);
        c.files++;
      }
    }
    if (r.ioError !== undefined) {
      s.ioErrors++;
      fc.ioError = r.ioError;
    }
    if (r.diagnostics.length > 0) s.filesWithFindings++;
    if (r.diagnostics.length > 0 || r.ioError !== undefined) s.byFile.push(fc);
  }
  const order = Object.keys(CODES);
  s.byCode = [...codes.values()].sort(
    (a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || order.indexOf(a.code as Code) - order.indexOf(b.code as Code),
  );
  return s;
}

interface ExitPolicy {
  /** Lowest severity that fails the run. */
  failOn: Severity;
  /** More warnings than this fail the run (ESLint's --max-warnings); negative = no limit. */
  maxWarnings: number;
}

/** 2 for I/O errors, 1 when a finding reaches the policy, else 0. Counts every finding, shown or not. */
export function exitStatus(results: readonly FileResult[], policy: ExitPolicy): 0 | 1 | 2 {
  if (results.some((r) => r.ioError !== undefined)) return 2;
  const min = SEVERITY_RANK[policy.failOn];
  let warnings = 0;
  let fail = false;
  for (const r of results) {
    for (const d of r.diagnostics) {
      if (SEVERITY_RANK[d.severity] >= min) fail = true;
      if (d.severity === "warning") warnings++;
    }
  }
  if (policy.maxWarnings >= 0 && warnings > policy.maxWarnings) fail = true;
  return fail ? 1 : 0;
}

/** Keeps only findings at or above a severity (--quiet keeps errors). */
export function atLeast(results: readonly FileResult[], severity: Severity): FileResult[] {
  const min = SEVERITY_RANK[severity];
  return results.map((r) => ({ ...r, diagnostics: r.diagnostics.filter((d) => SEVERITY_RANK[d.severity] >= min) }));
}

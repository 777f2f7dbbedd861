import { CODES, diag, isCode } from "../model/codes.js";
import type { Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import { buildTree } from "../ops/tree.js";
import { checkCompactions } from "./compactions.js";
import { checkEntries, checkHeader, entryChecker, type EntryCheck } from "./content.js";
import { checkContextEdits } from "./edits.js";
import { checkSessionId } from "./session-id.js";
import {
  type CallDetail,
  checkHeaderConsequences,
  checkPaths,
  checkReferences,
  checkRoots,
  checkTimeOrder,
  type StructureOptions,
} from "./structure.js";

export interface CheckOptions extends StructureOptions {
  /** Report keys the schemas do not know (unknown-key, info). */
  strict?: boolean;
  /** Called now and then with the byte offset the content pass reached. */
  onProgress?: (bytes: number) => void;
  /**
   * The per-entry content checks already made while the session loaded (contentChecks): checkSession then does not
   * read and parse every line again.
   */
  checked?: ContentChecks;
}

/** The per-entry content checks, run by the loader on each entry it parses (its onEntry), and what they found. */
export interface ContentChecks {
  onEntry: EntryCheck;
  findings: Diagnostic[];
  /** How many entries onEntry saw: a loader that was not given it saw none, and checkSession then reads them. */
  seen: () => number;
}

/** Content checks to hand the loader (LoadOptions.onEntry), then to checkSession with the loaded session. */
export function contentChecks(opts: { strict?: boolean } = {}): ContentChecks {
  const findings: Diagnostic[] = [];
  const check = entryChecker({ strict: opts.strict === true }, findings);
  let seen = 0;
  return {
    onEntry: (rec, o, raw, at) => {
      seen++;
      check(rec, o, raw, at);
    },
    findings,
    seen: () => seen,
  };
}

const CODE_ORDER = new Map(Object.keys(CODES).map((c, i) => [c, i]));

/** Deterministic order: whole-file findings first, then by line, column, code (registry order) and args. */
function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  const la = a.line ?? 0;
  const lb = b.line ?? 0;
  if (la !== lb) return la - lb;
  const ca = a.column ?? 0;
  const cb = b.column ?? 0;
  if (ca !== cb) return ca - cb;
  const oa = CODE_ORDER.get(a.code) ?? 1e9;
  const ob = CODE_ORDER.get(b.code) ?? 1e9;
  if (oa !== ob) return oa - ob;
  const ja = JSON.stringify(a.args);
  const jb = JSON.stringify(b.args);
  return ja < jb ? -1 : ja > jb ? 1 : 0;
}

/**
 * The loader's findings, adjusted where validate knows more: a session line after a missing header is the header
 * in the wrong place (header-not-first), not a second header; an entry without a type gets a schema violation
 * instead of an "unknown type ''" warning.
 */
function loaderFindings(session: Session): Diagnostic[] {
  const out: Diagnostic[] = [];
  let misplacedHeader: number | null = null;
  const typeless = new Set(session.entries.filter((r) => r.type === "").map((r) => r.line));
  for (const d of session.diagnostics) {
    if (d.code === "extra-header" && session.header === null) {
      if (misplacedHeader === null) {
        misplacedHeader = d.line;
        const first = session.diagnostics.find((x) => x.code === "header-missing");
        out.push(diag("header-not-first", d.file, d.line, { firstParsedLine: first?.line ?? null }));
        continue;
      }
      out.push({ ...d, args: { ...d.args, headerLine: misplacedHeader } });
      continue;
    }
    if (d.code === "unknown-entry-type" && d.line !== null && typeless.has(d.line)) continue;
    out.push(d);
  }
  return out;
}

/**
 * Every defect in a loaded session: the loader's findings, the tree's, and those of src/check. Without
 * `opts.checked`, reads the file once more, one entry at a time (bounded memory). Never writes, never throws for
 * bad content.
 */
export function checkSession(session: Session<CallDetail>, opts: CheckOptions = {}): Diagnostic[] {
  // Another program's file: every other finding would be about pi's format, which it does not follow.
  const foreign = session.diagnostics.filter((d) => d.code === "foreign-format");
  if (foreign.length > 0) return foreign;
  const out: Diagnostic[] = loaderFindings(session);
  const tree = buildTree(session);
  for (const v of tree.problems) out.push(v);
  checkHeaderConsequences(session, opts, out);
  checkHeader(session, opts, out);
  if (opts.checked && opts.checked.seen() === session.entries.length) for (const d of opts.checked.findings) out.push(d);
  else checkEntries(session, opts, out);
  checkRoots(session, out);
  checkTimeOrder(session, out);
  checkReferences(session, out);
  checkPaths(session, tree, out);
  checkCompactions(session, tree, out);
  for (const d of checkSessionId(session)) out.push(d);
  for (const d of checkContextEdits(session, tree)) out.push(d);
  for (const d of out) if (!isCode(d.code)) throw new Error(`unregistered diagnostic code ${d.code}`);
  return out.sort(compareDiagnostics);
}

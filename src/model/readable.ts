import type { Code } from "./codes.js";
import type { Diagnostic } from "./types.js";

/**
 * Which files pisess reads, the one place it is written: every file but those the loader finds to be another
 * program's format (`foreign-format`), a pi session version newer than pisess knows (`version-future`), or no
 * session at all: no header and no entry (`not-a-session`: prose, a binary, an empty file or empty stdin). A
 * headerless file that holds entries is read best-effort (docs/conventions.md: files without a header). Reading commands refuse
 * the others with exit 2, folder commands (ls, grep, usage, tables, sql) skip them with a note, validate reports them.
 */
const NOT_READ: ReadonlySet<string> = new Set<Code>(["foreign-format", "version-future", "not-a-session"]);

/** The loader finding that puts a session outside what pisess reads, or undefined when it reads it. */
export function notReadFinding(session: { readonly diagnostics: readonly Diagnostic[] }): Diagnostic | undefined {
  return session.diagnostics.find((d) => NOT_READ.has(d.code));
}

import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { resolveRef } from "../ops/refs.js";
import { sanitizeLine } from "../render/sanitize.js";
import { ReportError } from "./report.js";

/**
 * A session without entries (a header only) asked for its default leaf: pi builds an empty context and an empty
 * path there, so path and context do too (exit 0, with a note) instead of failing.
 */
export function isEmptyAtDefault(session: Session, ref: string | undefined): boolean {
  return session.defaultLeaf === null && session.entries.length === 0 && (ref === undefined || ref === "leaf");
}

/** Resolves an entry reference or fails with exit 2, listing candidates when it is ambiguous. */
export function entryRef(session: Session, ref: string): EntryRec {
  const r = resolveRef(session, ref);
  if (r.ok) return r.rec;
  // The reference comes from the command line, the file name and the ids from the session: all reach a terminal.
  const file = sanitizeLine(session.file);
  const given = sanitizeLine(ref);
  switch (r.reason) {
    case "ambiguous": {
      const list = (r.candidates ?? [])
        .slice(0, 10)
        .map((c) => `${c.id === undefined ? "(no id)" : sanitizeLine(c.id)} (line ${c.line})`)
        .join(", ");
      throw new ReportError(`${file}: entry reference "${given}" is ambiguous: ${list}${(r.candidates?.length ?? 0) > 10 ? ", …" : ""}`);
    }
    case "bad-line":
      throw new ReportError(`${file}: "${given}" is not a line reference (use @LINE with a line number ≥ 1)`);
    case "no-entries":
      throw new ReportError(`${file}: the session has no entries`);
    default:
      throw new ReportError(`${file}: no entry matches "${given}" (use a full id, a unique id prefix, @LINE, label:NAME or leaf)`);
  }
}

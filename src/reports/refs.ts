import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { resolveRef } from "../ops/refs.js";
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
  switch (r.reason) {
    case "ambiguous": {
      const list = (r.candidates ?? [])
        .slice(0, 10)
        .map((c) => `${c.id ?? "(no id)"} (line ${c.line})`)
        .join(", ");
      throw new ReportError(
        `${session.file}: entry reference "${ref}" is ambiguous: ${list}${(r.candidates?.length ?? 0) > 10 ? ", …" : ""}`,
      );
    }
    case "bad-line":
      throw new ReportError(`${session.file}: "${ref}" is not a line reference (use @LINE with a line number ≥ 1)`);
    case "no-entries":
      throw new ReportError(`${session.file}: the session has no entries`);
    default:
      throw new ReportError(`${session.file}: no entry matches "${ref}" (use a full id, a unique id prefix, @LINE, label:NAME or leaf)`);
  }
}

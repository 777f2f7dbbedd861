import type { Session } from "../model/session.js";
import type { Detail, Rec } from "../model/detail.js";
import { type RefMiss, resolveRef } from "../ops/refs.js";
import { sanitizeLine } from "../model/sanitize.js";
import { ReportError } from "./report.js";

/**
 * A session without entries (a header only) asked for its default leaf: pi builds an empty context and an empty
 * path there, so path and context do too (exit 0, with a note) instead of failing.
 */
export function isEmptyAtDefault(session: Session, ref: string | undefined): boolean {
  return session.defaultLeaf === null && session.entries.length === 0 && (ref === undefined || ref === "leaf");
}

/** Resolves an entry reference or fails with exit 2, listing candidates when it is ambiguous. */
export function entryRef<D extends Detail>(session: Session<D>, ref: string): Rec<D> {
  const r = resolveRef(session, ref);
  // The entry found is one of the session's.
  if (r.ok) return r.rec as Rec<D>;
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
      if (r.miss !== undefined) throw new ReportError(`${file}: ${missText(r.miss, ref)}`);
      throw new ReportError(`${file}: no entry matches "${given}" (use a full id, a unique id prefix, @LINE, label:NAME or leaf)`);
  }
}

const NOT_ENTRY: Record<Extract<RefMiss, { kind: "line-not-entry" }>["what"], string> = {
  blank: "it is blank",
  header: "it is the session header",
  malformed: "it is not valid JSON",
  "non-object": "it is not a JSON object",
  unknown: "pisess validate says why",
};

/** What `@LINE` or `label:NAME` found instead of an entry, in words (the label name and ids sanitized). */
function missText(miss: RefMiss, ref: string): string {
  const name = JSON.stringify(sanitizeLine(ref.slice("label:".length)));
  const line = String(Number(ref.slice(1)));
  switch (miss.kind) {
    case "label-none":
      return `no label ${name} in the file (pisess labels lists them)`;
    case "label-cleared":
      return `label ${name} was cleared at line ${miss.line} (set at line ${miss.setLine})`;
    case "label-replaced":
      return `label ${name} (set at line ${miss.setLine}) was replaced at line ${miss.line} by ${JSON.stringify(sanitizeLine(miss.label))}`;
    case "label-target-missing":
      return `label ${name} (line ${miss.setLine}) names entry ${sanitizeLine(miss.targetId)}, which is not in the file`;
    case "line-past-end":
      return `line ${line} is past the end (the file has ${miss.lines} line${miss.lines === 1 ? "" : "s"})`;
    case "line-not-entry":
      return `line ${line} holds no entry (${NOT_ENTRY[miss.what]})`;
  }
}

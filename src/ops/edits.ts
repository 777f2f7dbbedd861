import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";

/**
 * Every `context_edit` in the file that names `rec`, in file order. Whether one applies depends on the leaf
 * (ops/context.ts decides that); this answers "has anything ever edited this entry".
 */
export function editsTargeting(session: Session, rec: EntryRec): EntryRec[] {
  if (rec.id === undefined) return [];
  return session.entries.filter((e) => e.type === "context_edit" && e.targetId === rec.id);
}

import { diag } from "../model/codes.js";
import { readEntry, type Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";

/**
 * The entry as buildContext needs it to decide membership, without the bodies: message entries and summaries are
 * known from the index, so a path of a few gigabytes is never held in memory.
 */
export function lightEntry(session: Session, rec: EntryRec): Record<string, unknown> {
  switch (rec.type) {
    case "message":
      return { message: rec.hasMessage ? { role: rec.role } : undefined };
    case "branch_summary":
      return { summary: rec.summaryEmpty ? "" : "…", fromId: rec.fromId };
    case "custom_message":
      return { customType: rec.customType };
    case "compaction": {
      const o = readEntry(session, rec);
      return {
        firstKeptEntryId: o.firstKeptEntryId,
        tokensBefore: o.tokensBefore,
        systemMessage: o.systemMessage ? { role: "system" } : undefined,
      };
    }
    case "context_edit": {
      const o = readEntry(session, rec);
      return { targetId: o.targetId, replacement: o.replacement === null ? null : o.replacement === undefined ? undefined : {} };
    }
    default:
      return readEntry(session, rec);
  }
}

const MESSAGE_TYPES: ReadonlySet<string> = new Set(["message", "custom_message", "branch_summary"]);

/**
 * first-kept-not-message: the kept range of compaction `c` (buildContext's keptFrom, on the path to `c`) starts at
 * an entry of a type that adds no message. The one producer, for validate and `compactions`.
 */
export function firstKeptNotMessage(file: string, c: EntryRec, keptFrom: EntryRec | null): Diagnostic | null {
  if (!keptFrom || keptFrom === c || MESSAGE_TYPES.has(keptFrom.type)) return null;
  return diag(
    "first-kept-not-message",
    file,
    c.line,
    { firstKeptEntryId: keptFrom.id ?? "", targetLine: keptFrom.line, targetType: keptFrom.type },
    c.id === undefined ? {} : { entryId: c.id },
  );
}

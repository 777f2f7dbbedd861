import type { IndexUpdate } from "../reports/index-db.js";
import { fmtInt } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";

/** What `pisess index` did, in one line per fact. */
export function indexText(d: Pick<IndexUpdate, "db" | "files" | "unchanged" | "added" | "changed" | "appended" | "removed">): string {
  return (
    `index: ${sanitizeLine(d.db)}\n` +
    `${fmtInt(d.files)} session files: ${fmtInt(d.unchanged)} unchanged, ${fmtInt(d.added)} added, ${fmtInt(d.appended)} appended to, ${fmtInt(d.changed)} re-read, ${fmtInt(d.removed)} removed\n`
  );
}

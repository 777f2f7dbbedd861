import type { JsonlExport } from "../reports/export.js";
import type { EntryPatchKind } from "../ops/export-jsonl.js";
import { formatMessage } from "./diagnostics.js";
import { sanitizeLine } from "./sanitize.js";

/** What each field change did, in the words of the stderr line that reports it. */
const PATCH_TEXT: Record<EntryPatchKind, string> = {
  "keep-nothing": `firstKeptEntryId set to its own id, pi's "keep nothing"`,
  "timestamp-lifted": "timestamp set to the entry above's",
};

/** The stderr lines of `export --format jsonl`: what was left out, changed or kept with a finding, and whether the context held. */
export function jsonlExportNotes(file: string, data: JsonlExport): string[] {
  const name = sanitizeLine(file);
  const out: string[] = [];
  for (const d of data.leftOut) out.push(`${name}:${d.line}: left out of the export: ${d.code}: ${formatMessage(d)}\n`);
  for (const d of data.changed)
    out.push(`${name}:${d.line}: changed in the export (${PATCH_TEXT[d.patch]}): ${d.code}: ${formatMessage(d)}\n`);
  for (const d of data.remaining)
    out.push(
      `${name}${d.line === null ? "" : `:${d.line}`}: kept in the export (leaving it out would change the context): ${d.severity} ${d.code}: ${formatMessage(d)}\n`,
    );
  if (!data.sameContext)
    out.push(`${name}:${data.leaf.line}: the exported file's context at its last entry differs from the original's at this leaf\n`);
  return out;
}

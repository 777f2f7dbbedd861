import type { EntryPatchKind } from "../ops/export-jsonl.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import { formatMessage } from "./diagnostics.js";
import { sanitizeLine } from "./sanitize.js";

export interface JsonlExport {
  leaf: EntryRec;
  /** The lines of the new file, each without its newline. */
  lines: string[];
  /** Entries of the path left out, each with the finding that made it go (line = the original's line). */
  leftOut: Diagnostic[];
  /** Entries written with a field changed so that the finding goes while the context stays: the finding and the change. */
  changed: ChangedEntry[];
  /** Findings about the new file that neither leaving out nor changing could fix without changing the context. */
  remaining: Diagnostic[];
  /** Whether pisess builds the same context at the new file's last entry as at the leaf of the original. */
  sameContext: boolean;
}

/** A finding the export fixed by changing a field (line = the original's line), and which change it made. */
export type ChangedEntry = Diagnostic & { patch: EntryPatchKind };

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

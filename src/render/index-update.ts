import type { FleetFailure } from "../ops/fleet-files.js";
import { TABLE_NAMES, type TableName } from "../ops/fleet-tables.js";
import type { IndexData } from "../reports/fleet-index.js";
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

/** `pisess index --json`: what the update did, keys in this order (nothing in it depends on the time of the run). */
export interface IndexJson {
  /** The database file, as given (--db) or the default one. */
  db: string;
  /** The sessions dir searched, when no folders or files were given. */
  root?: string;
  /** That dir, when it does not exist (nothing was indexed). */
  missingRoot?: string;
  /** Session files asked about. */
  files: number;
  /** Found as they were (not read). */
  unchanged: number;
  /** New to the index, read whole. */
  added: number;
  /** Read whole again: shrunk, rewritten, a fork whose parent changed, or grown where going on is not sure. */
  changed: number;
  /** Grown, and read only from their last line end on. */
  appended: number;
  /** Gone since the last run: their rows dropped. */
  removed: number;
  /** Bytes of session lines this update read (of appended files, only those after their last line end). */
  bytesRead: number;
  /** Rows written per table by this update, in the tables' order. */
  rows: Record<TableName, number>;
  /** Paths that could not be read (as found), and why; also on stderr. */
  failures: FleetFailure[];
}

/** The document of `pisess index --json`. */
export function indexJsonObject(d: IndexData): IndexJson {
  return {
    db: d.db,
    ...(d.root !== undefined ? { root: d.root } : {}),
    ...(d.missingRoot !== undefined ? { missingRoot: d.missingRoot } : {}),
    files: d.files,
    unchanged: d.unchanged,
    added: d.added,
    changed: d.changed,
    appended: d.appended,
    removed: d.removed,
    bytesRead: d.bytesRead,
    rows: Object.fromEntries(TABLE_NAMES.map((t) => [t, d.rows[t]])) as Record<TableName, number>,
    failures: d.failures.map((f) => ({ path: f.path, reason: f.reason })),
  };
}

/** `pisess index --json`: one document, pretty (as usage --json). */
export function indexJson(d: IndexData): string {
  return `${JSON.stringify(indexJsonObject(d), null, 2)}\n`;
}

import type { Detail, DetailsWith, Rec } from "./detail.js";
import type { Diagnostic, EntryFields, EntryStore, Header, LoadFacts } from "./types.js";

export const CURRENT_VERSION = 3;

export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set([
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  // pi 0.86+ and 0.87+: cost accounting and context edits.
  "usage",
  "context_edit",
]);

/**
 * A loaded session: the index over every physical entry, plus what the loader found wrong. D is the detail it was
 * loaded with (loadSession's `detail`), and its records have only the fields that detail fills. A function that reads
 * no more than every load fills takes any session: Session<Detail>, or a generic Session<D> where it hands the
 * records back.
 */
export interface Session<D extends Detail = Detail> {
  /** The name used in output and diagnostics (the path as given, or "-" for stdin). */
  file: string;
  /** The path on disk; undefined for stdin. */
  path: string | undefined;
  header: Header | null;
  headerLine: number | null;
  /** header.version ?? 1 (as pi computes it); a non-number version is kept as found. */
  version: number;
  /** Every physical entry in file order, duplicates included. */
  entries: Rec<D>[];
  /** id → entry; the last duplicate wins, as in pi. */
  byId: Map<string, Rec<D>>;
  /** Resolved labels, targetId → label, as pi resolves them in file order. */
  labels: Map<string, string>;
  sessionName: string | undefined;
  /** The last entry in file order (pi's leaf on open), or null for a session without entries. */
  defaultLeaf: Rec<D> | null;
  /** Findings of the loader (lines, header, ids); structural findings come from the operations. */
  diagnostics: Diagnostic[];
  facts: LoadFacts;
  /** Lines pi would drop, with why. */
  skipped: { line: number; reason: "blank" | "malformed" | "header" | "non-object" }[];
  store: EntryStore;
}

/** A session of any load that fills the fields F: what code that reads F of its records takes. */
export type SessionHaving<F extends keyof EntryFields> = Session<DetailsWith<F>>;

/** The whole entry as pi holds it after migration: the original object with migrated ids and roles. */
export function readEntry(session: Session<Detail>, rec: Rec<Detail>): Record<string, unknown> {
  return parseEntry(session, rec, session.store.rawLine(rec));
}

/** readEntry for a caller that already holds the entry's line (read with the rest of the file, say). */
export function parseEntry(session: Session<Detail>, rec: Rec<Detail>, line: string): Record<string, unknown> {
  return migrateEntryObject(JSON.parse(line) as Record<string, unknown>, rec, session.version);
}

/** Applies the in-memory migration to a re-read entry, using the ids the index assigned. */
function migrateEntryObject(o: Record<string, unknown>, rec: Rec<Detail>, version: number): Record<string, unknown> {
  // JS comparison semantics on purpose: pi compares `header.version ?? 1` with numbers the same way.
  if ((version as unknown as number) < 2) {
    o.id = rec.id;
    o.parentId = rec.parentId;
    if (rec.type === "compaction" && typeof o.firstKeptEntryIndex === "number") {
      if (rec.firstKeptEntryId !== undefined) o.firstKeptEntryId = rec.firstKeptEntryId;
      delete o.firstKeptEntryIndex;
    }
  }
  if ((version as unknown as number) < 3 && rec.type === "message") {
    const m = o.message as Record<string, unknown> | null | undefined;
    if (m && typeof m === "object" && m.role === "hookMessage") m.role = "custom";
  }
  return o;
}

/** How entry ids are made for v1 files, which have none: "L" + the physical line number. Stable across runs. */
export function v1Id(line: number): string {
  return `L${line}`;
}

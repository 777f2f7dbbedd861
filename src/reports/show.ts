import { readEntry, type Session } from "../model/session.js";
import { lineTextAt } from "../model/store-text.js";
import { editsTargeting } from "../ops/edits.js";
import { buildTree } from "../ops/tree.js";
import type { Report } from "./report.js";
import { entryRef } from "./refs.js";

interface ShowRef {
  id: string | null;
  line: number;
}

/** `pisess show --json`. */
export interface ShowReport {
  file: string;
  line: number;
  id: string | null;
  type: string;
  role: string | null;
  timestamp: unknown;
  /** The parent as pi resolves it (last duplicate wins); null for a root. */
  parent: ShowRef | null;
  /** As written, which may name a missing entry. */
  parentId: string | null;
  /** In pi's getTree order. */
  children: ShowRef[];
  label: string | null;
  /** label and context_edit: the entry named by targetId (pi's rule: last duplicate wins); null when missing. */
  target: ShowRef | null;
  /** The context_edit entries anywhere in the file that name this entry, in file order. */
  editedBy: ShowRef[];
  /** The whole entry after in-memory migration. */
  entry: Record<string, unknown>;
}

export interface ShowOptions {
  /** Entry: id, id prefix, @LINE, label:NAME or leaf. */
  ref: string;
  /** Only the exact original line. */
  raw?: boolean;
}

/** A line the loader did not read as an entry (malformed JSON, not an object, …): its text and why. */
export interface SkippedLine {
  file: string;
  line: number;
  reason: "blank" | "malformed" | "header" | "non-object";
  /** The line as written; null when it cannot be read back (stdin keeps only entries). */
  text: string | null;
}

export type ShowData =
  | { raw: string; skipped?: undefined }
  | { raw?: undefined; skipped?: undefined; entry: ShowReport }
  | { raw?: undefined; skipped: SkippedLine };

/** `@N` naming a line the loader skipped: that line, or undefined. */
function skippedAt(session: Session, ref: string): Session["skipped"][number] | undefined {
  const m = /^@(\d+)$/.exec(ref);
  if (!m) return undefined;
  const line = Number(m[1]);
  if (session.entries.some((r) => r.line === line)) return undefined;
  return session.skipped.find((s) => s.line === line && s.reason !== "blank");
}

/**
 * `pisess show` on a line that is not an entry (`@N` of a malformed line): the line as written and the findings
 * about it (exit 1: a finding), instead of "no entry matches". Undefined when the reference names no such line.
 */
export async function showSkippedReport(session: Session, ref: string): Promise<Report<ShowData> | undefined> {
  const s = skippedAt(session, ref);
  if (!s) return undefined;
  const text = session.path !== undefined ? await lineTextAt(session.path, s.line) : null;
  const diagnostics = session.diagnostics.filter((d) => d.line === s.line);
  return { data: { skipped: { file: session.file, line: s.line, reason: s.reason, text } }, diagnostics, exitCode: 1 };
}

/** `pisess show`: one entry with its line, parent, children, label and content (or its raw line). */
export function showReport(session: Session, opts: ShowOptions): Report<ShowData> {
  const rec = entryRef(session, String(opts.ref));
  if (opts.raw) return { data: { raw: session.store.rawLine(rec) }, diagnostics: [], exitCode: 0 };
  const tree = buildTree(session);
  const parent = tree.parent[rec.index] ?? null;
  const node = tree.nodes[rec.index];
  const target = rec.targetId === undefined ? undefined : session.byId.get(rec.targetId);
  const entry: ShowReport = {
    file: session.file,
    line: rec.line,
    id: rec.id ?? null,
    type: rec.type,
    role: rec.type === "message" ? (rec.role ?? null) : null,
    timestamp: rec.timestamp ?? null,
    parent: parent ? { id: parent.id ?? null, line: parent.line } : null,
    parentId: typeof rec.parentId === "string" ? rec.parentId : null,
    children: (node?.children ?? []).map((c) => ({ id: c.rec.id ?? null, line: c.rec.line })),
    label: rec.id !== undefined ? (session.labels.get(rec.id) ?? null) : null,
    target: target ? { id: target.id ?? null, line: target.line } : null,
    editedBy: editsTargeting(session, rec).map((e) => ({ id: e.id ?? null, line: e.line })),
    entry: readEntry(session, rec),
  };
  return { data: { entry }, diagnostics: [], exitCode: 0 };
}

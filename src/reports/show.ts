import { readEntry, type Session } from "../model/session.js";
import { editsTargeting } from "../ops/edits.js";
import { buildTree } from "../ops/tree.js";
import type { ShowReport } from "../render/show.js";
import type { Report } from "./report.js";
import { entryRef } from "./refs.js";

export interface ShowOptions {
  /** Entry: id, id prefix, @LINE, label:NAME or leaf. */
  ref: string;
  /** Only the exact original line. */
  raw?: boolean;
}

export type ShowData = { raw: string } | { raw?: undefined; entry: ShowReport };

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

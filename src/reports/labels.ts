import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import type { Report } from "./report.js";

/** A resolved label (`pisess labels --ndjson`). */
export interface LabelRow {
  label: string;
  targetId: string;
  /** null when no entry has the target id. */
  targetLine: number | null;
  targetType: string | null;
  targetRole: string | null;
  /** The label entry that set it. */
  setBy: { id: string | null; line: number; timestamp: unknown } | null;
}

/** One label change (`pisess labels --history --ndjson`). */
export interface LabelChange {
  id: string | null;
  line: number;
  timestamp: unknown;
  targetId: string | null;
  targetLine: number | null;
  /** null: the change clears the label. */
  label: string | null;
  /** This change set the label that is current now. */
  current: boolean;
}

export interface LabelsOptions {
  /** Every label entry in file order, clears included, instead of the current labels. */
  history?: boolean;
}

export type LabelsData = { file: string; history: LabelChange[] } | { file: string; history?: undefined; labels: LabelRow[] };

/** `pisess labels`: the labels as pi resolves them, or every label change. */
export function labelsReport(session: Session, opts: LabelsOptions = {}): Report<LabelsData> {
  // Which label entry set each current label: pi's rule, walking the file in order.
  const setter = new Map<string, EntryRec>();
  const labelEntries: EntryRec[] = [];
  for (const rec of session.entries) {
    if (rec.type !== "label") continue;
    labelEntries.push(rec);
    if (rec.targetId === undefined) continue;
    if (rec.labelText) setter.set(rec.targetId, rec);
    else setter.delete(rec.targetId);
  }
  const setters = new Set(setter.values());
  // Labels counts the loader's findings only (it builds no tree).
  const diagnostics = [...session.diagnostics];
  if (opts.history) {
    const rows: LabelChange[] = labelEntries.map((rec) => ({
      id: rec.id ?? null,
      line: rec.line,
      timestamp: rec.timestamp ?? null,
      targetId: rec.targetId ?? null,
      targetLine: rec.targetId !== undefined ? (session.byId.get(rec.targetId)?.line ?? null) : null,
      label: rec.labelText ? rec.labelText : null,
      current: setters.has(rec),
    }));
    return { data: { file: session.file, history: rows }, diagnostics, exitCode: 0 };
  }
  const rows: LabelRow[] = [...session.labels].map(([targetId, label]) => {
    const target = session.byId.get(targetId);
    const by = setter.get(targetId);
    return {
      label,
      targetId,
      targetLine: target?.line ?? null,
      targetType: target ? target.type : null,
      targetRole: target?.type === "message" ? (target.role ?? null) : null,
      setBy: by ? { id: by.id ?? null, line: by.line, timestamp: by.timestamp ?? null } : null,
    };
  });
  return { data: { file: session.file, labels: rows }, diagnostics, exitCode: 0 };
}

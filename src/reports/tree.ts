import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { sessionProblems } from "../ops/problems.js";
import { buildTree } from "../ops/tree.js";
import { buildView, layoutRows, type FilterMode, type Row, type SessionView } from "../ops/view.js";
import type { JsonNode } from "../render/tree-json.js";
import type { Report } from "./report.js";
import { entryRef } from "./refs.js";

export interface TreeOptions {
  /** Active leaf reference (default: the session's last entry). */
  leaf?: string;
  filter?: FilterMode;
  search?: string[];
  depth?: number;
  /** Only the subtree of this entry. */
  from?: string;
  /** "json": nested, every entry unless filtered, getTree order; "text"/"ndjson": pi's /tree view, rows laid out. */
  output?: "text" | "json" | "ndjson";
}

export interface TreeData {
  leaf: EntryRec | null;
  /** The roots to show (the whole tree's, or the view's). */
  roots: readonly JsonNode[];
  /** For text and ndjson: the view and its rows. */
  view?: SessionView;
  rows?: Row[];
}

/** `pisess tree`: the session tree, like pi's /tree. */
export function treeReport(session: Session, opts: TreeOptions = {}): Report<TreeData> {
  const json = opts.output === "json";
  const leaf: EntryRec | null = opts.leaf !== undefined ? entryRef(session, opts.leaf) : session.defaultLeaf;
  const from = opts.from !== undefined ? entryRef(session, opts.from) : undefined;
  const tree = buildTree(session);
  const diagnostics = sessionProblems(session, tree);
  // Text follows pi's /tree (default filter, active branch first); --json keeps every entry in getTree order.
  const filter: FilterMode | undefined = opts.filter ?? (json ? undefined : "default");
  const search = (opts.search ?? []).flatMap((s) => s.toLowerCase().split(/\s+/)).filter(Boolean);
  // `--json` of every entry is the tree itself (same roots, children in getTree order): no view to build.
  if (json && filter === undefined && search.length === 0 && from === undefined) return { data: { leaf, roots: tree.roots }, diagnostics, exitCode: 0 };
  if (json) {
    const view = buildView(session, tree, { filter, search, from, leaf, activeFirst: false });
    return { data: { leaf, roots: view.roots }, diagnostics, exitCode: 0 };
  }
  const view = buildView(session, tree, { filter, search, from, leaf, activeFirst: true });
  const rows = layoutRows(view.roots, opts.depth ?? Infinity);
  return { data: { leaf, roots: view.roots, view, rows }, diagnostics, exitCode: 0 };
}

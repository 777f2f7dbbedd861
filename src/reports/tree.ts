import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { sessionProblems } from "../ops/problems.js";
import { buildTree, flattenNodes, flatTree, type FlatTree } from "../ops/tree.js";
import { buildView, layoutRows, rowsOf, TEXT_LEVELS, type FilterMode, type Row, type SessionView } from "../ops/view.js";
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
  /** "json": flat, every entry unless filtered, children in getTree order; "text"/"ndjson": pi's /tree view, rows laid out. */
  output?: "text" | "json" | "ndjson";
  /** Text and ndjson: `rows` are laid out as they are taken, once (a one-shot iterable), not held together. */
  stream?: boolean;
}

export interface TreeData {
  leaf: EntryRec | null;
  /** For json: the entries shown, as a list (the whole tree's, or the filtered view's). */
  flat?: FlatTree;
  /** For text and ndjson: the view and its rows (an array, unless the options asked for `stream`). */
  view?: SessionView;
  rows?: Row[] | Iterable<Row>;
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
  if (json && filter === undefined && search.length === 0 && from === undefined)
    return { data: { leaf, flat: flatTree(tree) }, diagnostics, exitCode: 0 };
  if (json) {
    const view = buildView(session, tree, { filter, search, from, leaf, activeFirst: false });
    return { data: { leaf, flat: flattenNodes(view.roots) }, diagnostics, exitCode: 0 };
  }
  const view = buildView(session, tree, { filter, search, from, leaf, activeFirst: true });
  // The text draws the innermost TEXT_LEVELS levels; twice that many gutters cover them (a clamped gutter can repeat).
  const rows = (opts.stream ? rowsOf : layoutRows)(view.roots, opts.depth ?? Infinity, 2 * TEXT_LEVELS);
  return { data: { leaf, view, rows }, diagnostics, exitCode: 0 };
}

import type { Session } from "../model/session.js";
import type { Detail, Rec } from "../model/detail.js";
import { sessionProblems } from "../ops/problems.js";
import { buildTree, flattenNodes, flatTree, type FlatTree } from "../ops/tree.js";
import { buildView, layoutRows, rowsOf, TEXT_LEVELS, type FilterMode, type Row, type SessionView, type ViewDetail } from "../ops/view.js";
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

export interface TreeData<D extends Detail = Detail> {
  leaf: Rec<D> | null;
  /** For json: the entries shown, as a list (the whole tree's, or the filtered view's). */
  flat?: FlatTree;
  /** For text and ndjson: the view and its rows (an array, unless the options asked for `stream`). */
  view?: SessionView;
  rows?: Row[] | Iterable<Row>;
}

/** Whether treeReport gives the whole tree as JSON: the case treeJsonReport answers, from any load. */
export function wholeTreeJson(opts: Pick<TreeOptions, "output" | "filter" | "search" | "from">): boolean {
  return opts.output === "json" && opts.filter === undefined && searchWords(opts.search).length === 0 && opts.from === undefined;
}

function searchWords(search: string[] | undefined): string[] {
  return (search ?? []).flatMap((s) => s.toLowerCase().split(/\s+/)).filter(Boolean);
}

/**
 * `pisess tree --json` of every entry: the tree itself (same roots, children in getTree order), no view to build.
 * It reads only what every load fills.
 */
export function treeJsonReport<D extends Detail>(session: Session<D>, opts: Pick<TreeOptions, "leaf"> = {}): Report<TreeData<D>> {
  const leaf = opts.leaf !== undefined ? entryRef(session, opts.leaf) : session.defaultLeaf;
  const tree = buildTree(session);
  const diagnostics = sessionProblems(session, tree);
  return { data: { leaf, flat: flatTree(tree) }, diagnostics, exitCode: 0 };
}

/** `pisess tree`: the session tree, like pi's /tree. Filters, searches and the text read the previews. */
export function treeReport<D extends ViewDetail>(session: Session<D>, opts: TreeOptions = {}): Report<TreeData<D>> {
  if (wholeTreeJson(opts)) return treeJsonReport(session, opts.leaf !== undefined ? { leaf: opts.leaf } : {});
  const json = opts.output === "json";
  const leaf = opts.leaf !== undefined ? entryRef(session, opts.leaf) : session.defaultLeaf;
  const from = opts.from !== undefined ? entryRef(session, opts.from) : undefined;
  const tree = buildTree(session);
  const diagnostics = sessionProblems(session, tree);
  // Text follows pi's /tree (default filter, active branch first); --json keeps every entry in getTree order.
  const filter: FilterMode | undefined = opts.filter ?? (json ? undefined : "default");
  const search = searchWords(opts.search);
  if (json) {
    const view = buildView(session, tree, { filter, search, from, leaf, activeFirst: false });
    return { data: { leaf, flat: flattenNodes(view.roots) }, diagnostics, exitCode: 0 };
  }
  const view = buildView(session, tree, { filter, search, from, leaf, activeFirst: true });
  // The text draws the innermost TEXT_LEVELS levels; twice that many gutters cover them (a clamped gutter can repeat).
  const rows = (opts.stream ? rowsOf : layoutRows)(view.roots, opts.depth ?? Infinity, 2 * TEXT_LEVELS);
  return { data: { leaf, view, rows }, diagnostics, exitCode: 0 };
}

import type { Session } from "../model/session.js";
import type { DetailsWith, EntryRec, Rec } from "../model/detail.js";
import type { SessionTree, TreeNode } from "./tree.js";

export const FILTER_MODES = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
export type FilterMode = (typeof FILTER_MODES)[number];

/** Bookkeeping entries pi's /tree hides in its default view. */
const SETTINGS_TYPES: ReadonlySet<string> = new Set([
  "label",
  "context_edit",
  "custom",
  "model_change",
  "thinking_level_change",
  "session_info",
]);

/** Entries pi 1.6's /tree never shows, whatever the filter mode (cost accounting, not conversation). */
const NEVER_SHOWN_TYPES: ReadonlySet<string> = new Set(["usage"]);

export interface ViewOptions {
  /** undefined: every entry (no filtering at all, not even pi's tool-call-only rule). */
  filter: FilterMode | undefined;
  /** Lower-cased words that must all occur in an entry's searchable text. */
  search: string[];
  /** Show only this subtree. */
  from: EntryRec | undefined;
  /** The active leaf: its path is highlighted and, with activeFirst, its branch listed first. */
  leaf: EntryRec | null;
  /** Order children (and roots) as pi's /tree does: the branch holding the active leaf first. */
  activeFirst: boolean;
}

/** The loads the text views read (the previews and facts describeEntry shows): preview and full. */
export type ViewDetail = DetailsWith<
  "text" | "hasText" | "stopReason" | "errorMessage" | "editRemoves" | "toolNames" | "toolName" | "isError"
>;
/** A record the text views can show. */
export type ViewRec = Rec<ViewDetail>;

export interface ViewNode {
  rec: ViewRec;
  children: ViewNode[];
  /** Ancestors in the full tree (0 for a root). */
  depth: number;
  cycleCut: boolean;
}

export interface SessionView {
  roots: ViewNode[];
  /** Entries on the active path (root → leaf). */
  onPath: Set<EntryRec>;
  shown: number;
}

/** What pi's /tree search matches against, built from the index (pi cuts content text at 200 characters). */
export function searchableText(session: Session, rec: ViewRec): string {
  const parts: string[] = [];
  const label = rec.id === undefined ? undefined : session.labels.get(rec.id);
  if (label) parts.push(label);
  const text = (rec.text ?? "").slice(0, 200);
  switch (rec.type) {
    case "message":
      parts.push(rec.role ?? "");
      if (rec.role === "bashExecution") parts.push(rec.text ?? "");
      else parts.push(text);
      break;
    case "custom_message":
      parts.push(rec.customType ?? "", rec.text ?? "");
      break;
    case "compaction":
      parts.push("compaction");
      break;
    case "branch_summary":
      parts.push("branch summary", rec.text ?? "");
      break;
    case "session_info":
      parts.push("title");
      if (rec.name) parts.push(rec.name);
      break;
    case "model_change":
      parts.push("model", rec.model ?? "");
      break;
    case "thinking_level_change":
      parts.push("thinking", rec.thinkingLevel ?? "");
      break;
    case "custom":
      parts.push("custom", rec.customType ?? "");
      break;
    case "label":
      parts.push("label", rec.labelText ?? "");
      break;
    case "context_edit":
      parts.push("context edit", rec.editRemoves ? "omit" : "replace", rec.targetId ?? "");
      break;
  }
  return parts.join(" ");
}

function passes(session: Session, rec: ViewRec, opts: ViewOptions): boolean {
  const mode = opts.filter;
  if (mode !== undefined) {
    if (NEVER_SHOWN_TYPES.has(rec.type)) return false;
    // pi hides tool-call-only assistant turns in every mode, unless they failed or are the active leaf.
    if (rec.type === "message" && rec.role === "assistant" && rec !== opts.leaf) {
      const failed = rec.stopReason !== undefined && rec.stopReason !== "" && rec.stopReason !== "stop" && rec.stopReason !== "toolUse";
      if (!rec.hasText && !failed) return false;
    }
    const settings = SETTINGS_TYPES.has(rec.type);
    switch (mode) {
      case "user-only":
        if (!(rec.type === "message" && rec.role === "user")) return false;
        break;
      case "no-tools":
        if (settings || (rec.type === "message" && rec.role === "toolResult")) return false;
        break;
      case "labeled-only":
        if (rec.id === undefined || !session.labels.has(rec.id)) return false;
        break;
      case "all":
        break;
      default:
        if (settings) return false;
    }
  }
  if (opts.search.length > 0) {
    const text = searchableText(session, rec).toLowerCase();
    return opts.search.every((w) => text.includes(w));
  }
  return true;
}

/** The children of every view node without any: one shared, frozen array; a node gets its own with its first child. */
const NO_CHILDREN = Object.freeze([]) as unknown as ViewNode[];

/**
 * The tree as shown: filtered entries removed, their visible descendants attached to the nearest visible
 * ancestor (as pi's /tree does). Iterative throughout.
 */
export function buildView(session: Session<ViewDetail>, tree: SessionTree<ViewDetail>, opts: ViewOptions): SessionView {
  const containsActive = new Uint8Array(session.entries.length);
  const path: EntryRec[] = [];
  if (opts.leaf) {
    // Walk the tree's parent links: they are cycle-free after buildTree cut the cycles open.
    // The marks double as the walk's guard.
    let cur: EntryRec | null = opts.leaf;
    while (cur && containsActive[cur.index] !== 1) {
      path.push(cur);
      containsActive[cur.index] = 1;
      if ((tree.nodes[cur.index] as TreeNode<ViewDetail>).cycleCut) break;
      cur = tree.parent[cur.index] ?? null;
    }
  }
  const onPath = new PathSet(session.entries, containsActive, path);
  const order = (children: TreeNode<ViewDetail>[]): TreeNode<ViewDetail>[] => {
    if (!opts.activeFirst || children.length < 2) return children;
    const first = children.filter((c) => containsActive[c.rec.index] === 1);
    if (first.length === 0) return children;
    return [...first, ...children.filter((c) => containsActive[c.rec.index] !== 1)];
  };

  const startNodes = opts.from ? [tree.nodes[opts.from.index] as TreeNode<ViewDetail>] : tree.roots;
  const roots: ViewNode[] = [];
  let shown = 0;
  // Stacks of tree nodes, their nearest visible ancestors' view nodes (null: top level) and depths, side by side
  // (no array per frame); pushed in reverse so that pre-order matches display order.
  const stack: TreeNode<ViewDetail>[] = [];
  const stackParent: (ViewNode | null)[] = [];
  const stackDepth: number[] = [];
  const startDepth = opts.from ? depthOf(tree, opts.from) : 0;
  const ordered = order(startNodes);
  for (let i = ordered.length - 1; i >= 0; i--) {
    stack.push(ordered[i] as TreeNode<ViewDetail>);
    stackParent.push(null);
    stackDepth.push(startDepth);
  }
  while (stack.length > 0) {
    const node = stack.pop() as TreeNode<ViewDetail>;
    const visibleParent = stackParent.pop() as ViewNode | null;
    const depth = stackDepth.pop() as number;
    let attachTo = visibleParent;
    if (passes(session, node.rec, opts)) {
      const view: ViewNode = { rec: node.rec, children: NO_CHILDREN, depth, cycleCut: node.cycleCut === true };
      if (!visibleParent) roots.push(view);
      else if (visibleParent.children === NO_CHILDREN) visibleParent.children = [view];
      else visibleParent.children.push(view);
      attachTo = view;
      shown++;
    }
    const kids = order(node.children);
    for (let i = kids.length - 1; i >= 0; i--) {
      stack.push(kids[i] as TreeNode<ViewDetail>);
      stackParent.push(attachTo);
      stackDepth.push(depth + 1);
    }
  }
  return { roots, onPath, shown };
}

/**
 * SessionView.onPath: a Set (every method, in the walk's order, leaf first) kept as marks by entry index and the
 * path's list; a change copies it into the Set's own storage. A million-entry path in a Set cost tens of
 * megabytes and most of building the view.
 */
class PathSet extends Set<EntryRec> {
  readonly #entries: readonly EntryRec[];
  readonly #marks: Uint8Array;
  readonly #list: readonly EntryRec[];
  #own = false;

  constructor(entries: readonly EntryRec[], marks: Uint8Array, list: readonly EntryRec[]) {
    super();
    this.#entries = entries;
    this.#marks = marks;
    this.#list = list;
  }

  override has(rec: EntryRec): boolean {
    if (this.#own) return super.has(rec);
    return typeof rec === "object" && rec !== null && this.#marks[rec.index] === 1 && this.#entries[rec.index] === rec;
  }

  override get size(): number {
    return this.#own ? super.size : this.#list.length;
  }

  #takeOver(): void {
    if (this.#own) return;
    for (const rec of this.#list) super.add(rec);
    this.#own = true;
  }

  override add(rec: EntryRec): this {
    this.#takeOver();
    return super.add(rec);
  }

  override delete(rec: EntryRec): boolean {
    this.#takeOver();
    return super.delete(rec);
  }

  override clear(): void {
    this.#own = true;
    super.clear();
  }

  override values(): SetIterator<EntryRec> {
    return this.#own ? super.values() : (this.#list[Symbol.iterator]() as unknown as SetIterator<EntryRec>);
  }

  override keys(): SetIterator<EntryRec> {
    return this.values();
  }

  override entries(): SetIterator<[EntryRec, EntryRec]> {
    if (this.#own) return super.entries();
    const list = this.#list;
    return (function* () {
      for (const rec of list) yield [rec, rec] as [EntryRec, EntryRec];
    })() as unknown as SetIterator<[EntryRec, EntryRec]>;
  }

  override [Symbol.iterator](): SetIterator<EntryRec> {
    return this.values();
  }

  override forEach(fn: (value: EntryRec, key: EntryRec, set: Set<EntryRec>) => void, thisArg?: unknown): void {
    for (const rec of this.values()) fn.call(thisArg, rec, rec, this);
  }
}

function depthOf(tree: SessionTree, rec: EntryRec): number {
  let d = 0;
  let cur = tree.parent[rec.index] ?? null;
  const guard = new Set<EntryRec>();
  while (cur && !guard.has(cur) && !(tree.nodes[cur.index] as TreeNode).cycleCut) {
    guard.add(cur);
    d++;
    cur = tree.parent[cur.index] ?? null;
  }
  return cur && (tree.nodes[cur.index] as TreeNode).cycleCut ? d + 1 : d;
}

/**
 * Branch levels a text tree draws: a row nested deeper shows its depth and then only its innermost levels, so
 * a line's length stays bounded whatever the session's shape.
 */
export const TEXT_LEVELS = 32;

interface Gutter {
  position: number;
  show: boolean;
}

/** One display line of the tree, laid out as pi's /tree lays it out. */
export interface Row {
  node: ViewNode;
  /** Indentation level in columns of three characters. */
  indent: number;
  connector: "none" | "mid" | "last";
  /** The `│` columns of open branches, outermost first (with a `gutterWindow`, only the innermost ones). */
  gutters: Gutter[];
}

/**
 * Lays the view out like pi's /tree: indentation grows only at branch points (and for the first generation after
 * one), `├─`/`└─` connectors under a branch point, `│` gutters for open branches. Pre-order, iterative.
 * `maxIndent` drops rows nested deeper than that many branch levels. `gutterWindow` keeps only the innermost gutters
 * of each row: a renderer that draws a fixed number of levels needs no more, and a comb of k branches would
 * otherwise copy gutter lists of every length up to k (quadratic).
 */
export function layoutRows(roots: ViewNode[], maxIndent = Infinity, gutterWindow = Infinity): Row[] {
  return [...rowsOf(roots, maxIndent, gutterWindow)];
}

/** layoutRows one row at a time, as they are taken (a million-entry tree need not hold a million rows). */
export function* rowsOf(roots: ViewNode[], maxIndent = Infinity, gutterWindow = Infinity): Generator<Row> {
  const multipleRoots = roots.length > 1;
  type Frame = [ViewNode, number, boolean, boolean, boolean, Gutter[], boolean];
  const stack: Frame[] = [];
  for (let i = roots.length - 1; i >= 0; i--) {
    stack.push([roots[i] as ViewNode, multipleRoots ? 1 : 0, multipleRoots, multipleRoots, i === roots.length - 1, [], multipleRoots]);
  }
  while (stack.length > 0) {
    const [node, indent, justBranched, showConnector, isLast, gutters, virtualRootChild] = stack.pop() as Frame;
    const displayIndent = multipleRoots ? Math.max(0, indent - 1) : indent;
    if (displayIndent > maxIndent) continue;
    const connectorShown = showConnector && !virtualRootChild;
    yield { node, indent: displayIndent, connector: connectorShown ? (isLast ? "last" : "mid") : "none", gutters };
    const children = node.children;
    const branches = children.length > 1;
    const childIndent = branches || (justBranched && indent > 0) ? indent + 1 : indent;
    const childGutters = connectorShown
      ? withGutter(gutters, { position: Math.max(0, displayIndent - 1), show: !isLast }, gutterWindow)
      : gutters;
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push([children[i] as ViewNode, childIndent, branches, branches, i === children.length - 1, childGutters, false]);
    }
  }
}

function withGutter(gutters: Gutter[], g: Gutter, window: number): Gutter[] {
  return gutters.length < window ? [...gutters, g] : [...gutters.slice(gutters.length - window + 1), g];
}

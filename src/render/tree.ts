import type { Session } from "../model/session.js";
import { type Row, type SessionView, TEXT_LEVELS, type ViewNode } from "../ops/view.js";
import { describeEntry, shortId } from "./entry.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { fitSegments, type Segment } from "./width.js";
import { CHUNK_CHARS } from "./chunks.js";

/**
 * The gutter and connector columns of a row, three characters a level. Past TEXT_LEVELS levels only the innermost
 * TEXT_LEVELS are drawn, after `DEPTH⋯ ` (the row's real depth), as the HTML export does: lines stay bounded.
 */
function prefixOf(row: Row): string {
  const indent = row.indent;
  const from = indent > TEXT_LEVELS ? indent - TEXT_LEVELS : 0;
  // What each drawn level holds: the first gutter at that position wins (as a search from the outermost would).
  const cells: (string | undefined)[] = new Array(indent - from);
  for (const g of row.gutters) {
    const at = g.position - from;
    if (at >= 0 && at < cells.length && cells[at] === undefined) cells[at] = g.show ? "│  " : "   ";
  }
  const connectorAt = row.connector === "none" ? -1 : indent - 1 - from;
  let out = from > 0 ? `${indent}⋯ ` : "";
  for (let i = 0; i < cells.length; i++) {
    out += cells[i] ?? (i === connectorAt ? (row.connector === "last" ? "└─ " : "├─ ") : "   ");
  }
  return out;
}

interface TreeTextOptions {
  style: Style;
  /** Terminal columns; undefined for no cutting. */
  width: number | undefined;
  leaf: ViewNode["rec"] | null;
}

/** The text lines of `pisess tree` (and `path`): one per row, nothing computed here but layout. */
export function* treeLines(
  session: Session,
  view: { onPath: Pick<SessionView["onPath"], "has"> },
  rows: Iterable<Row>,
  opts: TreeTextOptions,
): Generator<string> {
  const { style } = opts;
  const plain = (s: string) => s;
  // Rows down a chain share their gutters (laid-out gutter lists are never changed) and indentation: their prefix
  // is made once (a row of a deep comb costs a dozen string pieces).
  let lastGutters: Row["gutters"] | null = null;
  let lastIndent = -1;
  let lastConnector: Row["connector"] = "none";
  let lastPrefix = "";
  for (const row of rows) {
    if (row.gutters !== lastGutters || row.indent !== lastIndent || row.connector !== lastConnector) {
      lastGutters = row.gutters;
      lastIndent = row.indent;
      lastConnector = row.connector;
      lastPrefix = prefixOf(row);
    }
    const rec = row.node.rec;
    const onPath = view.onPath.has(rec);
    const isLeaf = rec === opts.leaf;
    const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
    const d = describeEntry(rec, style);
    // Markers come before the preview so that cutting to width never hides them.
    const segments: Segment[] = [
      [lastPrefix, style.dim],
      [isLeaf ? "◆ " : onPath ? "• " : "", style.accent],
      [shortId(rec), onPath ? style.bold : style.dim],
      [" ", plain],
      [row.node.cycleCut ? "[cycle] " : "", style.error],
      [isLeaf ? "[leaf] " : "", style.accent],
      [label !== undefined ? `[${sanitizeLine(label)}] ` : "", style.label],
      [d.tag, d.tagColor],
      [d.text ? ` ${d.text}` : "", d.color],
    ];
    yield fitSegments(segments, opts.width);
  }
}

/** Text lines as stdout chunks of CHUNK_CHARS characters (a tree can have millions of lines). */
export function* lineChunks(lines: Iterable<string>): Generator<string> {
  let buf = "";
  for (const l of lines) {
    buf += `${l}\n`;
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  if (buf) yield buf;
}

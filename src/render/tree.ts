import type { Session } from "../model/session.js";
import type { Row, SessionView, ViewNode } from "../ops/view.js";
import { describeEntry, shortId } from "./entry.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { fitSegments, type Segment } from "./width.js";

function prefixOf(row: Row): string {
  const chars: string[] = [];
  const total = row.indent * 3;
  const connectorAt = row.connector === "none" ? -1 : row.indent - 1;
  for (let i = 0; i < total; i++) {
    const level = Math.floor(i / 3);
    const pos = i % 3;
    const gutter = row.gutters.find((g) => g.position === level);
    if (gutter) chars.push(pos === 0 && gutter.show ? "│" : " ");
    else if (level === connectorAt) chars.push(pos === 0 ? (row.connector === "last" ? "└" : "├") : pos === 1 ? "─" : " ");
    else chars.push(" ");
  }
  return chars.join("");
}

interface TreeTextOptions {
  style: Style;
  /** Terminal columns; undefined for no cutting. */
  width: number | undefined;
  leaf: ViewNode["rec"] | null;
}

/** The text lines of `pisess tree` (and `path`): one per row, nothing computed here but layout. */
export function* treeLines(session: Session, view: SessionView, rows: Row[], opts: TreeTextOptions): Generator<string> {
  const { style } = opts;
  const plain = (s: string) => s;
  for (const row of rows) {
    const rec = row.node.rec;
    const onPath = view.onPath.has(rec);
    const isLeaf = rec === opts.leaf;
    const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
    const d = describeEntry(rec, style);
    // Markers come before the preview so that cutting to width never hides them.
    const segments: Segment[] = [
      [prefixOf(row), style.dim],
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

/** Text lines as stdout chunks of about 64 KiB (a tree can have millions of lines). */
export function* lineChunks(lines: Iterable<string>): Generator<string> {
  let buf = "";
  for (const l of lines) {
    buf += `${l}\n`;
    if (buf.length > 1 << 16) {
      yield buf;
      buf = "";
    }
  }
  if (buf) yield buf;
}

import type { Session } from "../model/session.js";
import type { Row, SessionView, ViewNode } from "../ops/view.js";
import { describeEntry, shortId } from "./entry.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { fitWidth, stringWidth } from "./width.js";

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

export interface TreeTextOptions {
  style: Style;
  /** Terminal columns; undefined for no cutting. */
  width: number | undefined;
  leaf: ViewNode["rec"] | null;
}

/** The text lines of `pisess tree` (and `path`): one per row, nothing computed here but layout. */
export function* treeLines(session: Session, view: SessionView, rows: Row[], opts: TreeTextOptions): Generator<string> {
  const { style } = opts;
  for (const row of rows) {
    const rec = row.node.rec;
    const onPath = view.onPath.has(rec);
    const isLeaf = rec === opts.leaf;
    const prefix = prefixOf(row);
    const marker = isLeaf ? "◆ " : onPath ? "• " : "";
    const id = shortId(rec);
    const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
    const labelText = label !== undefined ? `[${sanitizeLine(label)}] ` : "";
    const d = describeEntry(rec, style);
    const cycle = row.node.cycleCut ? " [cycle]" : "";
    const leafNote = isLeaf ? "  ← leaf" : "";
    let text = d.text;
    if (opts.width !== undefined) {
      const fixed = stringWidth(`${prefix}${marker}${id} ${labelText}`) + stringWidth(stripTag(d.tag)) + 1 + cycle.length + leafNote.length;
      text = fitWidth(text, opts.width - fixed);
    }
    const idStyled = onPath ? style.bold(id) : style.dim(id);
    const markerStyled = isLeaf ? style.accent(marker) : style.accent(marker);
    yield (
      style.dim(prefix) +
      markerStyled +
      idStyled +
      " " +
      (labelText ? style.label(labelText) : "") +
      d.tag +
      (text ? " " + d.color(text) : "") +
      (cycle ? style.error(cycle) : "") +
      (leafNote ? style.accent(leafNote) : "")
    );
  }
}

// Tags are coloured already; their width is that of the text without escapes.
function stripTag(s: string): string {
  return s.replace(/\u001b\[[0-9;]*m/g, "");
}

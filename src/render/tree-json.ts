import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import type { Row, SessionView } from "../ops/view.js";

/** What the nested JSON needs of a node: tree nodes and (filtered) view nodes both fit. */
export interface JsonNode {
  rec: EntryRec;
  children: JsonNode[];
  cycleCut?: boolean;
}

/** Strings JSON.stringify writes as they are between quotes: no quote, backslash, control or surrogate unit. */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function jsonString(s: string): string {
  return PLAIN.test(s) ? '"' + s + '"' : JSON.stringify(s);
}

/** The node's object up to its children, written directly (same text as JSON.stringify of the object). */
function nodeHead(session: Session, rec: EntryRec, cycleCut: boolean): string {
  let s = '{"id":' + (rec.id === undefined ? "null" : jsonString(rec.id)) + ',"line":' + rec.line + ',"type":' + jsonString(rec.type);
  if (rec.type === "message" && rec.role !== undefined) s += ',"role":' + jsonString(rec.role);
  const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
  if (label !== undefined) s += ',"label":' + jsonString(label);
  const ts = rec.timestamp;
  s += ',"timestamp":' + (typeof ts === "string" ? jsonString(ts) : JSON.stringify(ts ?? null));
  if (cycleCut) s += ',"cycle":true';
  return s + ',"children":[';
}

/**
 * `tree --json`: one document, nested. Written with an explicit stack, in chunks, so that a million-deep chain
 * neither overflows JSON.stringify's recursion nor builds one giant string.
 */
export function* treeJson(session: Session, roots: readonly JsonNode[], leaf: EntryRec | null): Generator<string> {
  const head = {
    file: session.file,
    version: session.version,
    leaf: leaf ? { id: leaf.id ?? null, line: leaf.line } : null,
  };
  let buf = JSON.stringify(head).slice(0, -1) + ',"roots":[';
  // Frames: a node to open, or a marker to close the current one.
  const stack: (JsonNode | null)[] = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push(roots[i] as JsonNode);
  const needComma: boolean[] = [false];
  while (stack.length > 0) {
    const item = stack.pop() as JsonNode | null;
    if (item === null) {
      buf += "]}";
      needComma.pop();
      continue;
    }
    if (needComma[needComma.length - 1]) buf += ",";
    needComma[needComma.length - 1] = true;
    buf += nodeHead(session, item.rec, item.cycleCut === true);
    needComma.push(false);
    stack.push(null);
    for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i] as JsonNode);
    if (buf.length > 1 << 16) {
      yield buf;
      buf = "";
    }
  }
  yield buf + "]}\n";
}

/** `tree --ndjson`: one object per shown entry, in display order. */
export function* treeNdjson(session: Session, view: SessionView, rows: Row[], leaf: EntryRec | null): Generator<string> {
  let buf = "";
  for (const row of rows) {
    const rec = row.node.rec;
    const o: Record<string, unknown> = {
      id: rec.id ?? null,
      line: rec.line,
      parentId: rec.parentId ?? null,
      depth: row.node.depth,
      type: rec.type,
    };
    if (rec.type === "message" && rec.role !== undefined) o.role = rec.role;
    const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
    if (label !== undefined) o.label = label;
    o.onPath = view.onPath.has(rec);
    o.isLeaf = rec === leaf;
    o.children = row.node.children.map((c) => c.rec.id ?? null);
    if (row.node.cycleCut) o.cycle = true;
    buf += JSON.stringify(o) + "\n";
    if (buf.length > 1 << 16) {
      yield buf;
      buf = "";
    }
  }
  if (buf) yield buf;
}

import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import type { FlatNode, FlatTree } from "../ops/tree.js";
import type { Row, SessionView } from "../ops/view.js";
import { openArrayMember } from "./json.js";
import { CHUNK_CHARS } from "./chunks.js";

/** One entry of `tree --json`. Entries refer to each other by line: a line names one physical entry, an id may not. */
export interface TreeJsonEntry {
  /** null for an entry without an id. */
  id: string | null;
  line: number;
  /** As written (after pi's v1 migration); null when null, missing or not a string. */
  parentId: string | null;
  /** The parent in this document (as pi resolves it: the last entry with that id); null for a root of the document. */
  parentLine: number | null;
  type: string;
  /** Message entries only. */
  role?: string;
  label?: string;
  /** As written; null when missing. */
  timestamp: unknown;
  /** The lines of the children in this document, in pi's getTree order. */
  children: number[];
  /** Set where pisess cut a parent cycle open to show it: the entry is then a root. */
  cycle?: true;
}

/**
 * `tree --json`: flat, so that its nesting depth is the same whatever the session's shape (jq 1.6 refuses
 * documents nested deeper than 256 levels; a chain of entries nested one level each would be thousands deep).
 */
export interface TreeJsonDocument {
  file: string;
  version: number;
  leaf: { id: string | null; line: number } | null;
  /** The lines of the roots, in pi's order (file order). */
  roots: number[];
  /** One per entry in the document, in file order. */
  entries: TreeJsonEntry[];
}

/** Strings JSON.stringify writes as they are between quotes: no quote, backslash, control or surrogate unit. */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function jsonString(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

/**
 * Writes a TreeJsonDocument in chunks (same text as JSON.stringify of it would be), so that a million entries
 * never become one giant string.
 */
export function* treeJson(session: Session, flat: FlatTree, leaf: EntryRec | null): Generator<string> {
  const head = {
    file: session.file,
    version: session.version,
    leaf: leaf ? { id: leaf.id ?? null, line: leaf.line } : null,
  };
  let buf = openArrayMember(JSON.stringify(head), "roots");
  const { roots, nodes, parents } = flat;
  for (let i = 0; i < roots.length; i++) {
    buf += (i === 0 ? "" : ",") + (roots[i] as FlatNode).rec.line;
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  buf += '],"entries":[';
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as FlatNode;
    const rec = node.rec;
    const parent = parents[i] ?? null;
    if (i > 0) buf += ",";
    buf += `{"id":${rec.id === undefined ? "null" : jsonString(rec.id)},"line":${rec.line}`;
    buf += `,"parentId":${typeof rec.parentId === "string" ? jsonString(rec.parentId) : "null"}`;
    buf += `,"parentLine":${parent === null ? "null" : parent.line},"type":${jsonString(rec.type)}`;
    if (rec.type === "message" && rec.role !== undefined) buf += `,"role":${jsonString(rec.role)}`;
    const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
    if (label !== undefined) buf += `,"label":${jsonString(label)}`;
    const ts = rec.timestamp;
    buf += `,"timestamp":${typeof ts === "string" ? jsonString(ts) : JSON.stringify(ts ?? null)},"children":[`;
    const children = node.children;
    for (let c = 0; c < children.length; c++) buf += (c === 0 ? "" : ",") + (children[c] as FlatNode).rec.line;
    buf += node.cycleCut === true ? '],"cycle":true}' : "]}";
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  yield `${buf}]}\n`;
}

/** `tree --ndjson`: one object per shown entry, in display order. */
export function* treeNdjson(session: Session, view: SessionView, rows: Iterable<Row>, leaf: EntryRec | null): Generator<string> {
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
    buf += `${JSON.stringify(o)}\n`;
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  if (buf) yield buf;
}

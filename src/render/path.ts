import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import type { Row, ViewNode, ViewRec } from "../ops/view.js";
import { openArrayMember } from "./json.js";
import type { Style } from "./style.js";
import { lineChunks, treeLines } from "./tree.js";

/** One item of `path --ndjson` (and of `path --json`'s "entries"): the entry as migrated in memory. */
export interface PathItemJson {
  line: number;
  entry: Record<string, unknown>;
}

/** `path --json`. */
export interface PathJson {
  file: string;
  /** null for a session without entries. */
  leaf: { id: string | null; line: number } | null;
  entries: PathItemJson[];
}

/**
 * `path --json` (one document) or `--ndjson` (one item per line), root first. Streamed: each entry is read back
 * from the store (`json`: its JSON text) only when its turn comes.
 */
export function* pathJsonChunks(
  file: string,
  leaf: EntryRec | null,
  path: readonly EntryRec[],
  json: (rec: EntryRec) => string,
  asDocument: boolean,
): Generator<string> {
  if (asDocument) yield openArrayMember(JSON.stringify({ file, leaf: leaf && { id: leaf.id ?? null, line: leaf.line } }), "entries");
  let first = true;
  for (const rec of path) {
    // JSON.stringify's text of the item {line, entry}.
    const text = `{"line":${rec.line},"entry":${json(rec)}}`;
    if (asDocument) {
      yield (first ? "" : ",") + text;
      first = false;
    } else yield `${text}\n`;
  }
  if (asDocument) yield "]}\n";
}

/** `path` as text: the entries root first, one tree row each, without connectors; stdout chunks of CHUNK_CHARS characters. */
export function* pathTextLines(
  session: Session,
  path: readonly ViewRec[],
  leaf: ViewRec,
  opts: { style: Style; width: number | undefined },
): Generator<string> {
  // Every entry is on the path; rows made one at a time (a path can be a million entries long).
  const view = { onPath: { has: (_rec: EntryRec) => true } };
  const noChildren: ViewNode[] = [];
  const noGutters: Row["gutters"] = [];
  function* rows(): Generator<Row> {
    let depth = 0;
    for (const rec of path) {
      yield { node: { rec, children: noChildren, depth: depth++, cycleCut: false }, indent: 0, connector: "none", gutters: noGutters };
    }
  }
  yield* lineChunks(treeLines(session, view, rows(), { style: opts.style, width: opts.width, leaf }));
}

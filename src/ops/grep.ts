import { isObject } from "../model/json.js";
import { readEntry, type Session } from "../model/session.js";
import { toJson } from "../model/json-text.js";

/**
 * Matching for `pisess grep`: which texts of an entry are searched, the walk over a loaded session, and snippets.
 */

export interface GrepQuery {
  re: RegExp;
  /** Message roles to search (after migration: hookMessage is custom); empty or undefined = all. */
  roles?: ReadonlySet<string>;
  /** Entry types to search; empty or undefined = all. */
  types?: ReadonlySet<string>;
  /** Characters of context on each side of the match in a snippet. */
  context?: number;
}

/** One searchable text of an entry; `field` names where it came from. */
interface Field {
  field: "text" | "thinking" | "toolCall" | "toolResult" | "bash" | "summary" | "name" | "label" | "custom" | "edit";
  text: string;
}

export interface GrepHit {
  line: number;
  id: string | null;
  type: string;
  /** Message role, or null for other entry types. */
  role: string | null;
  /**
   * Entries on the root→entry path (the entry included), counted over the entries read before it. pi writes
   * parents before children, so for its files this is the whole path's length; it does not depend on a leaf.
   */
  path: number;
  field: Field["field"];
  /**
   * "edited": the match is in a context_edit's replacement, the content the model saw instead of `target`'s;
   * "recorded": in the entry's own content, as the file recorded it (`editedBy` says whether edits replaced it).
   */
  version: "recorded" | "edited";
  /** For a match in a context_edit: the entry it edits (null when the target is missing). */
  target?: { id: string | null; line: number } | null;
  /** The context_edits anywhere in the file that name this entry (`removes`: replacement null). */
  editedBy?: { id: string | null; line: number; removes: boolean }[];
  /** The text around the first match, as found (not sanitized). */
  snippet: string;
  /** The match inside `snippet` (UTF-16 offsets). */
  matchStart: number;
  matchEnd: number;
}

function blocksText(content: unknown, out: Field[], field: Field["field"]): void {
  if (typeof content === "string") {
    out.push({ field, text: content });
    return;
  }
  if (!Array.isArray(content)) return;
  for (const b of content) {
    if (isObject(b) && b.type === "text" && typeof b.text === "string") out.push({ field, text: b.text });
  }
}

/** The searchable texts of a (migrated) entry object, in reading order. */
function entryFields(o: Record<string, unknown>): Field[] {
  const out: Field[] = [];
  switch (o.type) {
    case "message": {
      const m = o.message;
      if (!isObject(m)) break;
      switch (m.role) {
        case "assistant":
          if (Array.isArray(m.content)) {
            for (const b of m.content) {
              if (!isObject(b)) continue;
              if (b.type === "text" && typeof b.text === "string") out.push({ field: "text", text: b.text });
              else if (b.type === "thinking" && typeof b.thinking === "string") out.push({ field: "thinking", text: b.thinking });
              else if (b.type === "toolCall") {
                const name = typeof b.name === "string" ? b.name : "";
                out.push({ field: "toolCall", text: `${name} ${toJson(b.arguments ?? {})}` });
              }
            }
          }
          if (typeof m.errorMessage === "string") out.push({ field: "text", text: m.errorMessage });
          break;
        case "toolResult":
          blocksText(m.content, out, "toolResult");
          break;
        case "bashExecution":
          if (typeof m.command === "string") out.push({ field: "bash", text: m.command });
          if (typeof m.output === "string") out.push({ field: "bash", text: m.output });
          break;
        default:
          blocksText(m.content, out, "text");
      }
      break;
    }
    case "custom_message":
      blocksText(o.content, out, "custom");
      break;
    case "compaction":
    case "branch_summary":
      if (typeof o.summary === "string") out.push({ field: "summary", text: o.summary });
      break;
    case "session_info":
      if (typeof o.name === "string") out.push({ field: "name", text: o.name });
      break;
    case "label":
      if (typeof o.label === "string") out.push({ field: "label", text: o.label });
      break;
    case "context_edit":
      if (isObject(o.replacement)) blocksText(o.replacement.content, out, "edit");
      break;
    default:
      break;
  }
  return out;
}

/** Up to `context` characters each side of [start, end), cut at the text's ends; "…" marks a cut. */
function snippetAround(text: string, start: number, end: number, context = 60): { snippet: string; matchStart: number; matchEnd: number } {
  let from = Math.max(0, start - context);
  let to = Math.min(text.length, end + context);
  // Do not split a surrogate pair.
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from--;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to++;
  const pre = from > 0 ? "…" : "";
  const post = to < text.length ? "…" : "";
  return { snippet: pre + text.slice(from, to) + post, matchStart: pre.length + (start - from), matchEnd: pre.length + (end - from) };
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** The first match in an entry's fields, or null. The regex must not be global or sticky. */
function matchFields(
  fields: Field[],
  q: GrepQuery,
): { field: Field["field"]; snippet: string; matchStart: number; matchEnd: number } | null {
  for (const f of fields) {
    const m = q.re.exec(f.text);
    if (!m) continue;
    // An empty match still marks a position; keep it visible as a zero-width mark.
    const s = snippetAround(f.text, m.index, m.index + m[0].length, q.context ?? 60);
    return { field: f.field, ...s };
  }
  return null;
}

/**
 * The hits of one session, in file order. Ids, parents, roles and the migrated entry come from the loader
 * (`session.entries`, `readEntry`): grep applies no header, version or migration rule of its own. Only the id →
 * depth map is kept (numbers), and only matching candidates are read back whole.
 */
export function* grepSession(session: Session, q: GrepQuery): Generator<GrepHit> {
  const depth = new Map<string, number>();
  const edits = new Map<string, { id: string | null; line: number; removes: boolean }[]>();
  for (const rec of session.entries) {
    if (rec.type !== "context_edit" || rec.targetId === undefined) continue;
    const list = edits.get(rec.targetId) ?? [];
    // Read back: a skeleton index does not hold the replacement (edits are few).
    list.push({ id: rec.id ?? null, line: rec.line, removes: readEntry(session, rec).replacement === null });
    edits.set(rec.targetId, list);
  }
  for (const rec of session.entries) {
    const id = rec.id ?? null;
    const parentId = typeof rec.parentId === "string" ? rec.parentId : null;
    const parentDepth = parentId !== null && parentId !== id ? depth.get(parentId) : undefined;
    const pathLen = (parentDepth ?? 0) + 1;
    if (id !== null) depth.set(id, pathLen);
    const role = rec.type === "message" ? (rec.role ?? null) : null;
    if (q.types && q.types.size > 0 && !q.types.has(rec.type)) continue;
    if (q.roles && q.roles.size > 0 && (role === null || !q.roles.has(role))) continue;
    const m = matchFields(entryFields(readEntry(session, rec)), q);
    if (!m) continue;
    const hit: GrepHit = {
      line: rec.line,
      id,
      type: rec.type,
      role,
      path: pathLen,
      version: m.field === "edit" ? "edited" : "recorded",
      ...m,
    };
    if (rec.type === "context_edit") {
      const target = rec.targetId === undefined ? undefined : session.byId.get(rec.targetId);
      hit.target = target ? { id: target.id ?? null, line: target.line } : null;
    }
    const editedBy = id === null ? undefined : edits.get(id);
    if (editedBy) hit.editedBy = editedBy;
    yield hit;
  }
}

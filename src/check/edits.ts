import { diag } from "../model/codes.js";
import { isObject } from "../model/json.js";
import type { Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import { givesMessages } from "../ops/context.js";
import { buildTree, resolveParent, type SessionTree, type TreeNode } from "../ops/tree.js";
import { toJson } from "../model/json-text.js";

/**
 * Checks of `context_edit` entries (pi 0.87+): what each edit targets, where the target sits in the tree, and
 * whether its replacement is one pi can apply. Pure: reads the edit entries back from the store, never throws
 * for bad content.
 */

/** What a replacement is: pi's writer only makes `null` and `{content: string | array}`. */
type ReplacementKind = "null" | "content" | "missing" | "invalid";

interface EditInfo {
  rec: EntryRec;
  /** undefined when targetId is missing or not a string (a schema violation). */
  targetId: string | undefined;
  replacement: ReplacementKind;
  /** For "invalid": what the replacement is, and what pi's context would hold as the target's content. */
  found?: string;
  becomes?: string;
}

function jsonKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return typeof v === "string" ? "a string" : typeof v === "number" ? "a number" : typeof v === "boolean" ? "a boolean" : typeof v;
}

/** Classifies a parsed context_edit entry. */
export function editInfo(rec: EntryRec, o: Record<string, unknown>): EditInfo {
  const targetId = typeof o.targetId === "string" ? o.targetId : undefined;
  if (!Object.hasOwn(o, "replacement")) return { rec, targetId, replacement: "missing" };
  const r = o.replacement;
  if (r === null) return { rec, targetId, replacement: "null" };
  if (isObject(r) && Object.hasOwn(r, "content")) {
    if (typeof r.content === "string" || Array.isArray(r.content)) return { rec, targetId, replacement: "content" };
    return {
      rec,
      targetId,
      replacement: "invalid",
      found: `an object whose content is ${jsonKind(r.content)}`,
      becomes: String(toJson(r.content)),
    };
  }
  const found = isObject(r) ? "an object without content" : jsonKind(r);
  return { rec, targetId, replacement: "invalid", found, becomes: "undefined" };
}

/** Every context_edit entry of the session, parsed back from the store (bodies are not kept). */
function readEdits(session: Session): EditInfo[] {
  const out: EditInfo[] = [];
  for (const rec of session.entries) {
    if (rec.type !== "context_edit") continue;
    let o: unknown;
    try {
      o = JSON.parse(session.store.rawLine(rec));
    } catch {
      continue; // changed since the loader read it
    }
    if (isObject(o)) out.push(editInfo(rec, o));
  }
  return out;
}

/** pi's appendContextEdit accepts only these targets. */
function isEditableTarget(rec: EntryRec): boolean {
  if (rec.type === "custom_message") return true;
  return rec.type === "message" && (rec.role === "user" || rec.role === "assistant" || rec.role === "toolResult");
}

/** Roles whose content pi's projectContextEntry replaces. */
const CONTENT_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);

/** Whether the target yields a message whose content an edit replaces (and that a missing replacement breaks). */
function yieldsContentMessage(rec: EntryRec): boolean {
  if (rec.type === "custom_message") return true;
  return rec.type === "message" && rec.hasMessage !== false && rec.role !== undefined && CONTENT_ROLES.has(rec.role);
}

/** What an edit does to a target pi's writer would refuse, where pi applies it. */
function effectOn(target: EntryRec, replacement: ReplacementKind): "removes" | "replaces" | "none" {
  // The context's own rule (ops/context.ts): what a null edit removes is what the entry would have given.
  if (replacement === "null") return givesMessages(target) ? "removes" : "none";
  return target.type === "message" && target.role === "custom" && target.hasMessage !== false ? "replaces" : "none";
}

function kindOf(rec: EntryRec): string {
  return rec.type === "message" ? `message:${rec.role ?? "?"}` : rec.type;
}

type Relation = "above" | "below" | "self" | "apart";

function listAt<T>(map: Map<number, T[]>, key: number): T[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

/**
 * Where each edit's target sits relative to the edit: above it (an ancestor, as pi's writer makes it), below it
 * (a descendant: pi applies it once the target is in the context), the edit itself, or apart (neither: pi never
 * applies it). One iterative walk holding the current root→entry path. Edits on or below a parent cycle get no
 * relation (pi cannot build their path; parent-cycle reports it).
 */
function relations(session: Session, tree: SessionTree, edits: { info: EditInfo; target: EntryRec }[]): Map<EditInfo, Relation> {
  const out = new Map<EditInfo, Relation>();
  if (edits.length === 0) return out;
  const byEdit = new Map<number, { info: EditInfo; target: EntryRec }[]>();
  const byTarget = new Map<number, { info: EditInfo; target: EntryRec }[]>();
  for (const e of edits) {
    if (e.target === e.info.rec) {
      out.set(e.info, "self");
      continue;
    }
    listAt(byEdit, e.info.rec.index).push(e);
    listAt(byTarget, e.target.index).push(e);
  }
  const onPath = new Uint8Array(session.entries.length);
  const visited = new Uint8Array(session.entries.length);
  const stack: { node: TreeNode; entered: boolean }[] = [];
  for (let i = tree.roots.length - 1; i >= 0; i--) stack.push({ node: tree.roots[i] as TreeNode, entered: false });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as { node: TreeNode; entered: boolean };
    const rec = frame.node.rec;
    if (frame.entered) {
      stack.pop();
      onPath[rec.index] = 0;
      continue;
    }
    frame.entered = true;
    if (tree.inCycle[rec.index]) {
      stack.pop();
      continue;
    }
    visited[rec.index] = 1;
    for (const e of byEdit.get(rec.index) ?? []) if (onPath[e.target.index]) out.set(e.info, "above");
    for (const e of byTarget.get(rec.index) ?? []) if (onPath[e.info.rec.index]) out.set(e.info, "below");
    onPath[rec.index] = 1;
    const kids = frame.node.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i] as TreeNode, entered: false });
  }
  for (const e of edits) if (!out.has(e.info) && visited[e.info.rec.index]) out.set(e.info, "apart");
  return out;
}

/**
 * relations() for edits on one path (root first, no cycle on it), without the tree: the edit's ancestors are the
 * path before it, and a target below it is one whose walk up (resolveParent, as the tree links) meets the path at
 * the edit or after it.
 */
function pathRelations(
  session: Session,
  path: readonly EntryRec[],
  edits: { info: EditInfo; target: EntryRec }[],
): Map<EditInfo, Relation> {
  const out = new Map<EditInfo, Relation>();
  if (edits.length === 0) return out;
  // Each entry's place on the path (-1: off it), by entry index: a Map of a million-entry path costs far more.
  const place = new Int32Array(session.entries.length).fill(-1);
  path.forEach((rec, i) => {
    place[rec.index] = i;
  });
  const at = (rec: EntryRec): number | undefined => {
    const i = place[rec.index] as number;
    return i < 0 ? undefined : i;
  };
  const seen = new Set<EntryRec>();
  for (const e of edits) {
    const i = at(e.info.rec);
    if (i === undefined) continue;
    if (e.target === e.info.rec) {
      out.set(e.info, "self");
      continue;
    }
    const j = at(e.target);
    if (j !== undefined) {
      out.set(e.info, j < i ? "above" : "below");
      continue;
    }
    // Up from the target to the path (or a root, or round a parent cycle, which the tree's walk never enters).
    seen.clear();
    let cur: EntryRec | null = e.target;
    let meets: number | undefined;
    while (cur !== null && !seen.has(cur)) {
      seen.add(cur);
      meets = at(cur);
      if (meets !== undefined) break;
      cur = resolveParent(session, cur);
    }
    out.set(e.info, meets !== undefined && meets >= i ? "below" : "apart");
  }
  return out;
}

/**
 * Every context_edit defect: a target that is missing, apart from the edit in the tree, below it (legal, info),
 * not an entry pi's writer accepts, or another edit; a replacement that is missing or not null / {content}.
 * `tree` may be passed when the caller already built it. `onPath`: only the given edits, all on `path` (the
 * context of one leaf), each with its entry as the context read it, judged without building the tree or reading the
 * file again.
 */
export function checkContextEdits(
  session: Session,
  tree?: SessionTree,
  onPath?: { path: readonly EntryRec[]; edits: readonly { edit: EntryRec; entry: Record<string, unknown> }[] },
): Diagnostic[] {
  const edits = onPath ? onPath.edits.map((e) => editInfo(e.edit, e.entry)) : readEdits(session);
  if (edits.length === 0) return [];
  const { file, byId } = session;
  const out: Diagnostic[] = [];
  const resolved: { info: EditInfo; target: EntryRec }[] = [];
  for (const info of edits) {
    const target = info.targetId === undefined ? undefined : byId.get(info.targetId);
    if (target) resolved.push({ info, target });
  }
  const rel = onPath ? pathRelations(session, onPath.path, resolved) : relations(session, tree ?? buildTree(session), resolved);
  for (const info of edits) {
    const { rec, targetId } = info;
    const extra = rec.id === undefined ? {} : { entryId: rec.id };
    const target = targetId === undefined ? undefined : byId.get(targetId);
    if (targetId !== undefined && !target) out.push(diag("context-edit-target-missing", file, rec.line, { targetId }, extra));
    if (target) {
      const where = rel.get(info);
      if (where === "apart")
        out.push(diag("context-edit-off-path", file, rec.line, { targetId: targetId as string, targetLine: target.line }, extra));
      if (where === "below")
        out.push(diag("context-edit-forward", file, rec.line, { targetId: targetId as string, targetLine: target.line }, extra));
      if (target.type === "context_edit") {
        out.push(diag("context-edit-of-edit", file, rec.line, { targetId: targetId as string, targetLine: target.line }, extra));
      } else if (!isEditableTarget(target)) {
        out.push(
          diag(
            "context-edit-not-editable",
            file,
            rec.line,
            {
              targetId: targetId as string,
              targetLine: target.line,
              targetKind: kindOf(target),
              replacement: info.replacement,
              effect: effectOn(target, info.replacement),
            },
            extra,
          ),
        );
      }
    }
    if (info.replacement === "missing") {
      const where = rel.get(info);
      const applies = where === "above" || where === "below";
      out.push(
        diag(
          "context-edit-no-replacement",
          file,
          rec.line,
          { targetId: targetId ?? null, throws: applies && target !== undefined && yieldsContentMessage(target) },
          extra,
        ),
      );
    } else if (info.replacement === "invalid") {
      out.push(
        diag(
          "context-edit-bad-replacement",
          file,
          rec.line,
          { targetId: targetId ?? null, found: info.found ?? "", becomes: info.becomes ?? "undefined" },
          extra,
        ),
      );
    }
  }
  return out;
}

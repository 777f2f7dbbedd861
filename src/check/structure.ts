import { existsSync } from "node:fs";
import { forkParentRef, resolveForkRef } from "../io/discover.js";
import { CURRENT_VERSION, type Session } from "../model/session.js";
import { diag } from "../model/codes.js";
import type { Diagnostic } from "../model/types.js";
import type { DetailsWith, EntryRec, Rec } from "../model/detail.js";
import { recreatedLabelsInFile } from "../ops/fork-copy.js";
import { firstKeptProblem, toolCallUnanswered, toolResultOrphan } from "../ops/problems.js";
import type { SessionTree, TreeNode } from "../ops/tree.js";

/** Checks over the whole index (skeletons only): header consequences, roots, time order, references, tool pairs. */

export interface StructureOptions {
  /** Whether a file exists; defaults to fs.existsSync. Injected by tests. */
  fileExists?: (path: string) => boolean;
  /**
   * Whether the chain of fork parents leads back to this file (src/ops/fork.ts forkLoops, which reads the other
   * files' headers: the caller finds it out, the checks read no other file).
   */
  forkLoop?: boolean;
}

function idOf(rec: EntryRec): { entryId?: string } {
  return rec.id === undefined ? {} : { entryId: rec.id };
}

/** What pi 1.6 does when it opens the file: refuse it (no usable header), reset it (0 bytes) or rewrite it (migration). */
export function checkHeaderConsequences(session: Session, opts: StructureOptions, out: Diagnostic[]): void {
  const { file, header, headerLine } = session;
  // pi 1.6 (session-manager.js, _setSessionFile) resets only a 0-byte file; any other file without a valid header
  // makes its open throw "not a valid pi session" and is left unchanged (pi 0.73.1 overwrote those too).
  if (!header) {
    if ((session.facts.stat?.size ?? session.facts.bytes) === 0) out.push(diag("pi-would-overwrite", file, null, { reason: "empty" }));
    else out.push(diag("pi-would-refuse", file, null, { reason: "no-header" }));
    return;
  }
  if (typeof header.id !== "string") {
    out.push(diag("pi-would-refuse", file, headerLine, { reason: "invalid-id" }));
  }
  const version = session.version as unknown;
  if (typeof version === "number" && Number.isInteger(version) && version >= 1 && version < CURRENT_VERSION) {
    out.push(diag("pi-would-rewrite", file, headerLine, { version }));
  }
  if (typeof header.branchedFrom === "string") {
    out.push(diag("legacy-branched-from", file, headerLine, { path: header.branchedFrom }));
  }
  const parent = forkParentRef(header);
  if (parent) {
    // Relative paths are taken relative to the session file's folder; from stdin there is no folder to resolve against.
    const resolved = resolveForkRef(parent.ref, session.path);
    const exists = opts.fileExists ?? existsSync;
    if (resolved !== undefined && !exists(resolved)) {
      out.push(diag("parent-session-missing", file, headerLine, { path: parent.ref, resolved }));
    }
    if (opts.forkLoop) out.push(diag("fork-cycle", file, headerLine, { path: parent.ref }));
  }
}

/** More than one explicit root (parentId null). Dangling parents are reported on their own. */
export function checkRoots(session: Session, out: Diagnostic[]): void {
  if ((session.version as unknown as number) < 2) return;
  const roots = session.entries.filter((r) => r.parentId === null);
  const second = roots[1];
  if (second) {
    out.push(diag("multiple-roots", session.file, second.line, { count: roots.length, lines: roots.map((r) => r.line) }, idOf(second)));
  }
}

/** An entry (at `line`, `timestamp`) earlier than the entry before it (`prev`): checkTimeOrder's, and export's. */
export function timestampRegression(
  file: string,
  line: number,
  rec: EntryRec,
  timestamp: string,
  prev: { line: number; timestamp: string },
): Diagnostic {
  return diag("timestamp-regression", file, line, { timestamp, previousLine: prev.line, previous: prev.timestamp }, idOf(rec));
}

/** pi only appends, so file order is time order: an entry older than the one above it means a clock jump or an edit. */
export function checkTimeOrder(session: Session, out: Diagnostic[]): void {
  // Not against the header: forked and re-created files carry entries older than their header.
  // Nor the labels pi's /fork re-creates after the copied path: they carry the times the parent's labels were set.
  const recreated = forkParentRef(session.header) ? recreatedLabelsInFile(session) : null;
  let prev: { time: number; line: number; timestamp: string } | null = null;
  for (const rec of session.entries) {
    if (Number.isNaN(rec.time)) continue;
    if (recreated && rec.index >= recreated.start && rec.index < recreated.end) continue;
    const timestamp = String(rec.timestamp);
    if (prev && rec.time < prev.time) out.push(timestampRegression(session.file, rec.line, rec, timestamp, prev));
    prev = { time: rec.time, line: rec.line, timestamp };
  }
}

/** Labels and branch summaries that point nowhere; v1 compaction indexes that resolve to nothing. */
export function checkReferences(session: Session, out: Diagnostic[]): void {
  const { file, byId } = session;
  const v1 = (session.version as unknown as number) < 2;
  const parentSession = forkParentRef(session.header)?.ref ?? null;
  for (const rec of session.entries) {
    switch (rec.type) {
      case "label":
        if (rec.targetId !== undefined && !byId.has(rec.targetId)) {
          out.push(diag("label-target-missing", file, rec.line, { label: rec.labelText ?? "", targetId: rec.targetId }, idOf(rec)));
        }
        break;
      case "branch_summary":
        if (rec.fromId !== undefined && rec.fromId !== "root" && !byId.has(rec.fromId)) {
          // pi's /fork (and export) copy the path only: a summary's fromId may name an entry of the parent session.
          if (parentSession !== null)
            out.push(diag("branch-summary-from-parent", file, rec.line, { fromId: rec.fromId, parentSession }, idOf(rec)));
          else out.push(diag("branch-summary-from-missing", file, rec.line, { fromId: rec.fromId }, idOf(rec)));
        }
        break;
      case "compaction":
        if (v1) {
          if (rec.firstKeptEntryIndex !== undefined && rec.firstKeptEntryId === undefined) {
            out.push(diag("first-kept-index-out-of-range", file, rec.line, { index: rec.firstKeptEntryIndex }, idOf(rec)));
          }
        } else if (rec.firstKeptEntryId === undefined || !byId.has(rec.firstKeptEntryId)) {
          out.push(firstKeptProblem(file, rec, rec.firstKeptEntryId, undefined));
        }
        break;
      default:
        break;
    }
  }
}

interface OpenCall {
  id: string;
  name: string;
  rec: Rec<CallDetail>;
  answered: boolean;
}

/** The calls of an entry that opens none (most): shared, never pushed to. */
const NO_CALLS: OpenCall[] = [];

/**
 * One depth-first walk over the tree (iterative: paths can be a million entries deep), holding the current
 * root→entry path: compaction targets must lie on it, tool results must answer a call on it, and a call that no
 * entry below it ever answers is reported when the walk leaves it. Entries on or below a parent cycle are skipped:
 * pi cannot build their path at all, which parent-cycle reports.
 */
/** The loads whose records have what checkPaths reads of tool calls and results: check, preview and full. */
export type CallDetail = DetailsWith<"toolCallId" | "toolName" | "toolCallIds" | "toolNames">;

export function checkPaths(session: Session<CallDetail>, tree: SessionTree<CallDetail>, out: Diagnostic[]): void {
  const { file, byId } = session;
  const onPath = new Uint8Array(session.entries.length);
  const open = new Map<string, OpenCall[]>();
  const unanswered: Diagnostic[] = [];
  // The walk's stack as two parallel arrays (node, and the calls it opened: null until entered), not an object per
  // entry.
  const stack: TreeNode<CallDetail>[] = [];
  const stackCalls: (OpenCall[] | null)[] = [];
  for (let i = tree.roots.length - 1; i >= 0; i--) {
    stack.push(tree.roots[i] as TreeNode<CallDetail>);
    stackCalls.push(null);
  }
  while (stack.length > 0) {
    const top = stack.length - 1;
    const node = stack[top] as TreeNode<CallDetail>;
    const rec = node.rec;
    let calls = stackCalls[top] as OpenCall[] | null;
    if (calls === null) {
      // Entering.
      if (tree.inCycle[rec.index]) {
        stack.pop();
        stackCalls.pop();
        continue;
      }
      // Most entries open no tool call: they share one empty list instead of a fresh one each.
      calls = NO_CALLS;
      if (rec.type === "compaction" && rec.firstKeptEntryId !== undefined) {
        const target = byId.get(rec.firstKeptEntryId);
        // Its own id is how pi 1.6 writes "keep nothing": not a defect.
        if (target && target !== rec && !onPath[target.index]) {
          out.push(firstKeptProblem(file, rec, rec.firstKeptEntryId, target));
        }
      }
      onPath[rec.index] = 1;
      if (rec.type === "message" && rec.role === "toolResult" && rec.toolCallId !== undefined) {
        const waiting = open.get(rec.toolCallId);
        const call = waiting?.[waiting.length - 1];
        if (call) call.answered = true;
        else out.push(toolResultOrphan(file, rec, rec.toolCallId, rec.toolName ?? null));
      }
      if (rec.type === "message" && rec.role === "assistant" && rec.toolCallIds) {
        const names = rec.toolNames?.length === rec.toolCallIds.length ? rec.toolNames : undefined;
        const opened: OpenCall[] = [];
        rec.toolCallIds.forEach((id, i) => {
          const call: OpenCall = { id, name: names?.[i] ?? "?", rec, answered: false };
          opened.push(call);
          const list = open.get(id);
          if (list) list.push(call);
          else open.set(id, [call]);
        });
        if (opened.length > 0) calls = opened;
      }
      stackCalls[top] = calls;
      const kids = node.children;
      for (let i = kids.length - 1; i >= 0; i--) {
        stack.push(kids[i] as TreeNode<CallDetail>);
        stackCalls.push(null);
      }
      continue;
    }
    // Leaving: every child is done.
    stack.pop();
    stackCalls.pop();
    onPath[rec.index] = 0;
    for (const call of calls) {
      const list = open.get(call.id) as OpenCall[];
      list.pop();
      if (list.length === 0) open.delete(call.id);
      if (!call.answered) unanswered.push(toolCallUnanswered(file, rec, call.id, call.name));
    }
  }
  for (const v of unanswered) out.push(v);
}

/**
 * pisess as a library: the same index and operations the CLI uses, read-only.
 *
 *   import { openSession, buildTree, pathTo } from "pisess";
 *   const session = await openSession("session.jsonl");
 *   const tree = buildTree(session);
 */
import type { Readable } from "node:stream";
import { loadSession, type LoadOptions } from "./model/load.js";
import type { Session } from "./model/session.js";

/** Opens a session file (read-only, streamed) or a readable stream and builds its index. */
export async function openSession(input: string | Readable, options: LoadOptions = {}): Promise<Session> {
  return typeof input === "string"
    ? loadSession({ kind: "file", path: input }, options)
    : loadSession({ kind: "stream", name: options.name ?? "-", stream: input }, options);
}

export { readLines, LineSplitter, type RawLine, type Source } from "./io/lines.js";
export { agentDir, sessionsDir, cwdFolderName, listSessionFiles, mostRecentSession, readHeader } from "./io/discover.js";
export { loadSession, type LoadOptions } from "./model/load.js";
export { readEntry, v1Id, CURRENT_VERSION, KNOWN_ENTRY_TYPES, type Session } from "./model/session.js";
export { CODES, type Code } from "./model/codes.js";
export type { Diagnostic, EntryRec, Header, Severity, Usage } from "./model/types.js";
export { buildTree, resolveParent, type SessionTree, type TreeNode } from "./ops/tree.js";
export { pathTo, type PathResult } from "./ops/path.js";
export { resolveRef, findByLine, type RefResult } from "./ops/refs.js";
export { buildView, layoutRows, searchableText, FILTER_MODES, type FilterMode, type ViewOptions, type SessionView } from "./ops/view.js";
export { formatMessage } from "./render/diagnostics.js";
export { buildContext, type SessionContext } from "./ops/context.js";
export { convertToLlm, COMPACTION_PREFIX, BRANCH_PREFIX } from "./ops/llm.js";
export { diffPaths, type PathDiff } from "./ops/diff.js";
export { computeStats, type EntryStats } from "./ops/stats.js";
export { sessionTotals, type SessionTotals, type Totals } from "./ops/totals.js";
export { leafRecs } from "./ops/leaves.js";
export { checkSession, type CheckOptions } from "./check/validate.js";

import type { Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import { firstKeptNotMessage, lightEntry, mayKeepFromNonMessage } from "../ops/kept.js";
import { buildContext } from "../ops/context.js";
import { pathTo } from "../ops/path.js";
import type { SessionTree } from "../ops/tree.js";

/** Compactions whose kept range starts at an entry that is not a message (first-kept-not-message). */
export function checkCompactions(session: Session, tree: SessionTree, out: Diagnostic[]): void {
  for (const rec of session.entries) {
    if (rec.type !== "compaction" || tree.inCycle[rec.index] || !mayKeepFromNonMessage(session, rec)) continue;
    const p = pathTo(session, rec);
    if (!p.ok) continue;
    // The context right after the compaction, as `context` builds it; bodies come from the index.
    const ctx = buildContext(session, p.path, (r) => lightEntry(session, r));
    const d = firstKeptNotMessage(session.file, rec, ctx.keptFrom);
    if (d) out.push(d);
  }
}

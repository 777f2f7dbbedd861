import { readEntry, type Session } from "../model/session.js";
import type { Diagnostic, EntryRec } from "../model/types.js";
import { olderCompactionsKept, tokensBeforeMismatch } from "../ops/compactions.js";
import { buildContext, contextSize, hasUsableUsage } from "../ops/context.js";
import { firstKeptNotMessage, lightEntry } from "../ops/kept.js";
import { pathTo } from "../ops/path.js";
import type { SessionTree } from "../ops/tree.js";

/**
 * pisess's estimate of the context on `path` (the entries before a compaction), equal to what `compactions` computes
 * with every body read: bodies are read only where contextSize looks at them (from the last assistant message with
 * usage on), the rest comes from the index, so validate never holds a long path's bodies.
 */
function estimateOn(session: Session, path: EntryRec[]): number {
  const light = buildContext(session, path, (r) => lightEntry(session, r));
  const full = new Set<EntryRec>();
  let usageAt: number | null = null;
  for (let i = light.sources.length - 1; i >= 0; i--) {
    const src = light.sources[i] as EntryRec;
    full.add(src);
    if (src.type === "message" && src.role === "assistant" && hasUsableUsage(readEntry(session, src).message)) {
      usageAt = i;
      break;
    }
  }
  const read = (r: EntryRec) => (full.has(r) || r.type === "context_edit" ? readEntry(session, r) : lightEntry(session, r));
  const size = contextSize(buildContext(session, path, read), path);
  if (size.usageIndex === usageAt) return size.tokens;
  // contextSize passed over that message (it sits before the compaction's own messages): every body is needed.
  return contextSize(
    buildContext(session, path, (r) => readEntry(session, r)),
    path,
  ).tokens;
}

/**
 * Per compaction, on its own path: first-kept-not-message (warning), older-compaction-kept and tokens-before-mismatch
 * (info), from the producers `compactions` uses.
 */
export function checkCompactions(session: Session, tree: SessionTree, out: Diagnostic[]): void {
  for (const rec of session.entries) {
    if (rec.type !== "compaction" || tree.inCycle[rec.index]) continue;
    const p = pathTo(session, rec);
    if (!p.ok) continue;
    // The context right after the compaction, as `context` builds it; bodies come from the index.
    const ctx = buildContext(session, p.path, (r) => lightEntry(session, r));
    const d = firstKeptNotMessage(session.file, rec, ctx.keptFrom);
    if (d) out.push(d);
    const tb = readEntry(session, rec).tokensBefore;
    if (typeof tb === "number" && tb > 0) {
      const m = tokensBeforeMismatch(session.file, rec, tb, estimateOn(session, p.path.slice(0, -1)));
      if (m) out.push(m);
    }
    out.push(...olderCompactionsKept(session.file, p.path, rec, ctx.keptFrom));
  }
}

/**
 * The facts of a context that its display states beside the messages (`pisess context` as text or Markdown, the
 * HTML export): what the compaction kept, the size, the edits, the tool-call pairing. The context report puts them
 * in its data (reports/context.ts); the display model (render/context-display.ts) only shapes them for showing.
 */
import type { EntryRec } from "../model/detail.js";
import { contextSize, pairToolCalls, type ContextSize, type SessionContext, type ToolPairing } from "./context.js";

/** The compaction in effect: where it is, what it kept, and how many of the path's messages before it it keeps. */
export interface CompactionFacts {
  line: number;
  id: string | null;
  tokensBefore: unknown;
  keptFrom: { line: number; id: string | null } | null;
  kept: number;
}

/** The context_edits on the path: how many shaped this context, and how many messages they edited and removed. */
export interface EditFacts {
  onPath: number;
  applied: number;
  editedMessages: number;
  removedMessages: number;
}

export interface ContextFacts {
  /** How many of the context's messages go to the LLM (pi's convertToLlm). */
  llmCount: number;
  compaction: CompactionFacts | null;
  size: ContextSize;
  edits: EditFacts;
  /** Which tool results answer which calls among the context's messages (pi's, not the LLM's). */
  pairing: ToolPairing;
}

/**
 * The facts of `ctx`, built on `path`. `whole(i)`: message i whole, where `ctx.messages` holds stand-ins with only
 * what building the context reads; `pairing`: pairToolCalls(ctx.messages), where the caller has it already.
 */
export function contextFacts(
  ctx: SessionContext,
  path: readonly EntryRec[],
  llmCount: number,
  pairing: ToolPairing = pairToolCalls(ctx.messages),
  whole: (i: number) => unknown = (i) => ctx.messages[i],
): ContextFacts {
  return {
    llmCount,
    compaction: compactionFacts(ctx, path),
    size: contextSize(ctx, path, whole),
    edits: editFacts(ctx),
    pairing,
  };
}

function compactionFacts(ctx: SessionContext, path: readonly EntryRec[]): CompactionFacts | null {
  if (!ctx.compaction) return null;
  const c = ctx.compaction;
  const pos = new Map(path.map((r, i) => [r, i]));
  const cpos = pos.get(c) ?? -1;
  const kept = ctx.sources.filter((r, i) => i > 0 && (pos.get(r) ?? Infinity) < cpos).length;
  return {
    line: c.line,
    id: c.id ?? null,
    tokensBefore: c.tokensBefore,
    keptFrom: ctx.keptFrom ? { line: ctx.keptFrom.line, id: ctx.keptFrom.id ?? null } : null,
    kept,
  };
}

function editFacts(ctx: SessionContext): EditFacts {
  return {
    onPath: ctx.edits.length,
    applied: ctx.edits.filter((e) => e.status === "applied").length,
    editedMessages: ctx.editedBy.filter((e) => e !== undefined).length,
    removedMessages: ctx.removed.reduce((n, g) => n + g.messages.length, 0),
  };
}

import { readEntry, type Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import { describeCompaction, prefixContexts, type CompactionsData } from "../ops/compactions.js";
import { buildContext } from "../ops/context.js";
import { pathTo } from "../ops/path.js";
import { sessionProblems } from "../ops/problems.js";
import { buildTree, cycleProblem } from "../ops/tree.js";
import type { Report } from "./report.js";
import { entryRef } from "./refs.js";

export type { CompactionsData } from "../ops/compactions.js";

export interface CompactionsOptions {
  /** Leaf: id, id prefix, @LINE, label:NAME or leaf (default "leaf"). */
  leaf?: string;
  /** Also every compaction off the path, each judged on its own path (at the compaction). */
  all?: boolean;
}

/**
 * `pisess compactions`: what each compaction on the path kept and took out of the model's view, judged with the
 * same context rules as `context`. Exit 1 when a compaction has a warning or the path has a cycle.
 */
export function compactionsReport(session: Session, opts: CompactionsOptions = {}): Report<CompactionsData> {
  const leaf = entryRef(session, opts.leaf ?? "leaf");
  const tree = buildTree(session);
  const diagnostics = sessionProblems(session, tree);
  const result = pathTo(session, leaf);
  const data: CompactionsData = { file: session.file, leaf: { id: leaf.id ?? null, line: leaf.line }, compactions: [] };
  if (!result.ok) {
    diagnostics.push(cycleProblem(session.file, result.cycle));
    return { data, diagnostics, exitCode: 1 };
  }
  const cache = new Map<EntryRec, Record<string, unknown>>();
  const read = (rec: EntryRec) => {
    let o = cache.get(rec);
    if (!o) {
      o = readEntry(session, rec);
      cache.set(rec, o);
    }
    return o;
  };
  const judge = (path: EntryRec[], recs: EntryRec[], onPath: boolean) => {
    const ctx = buildContext(session, path, read);
    const sizeOf = prefixContexts(session, path, read);
    const facts = new Map();
    for (const c of recs) {
      const d = describeCompaction(session, path, ctx, c, read, sizeOf, facts);
      data.compactions.push({ ...d, onPath, inEffect: onPath && d.inEffect });
    }
  };
  const path = result.path;
  judge(
    path,
    path.filter((r) => r.type === "compaction"),
    true,
  );
  if (opts.all) {
    const on = new Set(path);
    for (const c of session.entries) {
      if (c.type !== "compaction" || on.has(c)) continue;
      const own = pathTo(session, c);
      if (own.ok) judge(own.path, [c], false);
      cache.clear();
    }
  }
  // Info (tokens-before-mismatch, older-compaction-kept) is how pi works: exit 0, as validate.
  const warned = data.compactions.some((c) => c.warnings.some((w) => w.severity !== "info"));
  return { data, diagnostics, exitCode: warned ? 1 : 0 };
}

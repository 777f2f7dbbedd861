import { diag } from "../model/codes.js";
import type { Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import { estimateTokens } from "./budget.js";
import { buildContext, contextSize, givesMessages, type SessionContext } from "./context.js";
import { markContextPlaces, type ContextPlace } from "./context-place.js";
import { firstKeptNotMessage } from "./kept.js";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export interface Count {
  name: string;
  count: number;
}

export interface CompactionFacts {
  line: number;
  id: string | null;
  timestamp: unknown;
  tokensBefore: unknown;
  /** The summary call, where the entry records it. */
  model: string | null;
  usage: { input: number; output: number; totalTokens: number; cost: number } | null;
  fromHook: boolean;
  systemMessage: boolean;
  onPath: boolean;
  /** The compaction the context at the leaf starts from. */
  inEffect: boolean;
  firstKeptEntryId: unknown;
  keptFrom: { line: number; id: string | null } | null;
  /** firstKeptEntryId is the compaction's own id: pi 1.6's "keep nothing". */
  keepsNothing: boolean;
  kept: { lines: number[]; entries: number; messages: number; tokens: number };
  /** Entries before the compaction that a `replacement: null` context_edit took out (bloat's `edited-out`), not
   * the compaction: left out of `dropped`. */
  editedOut: { lines: number[]; entries: number; messages: number };
  dropped: {
    lines: number[];
    entries: number;
    messages: number;
    byRole: Count[];
    tokens: number;
    bytes: number;
    toolCalls: Count[];
    files: string[];
    images: number;
  };
  summary: { chars: number; tokens: number };
  /** summary tokens / dropped tokens; null when nothing was dropped. */
  ratio: number | null;
  contextBefore: { messages: number; tokens: number };
  contextAfter: { messages: number; tokens: number };
  /**
   * Findings about the compaction, the same validate reports: first-kept-missing, first-kept-off-path (buildContext's
   * own), first-kept-not-message (warnings); tokens-before-mismatch, older-compaction-kept (info: pi writes both, see
   * their producers below).
   */
  warnings: Diagnostic[];
}

function idOf(rec: EntryRec): { entryId?: string } {
  return rec.id === undefined ? {} : { entryId: rec.id };
}

/**
 * tokens-before-mismatch: a `tokensBefore` more than twice or less than half pisess's estimate of the context just
 * before the compaction. Info, not a warning: pi's own files show it often (pi counts what the provider last
 * reported, and tool output or images after that turn move the estimate), so it is a lead, not a defect. The one
 * producer, for validate and `compactions`.
 */
export function tokensBeforeMismatch(file: string, c: EntryRec, tokensBefore: unknown, estimate: number): Diagnostic | null {
  const tb = tokensBefore;
  if (typeof tb !== "number" || tb <= 0 || estimate <= 0 || (tb <= 2 * estimate && estimate <= 2 * tb)) return null;
  return diag("tokens-before-mismatch", file, c.line, { tokensBefore: tb, estimate }, idOf(c));
}

/**
 * Where buildContext starts to read the context of `path` whose last compaction is `path[ci]`: the first entry with
 * the compaction's id (pi finds the compaction by id), or the kept range's first entry when that comes earlier.
 * The entries before it give that context nothing but problems, the model and the thinking level, so a context
 * built from `path.slice(start)` has the same messages, sources, keptFrom and size: validate judges each of 2,000
 * compactions without building contexts of ever longer paths (quadratic). `position(rec)`: the entry's index on
 * `path`, -1 when it is not on it. Where ids repeat, the first entry with an id is not byId's: 0 (the whole path).
 */
export function contextStart(
  session: Session,
  ci: number,
  compaction: EntryRec,
  firstKeptEntryId: unknown,
  position: (rec: EntryRec) => number,
  uniqueIds: boolean,
): number {
  if (!uniqueIds || compaction.id === undefined) return 0;
  const cIdx = session.byId.get(compaction.id) === compaction ? ci : -1;
  if (cIdx < 0) return 0;
  const kept = typeof firstKeptEntryId === "string" ? session.byId.get(firstKeptEntryId) : undefined;
  const k = kept === undefined ? -1 : position(kept);
  return k >= 0 && k < cIdx ? k : cIdx;
}

/**
 * older-compaction-kept: an older compaction inside the kept range of `c` (from keptFrom up to `c` on `path`). pi
 * 1.6 leaves that summary out of the context; pi writes such ranges itself when it compacts again soon after a
 * compaction, so info. The one producer, for validate and `compactions`.
 */
export function olderCompactionsKept(file: string, path: readonly EntryRec[], c: EntryRec, keptFrom: EntryRec | null): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!keptFrom) return out;
  const pos = path.indexOf(c);
  for (let i = path.indexOf(keptFrom); i >= 0 && i < pos; i++) {
    const r = path[i] as EntryRec;
    if (r.type === "compaction")
      out.push(diag("older-compaction-kept", file, c.line, { olderLine: r.line, olderId: r.id ?? null }, idOf(c)));
  }
  return out;
}

/** What `pisess compactions` reports. */
export interface CompactionsData {
  file: string;
  leaf: { id: string | null; line: number };
  /** Compactions on the path first (path order), then, with `all`, the others in file order. */
  compactions: CompactionFacts[];
}

function counts(m: Map<string, number>): Count[] {
  return [...m].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
}

function bump(m: Map<string, number>, k: string): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}

/** The messages an entry would add, as the entry recorded them (the shapes estimateTokens reads). */
function ownMessages(rec: EntryRec, o: Obj): unknown[] {
  switch (rec.type) {
    case "message":
      return isObj(o.message) ? [o.message] : [];
    case "custom_message":
      return [{ role: "custom", content: o.content ?? [] }];
    case "branch_summary":
      return o.summary ? [{ role: "branchSummary", summary: o.summary }] : [];
    default:
      return [];
  }
}

const FILE_KEYS = ["path", "file_path", "filePath"];

/**
 * One compaction on `path` (the path to the leaf, or to the compaction itself for one elsewhere), judged against
 * `leafCtx`, the context buildContext gives at the end of `path`: kept = entries before the compaction whose
 * messages that context holds; editedOut = those a `replacement: null` edit took out of it; dropped = the other
 * entries before it that would add messages but are not in it.
 */
/** What one entry a compaction dropped adds to its tally: its messages' roles, tokens, tool calls, files, images. */
export interface DroppedFacts {
  roles: string[];
  tokens: number;
  tools: string[];
  files: string[];
  images: number;
}

function droppedFacts(rec: EntryRec, o: Obj): DroppedFacts {
  const f: DroppedFacts = { roles: [], tokens: 0, tools: [], files: [], images: 0 };
  for (const m of ownMessages(rec, o)) {
    if (!isObj(m)) continue;
    f.roles.push(typeof m.role === "string" ? m.role : "?");
    f.tokens += estimateTokens(m);
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (!isObj(b)) continue;
      if (b.type === "image") f.images++;
      if (b.type === "toolCall") {
        f.tools.push(String(b.name ?? "?"));
        if (isObj(b.arguments)) for (const k of FILE_KEYS) if (typeof b.arguments[k] === "string") f.files.push(b.arguments[k] as string);
      }
    }
  }
  return f;
}

export function describeCompaction(
  session: Session,
  path: readonly EntryRec[],
  leafCtx: SessionContext,
  c: EntryRec,
  read: (rec: EntryRec) => Obj,
  sizeOf: (upTo: number) => { ctx: SessionContext; path: EntryRec[] },
  /** What each entry a compaction drops adds up to, kept across the compactions of one path (each later one drops the earlier one's entries again). */
  facts: Map<EntryRec, DroppedFacts> = new Map(),
): CompactionFacts {
  const pos = path.indexOf(c);
  const body = read(c);
  const place = new Map<EntryRec, ContextPlace>();
  markContextPlaces(leafCtx, (rec, p) => place.set(rec, p));
  const kept: EntryRec[] = [];
  const editedOut: EntryRec[] = [];
  const dropped: EntryRec[] = [];
  for (let i = 0; i < pos; i++) {
    const rec = path[i] as EntryRec;
    if (rec.type === "compaction" || !givesMessages(rec)) continue;
    const p = place.get(rec);
    (p === "context" ? kept : p === "edited-out" ? editedOut : dropped).push(rec);
  }
  const editedSet = new Set(editedOut);
  const editedMessages = leafCtx.removed.reduce((n, r) => n + (editedSet.has(r.source) ? r.messages.length : 0), 0);
  const keptSet = new Set(kept);
  let keptMessages = 0;
  let keptTokens = 0;
  leafCtx.sources.forEach((src, i) => {
    if (keptSet.has(src)) {
      keptMessages++;
      keptTokens += estimateTokens(leafCtx.messages[i]);
    }
  });

  const byRole = new Map<string, number>();
  const tools = new Map<string, number>();
  const files = new Set<string>();
  let droppedMessages = 0;
  let droppedTokens = 0;
  let droppedBytes = 0;
  let images = 0;
  for (const rec of dropped) {
    droppedBytes += rec.length;
    let f = facts.get(rec);
    if (f === undefined) {
      f = droppedFacts(rec, read(rec));
      facts.set(rec, f);
    }
    droppedMessages += f.roles.length;
    droppedTokens += f.tokens;
    images += f.images;
    for (const r of f.roles) bump(byRole, r);
    for (const t of f.tools) bump(tools, t);
    for (const file of f.files) files.add(file);
  }

  const before = sizeOf(pos - 1);
  const after = sizeOf(pos);
  const summaryText = typeof body.summary === "string" ? body.summary : "";
  const summaryTokens = Math.ceil(summaryText.length / 4);
  const u = isObj(body.usage) ? body.usage : null;
  const num = (o: Obj, k: string) => (typeof o[k] === "number" ? (o[k] as number) : 0);
  const model = typeof body.model === "string" ? (typeof body.provider === "string" ? `${body.provider}/${body.model}` : body.model) : null;
  const keptFrom = after.ctx.keptFrom;
  // Findings about the compaction itself, from the same producers as `context` and validate (the context right
  // after it).
  const warnings = after.ctx.problems.filter(
    (d) => d.line === c.line && (d.code === "first-kept-missing" || d.code === "first-kept-off-path"),
  );
  const notKept = firstKeptNotMessage(session.file, c, keptFrom);
  if (notKept) warnings.push(notKept);
  const estimate = contextSize(before.ctx, before.path).tokens;
  const mismatch = tokensBeforeMismatch(session.file, c, body.tokensBefore, estimate);
  if (mismatch) warnings.push(mismatch);
  for (const v of olderCompactionsKept(session.file, path, c, keptFrom)) warnings.push(v);
  return {
    line: c.line,
    id: c.id ?? null,
    timestamp: c.timestamp,
    tokensBefore: body.tokensBefore,
    model,
    usage: u
      ? {
          input: num(u, "input"),
          output: num(u, "output"),
          totalTokens: num(u, "totalTokens"),
          cost: isObj(u.cost) ? num(u.cost, "total") : 0,
        }
      : null,
    fromHook: body.fromHook === true,
    systemMessage: isObj(body.systemMessage),
    onPath: true,
    inEffect: leafCtx.compaction === c,
    firstKeptEntryId: body.firstKeptEntryId,
    keptFrom: keptFrom ? { line: keptFrom.line, id: keptFrom.id ?? null } : null,
    keepsNothing: body.firstKeptEntryId !== undefined && body.firstKeptEntryId === c.id,
    kept: { lines: kept.map((r) => r.line), entries: kept.length, messages: keptMessages, tokens: keptTokens },
    editedOut: { lines: editedOut.map((r) => r.line), entries: editedOut.length, messages: editedMessages },
    dropped: {
      lines: dropped.map((r) => r.line),
      entries: dropped.length,
      messages: droppedMessages,
      byRole: counts(byRole),
      tokens: droppedTokens,
      bytes: droppedBytes,
      toolCalls: counts(tools),
      files: [...files].sort(),
      images,
    },
    summary: { chars: summaryText.length, tokens: summaryTokens },
    ratio: droppedTokens > 0 ? summaryTokens / droppedTokens : null,
    contextBefore: { messages: before.ctx.messages.length, tokens: estimate },
    contextAfter: { messages: after.ctx.messages.length, tokens: contextSize(after.ctx, after.path).tokens },
    warnings,
  };
}

/** Contexts of the prefixes of a path, built on demand with the same rules as `context`, sharing one reader. */
export function prefixContexts(session: Session, path: readonly EntryRec[], read: (rec: EntryRec) => Obj) {
  return (upTo: number): { ctx: SessionContext; path: EntryRec[] } => {
    const p = path.slice(0, upTo + 1);
    return { ctx: buildContext(session, p, read), path: p };
  };
}

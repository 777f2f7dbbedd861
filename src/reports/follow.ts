import { type PiEnv, defaultSessionRoot, mostRecentSession } from "../io/discover.js";
import { stat } from "node:fs/promises";
import type { HeldTail, LineSourceFacts } from "../model/store-text.js";
import { FileTail, type TailFile } from "../io/tail.js";
import { createIndexer, heldTailDiagnostic, type SessionIndexer } from "../model/load.js";
import { parseEntry, readEntry, type Session } from "../model/session.js";
import type { Diagnostic, EntryStore } from "../model/types.js";
import type { EntryRec, Rec } from "../model/detail.js";
import { buildContext, contextSize } from "../ops/context.js";
import { FollowState, type FollowStep, type FollowTotals } from "../ops/follow.js";
import { pathTo } from "../ops/path.js";

export interface FollowOptions {
  file: string;
  /** Report the entries already in the file first (default: only those appended from now on). */
  fromStart?: boolean;
  /** End after this long without a change (ms); default: never. */
  untilIdleMs?: number;
  /** Poll interval (ms; default 1000); fs.watch events wake the reader earlier. */
  pollMs?: number;
  /** Use fs.watch besides polling (default true). */
  watch?: boolean;
  /** Ends the follow (Ctrl-C): the generator yields its "end" event and returns. */
  signal?: AbortSignal;
  /** Switch to a newer session when one appears in this folder (pi's session folder of a project). */
  newestIn?: string;
  /** Read each new entry back whole (`entry` of the entry events). */
  wholeEntries?: boolean;
}

export type FollowEvent =
  /**
   * The file is open and its existing entries indexed. `problems`: the errors and warnings found in the existing
   * lines when they are not reported (without `fromStart`), counted only.
   */
  | {
      kind: "open";
      file: string;
      session: Session<"full">;
      existing: number;
      totals: FollowTotals;
      problems: { error: number; warning: number };
    }
  /** A finding in a line read (one that failed to parse, a duplicate id…), before the line's entry if it has one. */
  | { kind: "problem"; file: string; diagnostic: Diagnostic }
  | {
      kind: "entry";
      file: string;
      session: Session<"full">;
      rec: Rec<"full">;
      step: FollowStep;
      totals: FollowTotals;
      /** The whole entry, as pi holds it after migration (with `wholeEntries`). */
      entry?: Record<string, unknown>;
    }
  /** A batch of new bytes was read; the next change is waited for. */
  | { kind: "idle"; file: string; session: Session<"full">; totals: FollowTotals }
  /** The file was truncated or replaced: it is followed again from its start. */
  | { kind: "reset"; file: string; reason: "truncated" | "replaced"; held: Diagnostic | null }
  /** A newer session of the project: it is followed from its start instead. */
  | { kind: "switch"; from: string; to: string; held: Diagnostic | null }
  /** The file was deleted: following ends (the CLI exits 2). */
  | { kind: "gone"; file: string; held: Diagnostic | null }
  /** Following ended (idle time reached, or stopped). */
  | { kind: "end"; file: string; reason: "idle" | "stopped"; held: Diagnostic | null };

/** pi's session folder for a working directory: where `context` (and `follow`) look for its newest session. */
export async function projectSessionFolder(cwd: string, env: PiEnv): Promise<string> {
  return defaultSessionRoot(false, env, cwd);
}

/**
 * Reads back entries of the followed file by offset through the tail's own descriptor (so a file replaced since
 * its lines were read never serves its bytes at their offsets), without read-ahead: the file grows under it. The
 * tail closes the file.
 */
class BatchStore implements EntryStore {
  constructor(private readonly file: TailFile) {}
  rawLine(rec: EntryRec): string {
    return this.file.text(rec.offset, rec.length);
  }
  close(): void {}
}

interface Followed {
  file: string;
  tail: FileTail;
  store: BatchStore;
  ix: SessionIndexer;
  state: FollowState;
}

const FACTS: LineSourceFacts = { bom: false, bytes: 0, lines: 0, finalNewline: true };

async function start(file: string, opts: FollowOptions): Promise<Followed> {
  const tail = await FileTail.open(file, { watch: opts.watch !== false });
  const store = new BatchStore(tail.current);
  return { file, tail, store, ix: createIndexer(file, file, store, null), state: new FollowState() };
}

function held(file: string, tail: HeldTail | null): Diagnostic | null {
  return tail === null ? null : heldTailDiagnostic(file, tail);
}

async function mtimeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * `pisess follow`: the entries of a session file as they are appended. Reads only what was added since the last
 * read (the index is the only thing that grows), never writes. Ends when `signal` aborts, after `untilIdleMs`
 * without a change, or when the file is deleted.
 */
export async function* followSession(opts: FollowOptions): AsyncGenerator<FollowEvent> {
  const pollMs = opts.pollMs ?? 1000;
  let cur = await start(opts.file, opts);
  let folderMtime = opts.newestIn !== undefined ? await mtimeOf(opts.newestIn) : -1;
  let lastChange = Date.now();
  let first = true;
  let existing = 0;
  const existingProblems = { error: 0, warning: 0 };
  try {
    for (;;) {
      const events = await cur.tail.read();
      let gone: Diagnostic | null | undefined;
      for (const ev of events) {
        if (ev.kind === "reset") {
          yield { kind: "reset", file: cur.file, reason: ev.reason, held: held(cur.file, ev.held) };
          cur.store.close();
          cur.store = new BatchStore(cur.tail.current);
          cur.ix = createIndexer(cur.file, cur.file, cur.store, null);
          cur.state = new FollowState();
          continue;
        }
        if (ev.kind === "gone") {
          gone = held(cur.file, ev.held);
          break;
        }
        const rec = cur.ix.line(ev.raw);
        const s = cur.ix.session(FACTS);
        const shown = !first || opts.fromStart === true;
        // The line's findings leave the index as they are reported (or counted): a long follow never piles them up.
        if (s.diagnostics.length > 0) {
          const found = s.diagnostics.splice(0);
          if (shown) for (const d of found) yield { kind: "problem", file: cur.file, diagnostic: d };
          else for (const d of found) if (d.severity !== "info") existingProblems[d.severity]++;
        }
        s.skipped.length = 0;
        if (rec === undefined) continue;
        const step = cur.state.step(s, rec);
        if (first) existing++;
        if (!shown) continue;
        const e: FollowEvent = { kind: "entry", file: cur.file, session: s, rec, step, totals: cur.state.totals };
        if (opts.wholeEntries) {
          // From the line just read: the path may already hold another file.
          e.entry = parseEntry(s, rec, ev.raw.text);
        }
        yield e;
      }
      const behind = cur.tail.behind;
      if (first && !behind) {
        first = false;
        const problems = existingProblems;
        yield { kind: "open", file: cur.file, session: cur.ix.session(FACTS), existing, totals: cur.state.totals, problems };
      } else if (!first && !behind && events.length > 0) {
        yield { kind: "idle", file: cur.file, session: cur.ix.session(FACTS), totals: cur.state.totals };
      }
      if (gone !== undefined) {
        yield { kind: "gone", file: cur.file, held: gone };
        return;
      }
      const now = Date.now();
      if (events.length > 0) lastChange = now;
      if (opts.newestIn !== undefined) {
        const m = await mtimeOf(opts.newestIn);
        if (m !== folderMtime) {
          folderMtime = m;
          const newest = await mostRecentSession(opts.newestIn);
          if (newest !== undefined && newest !== cur.file && (await mtimeOf(newest)) > (await mtimeOf(cur.file))) {
            yield { kind: "switch", from: cur.file, to: newest, held: held(cur.file, cur.tail.held()) };
            await close(cur);
            cur = await start(newest, opts);
            first = false;
            lastChange = now;
            continue;
          }
        }
      }
      if (behind && gone === undefined && !opts.signal?.aborted) continue;
      if (opts.signal?.aborted) {
        yield { kind: "end", file: cur.file, reason: "stopped", held: held(cur.file, cur.tail.held()) };
        return;
      }
      if (opts.untilIdleMs !== undefined && now - lastChange >= opts.untilIdleMs) {
        yield { kind: "end", file: cur.file, reason: "idle", held: held(cur.file, cur.tail.held()) };
        return;
      }
      const wait = opts.untilIdleMs !== undefined ? Math.min(pollMs, Math.max(1, lastChange + opts.untilIdleMs - now)) : pollMs;
      await cur.tail.wait(wait, opts.signal);
    }
  } finally {
    await close(cur);
  }
}

async function close(f: Followed): Promise<void> {
  f.store.close();
  await f.tail.close();
}

/** The current context size at the session's leaf, as `context` computes it (pi's estimate); null if none. */
export function followContextTokens(session: Session): number | null {
  const leaf = session.defaultLeaf;
  if (leaf === null) return null;
  const p = pathTo(session, leaf);
  if (!p.ok) return null;
  const ctx = buildContext(session, p.path, (rec) => readEntry(session, rec));
  return contextSize(ctx, p.path).tokens;
}

/**
 * followContextTokens kept up to date as entries are appended, without reading the whole path back each time:
 * where the path to the new leaf is the last one's plus new entries, none of them a compaction or an edit, only
 * the new entries are read. pi's estimate is the last usable usage plus characters/4 of the messages after it, so
 * with a usable usage among the new messages it is theirs alone, and without one the last size plus theirs.
 * Anything else (a /tree jump, a compaction, an edit, another index after a reset) builds it again, and so does
 * every append to a path that holds an edit (its target may be an id that only a new entry brings).
 */
export class FollowContextSize {
  private entries: readonly EntryRec[] | null = null;
  private path: EntryRec[] = [];
  private tokens: number | null = null;
  private edits = false;
  /** Times the context was built from the whole path (the rest were appends). */
  rebuilds = 0;

  tokensAt(session: Session): number | null {
    const leaf = session.defaultLeaf;
    const p = leaf === null ? null : pathTo(session, leaf);
    if (p === null || !p.ok) {
      this.entries = null;
      this.path = [];
      this.tokens = null;
      return null;
    }
    const read = (rec: EntryRec) => readEntry(session, rec);
    const prev = this.path;
    if (this.entries === session.entries && this.tokens !== null && !this.edits && grewFrom(p.path, prev)) {
      const added = p.path.slice(prev.length);
      if (!added.some((r) => r.type === "compaction" || r.type === "context_edit")) {
        if (added.length > 0) {
          const size = contextSize(buildContext(session, added, read), added);
          this.tokens = size.method === "usage+estimate" ? size.tokens : this.tokens + size.tokens;
        }
        this.path = p.path;
        return this.tokens;
      }
    }
    this.rebuilds++;
    this.entries = session.entries;
    this.path = p.path;
    this.edits = p.path.some((r) => r.type === "context_edit");
    this.tokens = contextSize(buildContext(session, p.path, read), p.path).tokens;
    return this.tokens;
  }
}

/** `path` starts with every entry of `prev`, in order (a non-empty `prev`). */
function grewFrom(path: readonly EntryRec[], prev: readonly EntryRec[]): boolean {
  if (prev.length === 0 || path.length < prev.length) return false;
  for (let i = prev.length - 1; i >= 0; i--) if (path[i] !== prev[i]) return false;
  return true;
}

/**
 * The status line's context size: rebuilt at most every `intervalMs` on a busy session (FollowContextSize reads
 * back what was appended, all of the path after a jump, compaction or edit), and once more `intervalMs` after the
 * last rebuild when entries came in between (a trailing update: `redraw` is called, and its tokensAt rebuilds), so
 * the line never keeps a size from before the last burst of entries.
 */
export class ThrottledContextSize {
  private readonly size = new FollowContextSize();
  private at = Number.NEGATIVE_INFINITY;
  private tokens: number | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly redraw: () => void,
    private readonly intervalMs = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  tokensAt(session: Session): number | null {
    const t = this.now();
    if (t - this.at >= this.intervalMs) {
      this.stop();
      this.at = t;
      this.tokens = this.size.tokensAt(session);
    } else if (this.timer === undefined) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.redraw();
        },
        Math.max(1, this.at + this.intervalMs - t),
      );
    }
    return this.tokens;
  }

  /** No trailing update pending (following ended). */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

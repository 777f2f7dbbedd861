import { type PiEnv, defaultSessionRoot, mostRecentSession } from "../io/discover.js";
import { stat } from "node:fs/promises";
import type { HeldTail, LineSourceFacts } from "../io/scan/index.js";
import { FileRangeReader } from "../io/store.js";
import { FileTail } from "../io/tail.js";
import { createIndexer, heldTailDiagnostic, type SessionIndexer } from "../model/load.js";
import { parseEntry, readEntry, type Session } from "../model/session.js";
import type { Diagnostic, EntryRec, EntryStore } from "../model/types.js";
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
  /** The file is open and its existing entries indexed. */
  | { kind: "open"; file: string; session: Session; existing: number; totals: FollowTotals }
  | {
      kind: "entry";
      file: string;
      session: Session;
      rec: EntryRec;
      step: FollowStep;
      totals: FollowTotals;
      /** The whole entry, as pi holds it after migration (with `wholeEntries`). */
      entry?: Record<string, unknown>;
    }
  /** A batch of new bytes was read; the next change is waited for. */
  | { kind: "idle"; file: string; session: Session; totals: FollowTotals }
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

/** Reads back entries of the followed file by offset, without read-ahead: the file grows (or is rewritten) under it. */
class BatchStore implements EntryStore {
  private readonly reader: FileRangeReader;
  constructor(path: string) {
    this.reader = new FileRangeReader(path, false);
  }
  rawLine(rec: EntryRec): string {
    return this.reader.read(rec.offset, rec.length);
  }
  close(): void {
    this.reader.close();
  }
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
  const store = new BatchStore(file);
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
  try {
    for (;;) {
      const events = await cur.tail.read();
      let gone: Diagnostic | null | undefined;
      for (const ev of events) {
        if (ev.kind === "reset") {
          yield { kind: "reset", file: cur.file, reason: ev.reason, held: held(cur.file, ev.held) };
          cur.store.close();
          cur.store = new BatchStore(cur.file);
          cur.ix = createIndexer(cur.file, cur.file, cur.store, null);
          cur.state = new FollowState();
          continue;
        }
        if (ev.kind === "gone") {
          gone = held(cur.file, ev.held);
          break;
        }
        const rec = cur.ix.line(ev.raw);
        if (rec === undefined) continue;
        const s = cur.ix.session(FACTS);
        const step = cur.state.step(s, rec);
        if (first) existing++;
        if (first && opts.fromStart !== true) continue;
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
        yield { kind: "open", file: cur.file, session: cur.ix.session(FACTS), existing, totals: cur.state.totals };
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

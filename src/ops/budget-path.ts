import { isObject, type Obj } from "../model/json.js";
import type { EntryRec } from "../model/detail.js";
import { estimateTokens } from "./budget.js";
import { entryMessages, withReplacement } from "./context.js";

/** What the provider reported for one request: the input side of an assistant message's `usage`. */
export interface Billed {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** input + cacheRead + cacheWrite: every token the request sent. */
  total: number;
}

/** The input side of an assistant message's usage; null without a usage object or when it records no input. */
export function billedOf(message: unknown): Billed | null {
  if (!isObject(message) || !isObject(message.usage)) return null;
  const u = message.usage;
  const n = (k: string) => (typeof u[k] === "number" && Number.isFinite(u[k]) ? (u[k] as number) : 0);
  const b = { input: n("input"), cacheRead: n("cacheRead"), cacheWrite: n("cacheWrite"), total: 0 };
  b.total = b.input + b.cacheRead + b.cacheWrite;
  return b.total > 0 ? b : null;
}

/**
 * The request made at an entry: the first of its children, by file order, that is an assistant message whose usage
 * records input (children name their parent by id, which pi resolves to the last entry with it); and how many more
 * such children it has (on other branches).
 */
export function billedTurnAfter(
  session: { entries: readonly EntryRec[]; byId: ReadonlyMap<string, EntryRec> },
  leaf: EntryRec,
  read: Read,
): { rec: EntryRec; billed: Billed; others: number } | null {
  if (leaf.id === undefined || session.byId.get(leaf.id) !== leaf) return null;
  let found: { rec: EntryRec; billed: Billed; others: number } | null = null;
  for (const rec of session.entries) {
    if (rec.parentId !== leaf.id || rec.type !== "message" || rec.role !== "assistant") continue;
    const billed = billedOf(read(rec).message);
    if (billed === null) continue;
    if (found) found.others++;
    else found = { rec, billed, others: 0 };
  }
  return found;
}

export type PathRow =
  /** An assistant turn: the estimate of its parent's context (what the request held), and what it was billed. */
  | { kind: "turn"; rec: EntryRec; parent: EntryRec | null; estimate: number; billed: Billed | null }
  /** A compaction: the estimate of the context right after it. */
  | { kind: "compaction"; rec: EntryRec; estimate: number };

type Read = (rec: EntryRec) => Obj;

/**
 * The context of every prefix of a path, kept up to date entry by entry rather than built again for each (a path of
 * a million entries), with the rules of buildContext (src/ops/context.ts, pi 1.6.0's buildSessionProjection):
 * the compaction in effect, its kept range without system messages, the latest context_edit of each target among
 * the context entries.
 */
class RunningContext {
  private entries: EntryRec[] = [];
  private tokens: number[] = [];
  private at = new Map<string, number[]>();
  private edits = new Map<unknown, EntryRec>();
  total = 0;

  constructor(private readonly read: Read) {}

  /** Tokens the entry at this position gives, with the latest edit of its id. */
  private contribution(rec: EntryRec, position: number): number {
    if (rec.type === "compaction" && position > 0) return 0;
    const o = this.read(rec);
    if (rec.type === "message" && (o.message === null || o.message === undefined)) return 0;
    let messages = entryMessages(rec, o);
    const edit = rec.id === undefined ? undefined : this.edits.get(rec.id);
    if (edit && messages.length > 0) {
      const e = this.read(edit);
      if (e.replacement === null) return 0;
      // No replacement at all: pi throws; pisess applies nothing (as buildContext).
      if (isObject(e.replacement)) {
        const content = e.replacement.content;
        messages = messages.map((m) => withReplacement(m, content));
      }
    }
    let n = 0;
    for (const m of messages) n += estimateTokens(m);
    return n;
  }

  private set(position: number, value: number): void {
    this.total += value - (this.tokens[position] ?? 0);
    this.tokens[position] = value;
  }

  push(rec: EntryRec): void {
    const position = this.entries.length;
    this.entries.push(rec);
    this.tokens.push(0);
    if (rec.id !== undefined) {
      const list = this.at.get(rec.id);
      if (list) list.push(position);
      else this.at.set(rec.id, [position]);
    }
    if (rec.type === "context_edit") {
      const target = this.read(rec).targetId;
      this.edits.set(target, rec);
      const list = typeof target === "string" ? this.at.get(target) : undefined;
      for (const p of list ?? []) this.set(p, this.contribution(this.entries[p] as EntryRec, p));
    }
    this.set(position, this.contribution(rec, position));
  }

  /** The context right after the compaction at path[i]: the compaction, its kept range, what follows it. */
  restart(path: readonly EntryRec[], i: number): void {
    this.entries = [];
    this.tokens = [];
    this.at = new Map();
    this.edits = new Map();
    this.total = 0;
    const c = path[i] as EntryRec;
    // pi finds the compaction by id (an earlier duplicate id moves the cut, as in buildContext).
    let cIdx = i;
    for (let j = 0; j < i; j++)
      if ((path[j] as EntryRec).id === c.id) {
        cIdx = j;
        break;
      }
    this.push(c);
    const firstKept = this.read(c).firstKeptEntryId;
    let kept = false;
    for (let j = 0; j < cIdx; j++) {
      const rec = path[j] as EntryRec;
      if (!kept && rec.id === firstKept) kept = true;
      if (kept && !this.isSystem(rec)) this.push(rec);
    }
    for (let j = cIdx + 1; j <= i; j++) this.push(path[j] as EntryRec);
  }

  private isSystem(rec: EntryRec): boolean {
    if (rec.type !== "message") return false;
    const m = this.read(rec).message;
    return isObject(m) && m.role === "system";
  }
}

/**
 * `budget --path`: for every assistant turn on the path the estimate of the context its request held (its parent's)
 * beside what it was billed, and each compaction with the estimate right after it.
 */
export function pathRows(path: readonly EntryRec[], read: Read): PathRow[] {
  const ctx = new RunningContext(read);
  const rows: PathRow[] = [];
  path.forEach((rec, i) => {
    if (rec.type === "message" && rec.role === "assistant") {
      const billed = billedOf(read(rec).message);
      rows.push({ kind: "turn", rec, parent: path[i - 1] ?? null, estimate: ctx.total, billed });
    }
    // The compaction in effect is the last one so far: each one starts the context again.
    if (rec.type === "compaction") {
      ctx.restart(path, i);
      rows.push({ kind: "compaction", rec, estimate: ctx.total });
    } else ctx.push(rec);
  });
  return rows;
}

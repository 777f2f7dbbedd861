import type { Rec } from "../model/detail.js";
import type { SpendRec } from "./totals.js";
import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import { buildContext } from "./context.js";
import { lightEntry } from "./kept.js";
import { pathTo } from "./path.js";
import { spendOf } from "./totals.js";

/** An entry found by reference: its id and, where the session holds it, its line. */
export interface EntryAt {
  id: string;
  line: number | null;
}

/** The key facts of the entries `follow` announces. */
export type Announcement =
  /** keptFrom: where the kept range starts as `context` finds it (null: nothing kept, as pi 1.6 reads it). */
  | { kind: "compaction"; tokensBefore: number | null; keptFrom: EntryAt | null }
  | { kind: "branch_summary"; from: EntryAt | null }
  | { kind: "context_edit"; target: EntryAt | null; removes: boolean }
  | { kind: "usage"; usageKind: string | null; tokens: number; cost: number };

/** What an entry records as spent, where it counts in the totals (an assistant turn, a summary call, a usage entry). */
export interface FollowSpend {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** input + output + cacheRead + cacheWrite, as the totals count them. */
  tokens: number;
  cost: number;
}

/** What `follow` says about one new entry, beyond the entry itself. */
export interface FollowStep {
  /** The parent as pi resolves it when the entry is appended (the last entry with that id); null for a root. */
  parent: EntryRec | null;
  /**
   * The entry does not continue the previous one: its parent is another entry (a `/tree` jump: a new branch starts
   * at `parent`), or it is a new root after other entries.
   */
  jump: boolean;
  /** Ancestors, as `tree --ndjson` counts them (0 for a root). */
  depth: number;
  announce: Announcement | null;
  /** The entry's own spend, added to the totals; null when it records none. */
  spend: FollowSpend | null;
}

/** Running totals over every entry indexed so far (existing ones included). */
export interface FollowTotals {
  entries: number;
  /** input + output + cacheRead + cacheWrite of every entry that records spend. */
  tokens: number;
  cost: number;
}

function usageTokens(rec: SpendRec): number {
  const u = rec.usage;
  return u ? u.input + u.output + u.cacheRead + u.cacheWrite : 0;
}

function spendOfEntry(rec: SpendRec): FollowSpend | null {
  const u = rec.usage;
  if (spendOf(rec) === undefined || !u) return null;
  return { input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, tokens: usageTokens(rec), cost: u.cost };
}

function at(session: Session, id: string | undefined | null): EntryAt | null {
  if (typeof id !== "string") return null;
  return { id, line: session.byId.get(id)?.line ?? null };
}

/**
 * The state `follow` keeps between entries: depth per entry (by index), the previous entry, the totals. Memory
 * grows with the index (one number per entry), never with the bytes read. Fed in file order.
 */
export class FollowState {
  private readonly depths: number[] = [];
  private prev: EntryRec | null = null;
  readonly totals: FollowTotals = { entries: 0, tokens: 0, cost: 0 };

  step(session: Session, rec: Rec<"full">): FollowStep {
    const parent = typeof rec.parentId === "string" ? (session.byId.get(rec.parentId) ?? null) : null;
    const depth = parent !== null && parent !== rec ? (this.depths[parent.index] ?? 0) + 1 : 0;
    this.depths[rec.index] = depth;
    const jump = this.prev !== null && parent !== this.prev;
    this.prev = rec;
    this.totals.entries++;
    const spend = spendOfEntry(rec);
    if (spend !== null) {
      this.totals.tokens += spend.tokens;
      this.totals.cost += spend.cost;
    }
    return { parent, jump, depth, announce: announce(session, rec), spend };
  }
}

/**
 * The kept range's first entry of a compaction just appended, by `context`'s own rule (buildContext on the path to
 * it, bodies as light as membership allows): its own id, an id not on the path before it or not in the file keep
 * nothing.
 */
function keptFromAt(session: Session, rec: EntryRec): EntryAt | null {
  const p = pathTo(session, rec);
  if (!p.ok) return null;
  const k = buildContext(session, p.path, (r) => lightEntry(session, r)).keptFrom;
  return k === null || k.id === undefined ? null : { id: k.id, line: k.line };
}

function announce(session: Session, rec: Rec<"full">): Announcement | null {
  switch (rec.type) {
    case "compaction":
      return {
        kind: "compaction",
        tokensBefore: typeof rec.tokensBefore === "number" ? rec.tokensBefore : null,
        keptFrom: keptFromAt(session, rec),
      };
    case "branch_summary":
      return { kind: "branch_summary", from: at(session, rec.fromId) };
    case "context_edit":
      return { kind: "context_edit", target: at(session, rec.targetId), removes: rec.editRemoves === true };
    case "usage":
      return { kind: "usage", usageKind: rec.usageKind ?? null, tokens: usageTokens(rec), cost: rec.usage?.cost ?? 0 };
    default:
      return null;
  }
}

import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import { spendOf } from "./totals.js";

/** An entry found by reference: its id and, where the session holds it, its line. */
export interface EntryAt {
  id: string;
  line: number | null;
}

/** The key facts of the entries `follow` announces. */
export type Announcement =
  | { kind: "compaction"; tokensBefore: number | null; firstKept: EntryAt | null }
  | { kind: "branch_summary"; from: EntryAt | null }
  | { kind: "context_edit"; target: EntryAt | null; removes: boolean }
  | { kind: "usage"; usageKind: string | null; tokens: number; cost: number };

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
}

/** Running totals over every entry indexed so far (existing ones included). */
export interface FollowTotals {
  entries: number;
  /** input + output + cacheRead + cacheWrite of every entry that records spend. */
  tokens: number;
  cost: number;
}

function usageTokens(rec: EntryRec): number {
  const u = rec.usage;
  return u ? u.input + u.output + u.cacheRead + u.cacheWrite : 0;
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

  step(session: Session, rec: EntryRec): FollowStep {
    const parent = typeof rec.parentId === "string" ? (session.byId.get(rec.parentId) ?? null) : null;
    const depth = parent !== null && parent !== rec ? (this.depths[parent.index] ?? 0) + 1 : 0;
    this.depths[rec.index] = depth;
    const jump = this.prev !== null && parent !== this.prev;
    this.prev = rec;
    this.totals.entries++;
    if (spendOf(rec) !== undefined && rec.usage) {
      this.totals.tokens += usageTokens(rec);
      this.totals.cost += rec.usage.cost;
    }
    return { parent, jump, depth, announce: announce(session, rec) };
  }
}

function announce(session: Session, rec: EntryRec): Announcement | null {
  switch (rec.type) {
    case "compaction":
      return {
        kind: "compaction",
        tokensBefore: typeof rec.tokensBefore === "number" ? rec.tokensBefore : null,
        firstKept: at(session, rec.firstKeptEntryId),
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

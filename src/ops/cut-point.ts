/**
 * Where a compaction would cut, by pi 1.6.0's own rule: `findProjectedCutPoint` and `prepareCompaction` of
 * `core/compaction/compaction.js`, over the projected entries of a context (each context entry with the messages it
 * gives after edits). Pure: the caller says what each entry is.
 */

/** pi 1.6.0's DEFAULT_COMPACTION_SETTINGS.keepRecentTokens. */
export const DEFAULT_KEEP_RECENT_TOKENS = 20000;

/** One projected entry, as the cut-point rule looks at it. */
export interface CutEntry {
  type: string;
  /** A message entry's message role. */
  role?: string | undefined;
  /** The roles of the messages it gives in this context (after edits; none for an older compaction). */
  roles: readonly string[];
  /** pi's estimateTokens summed over those messages. */
  tokens: number;
  /** It gives messages of its own, edits aside (pi's sessionEntryToContextMessages is not empty). */
  visible: boolean;
  /** context_edit: its targetId, and whether its replacement is not null. */
  targetId?: string | undefined;
  replaces?: boolean;
  id?: string | undefined;
}

export interface CutPoint {
  firstKeptEntryIndex: number;
  turnStartIndex: number;
  isSplitTurn: boolean;
}

const CUT_ROLES = new Set(["user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"]);
const TURN_ROLES = new Set(["user", "bashExecution", "custom", "branchSummary", "compactionSummary"]);

/** pi's isProjectedTurnStart. */
function turnStart(e: CutEntry): boolean {
  return e.type !== "compaction" && e.roles.some((r) => TURN_ROLES.has(r));
}

/** pi's findProjectedTurnStartIndex. */
function turnStartIndex(entries: readonly CutEntry[], from: number, start: number): number {
  for (let i = from; i >= start; i--) if (turnStart(entries[i] as CutEntry)) return i;
  return -1;
}

/** The cut index the token walk gives: the nearest cut point at or after where the kept tokens reach the budget. */
function walkBack(entries: readonly CutEntry[], cutPoints: number[], start: number, end: number, keep: number) {
  let accumulated = 0;
  for (let i = end - 1; i >= start; i--) {
    const t = (entries[i] as CutEntry).tokens;
    if (t === 0) continue;
    accumulated += t;
    if (accumulated >= keep) {
      // Tool results alone past the budget: keep their assistant's call rather than everything.
      return { cut: cutPoints.find((c) => c >= i) ?? (cutPoints[cutPoints.length - 1] as number), exceeded: true };
    }
  }
  return { cut: cutPoints[0] as number, exceeded: false };
}

/**
 * pi's recovery-omission rule: after the cut, only invisible entries and an omitted (edited-out) assistant attempt,
 * with no replacing edit of anything else, move the cut one entry on.
 */
function recoverySuffix(entries: readonly CutEntry[], cut: number, end: number): boolean {
  const suffix = entries.slice(cut + 1, end);
  const intrinsic = (e: CutEntry) => e.type !== "context_edit" && e.visible;
  const omitted = (e: CutEntry) => intrinsic(e) && e.roles.length === 0;
  const omittedIds = new Set(suffix.filter(omitted).map((e) => e.id));
  const external = suffix.some((e) => e.type === "context_edit" && e.replaces === true && !omittedIds.has(e.targetId));
  return (
    !external &&
    suffix.some((e) => e.type === "message" && e.role === "assistant" && omitted(e)) &&
    suffix.every((e) => e.type !== "compaction" && (!intrinsic(e) || omitted(e)))
  );
}

/** pi 1.6.0's findProjectedCutPoint: keep about `keep` tokens of the newest entries in [start, end). */
export function findCutPoint(entries: readonly CutEntry[], start: number, end: number, keep: number): CutPoint {
  const cutPoints: number[] = [];
  for (let i = start; i < end; i++) {
    const e = entries[i] as CutEntry;
    if (e.type !== "compaction" && e.roles.some((r) => CUT_ROLES.has(r))) cutPoints.push(i);
  }
  if (cutPoints.length === 0) return { firstKeptEntryIndex: start, turnStartIndex: -1, isSplitTurn: false };
  let { cut, exceeded } = walkBack(entries, cutPoints, start, end, keep);
  if (exceeded && recoverySuffix(entries, cut, end)) cut++;
  // Metadata just before the cut (labels, model changes) goes with the kept part.
  while (cut > start) {
    const prev = entries[cut - 1] as CutEntry;
    if (prev.type === "compaction" || prev.roles.length > 0) break;
    cut--;
  }
  const starts = turnStart(entries[cut] as CutEntry);
  const ts = starts ? -1 : turnStartIndex(entries, cut, start);
  return { firstKeptEntryIndex: cut, turnStartIndex: ts, isSplitTurn: !starts && ts !== -1 };
}

/** What a compaction at the end of these entries would do (pi 1.6.0's prepareCompaction), or why it would not. */
export type CompactPlan =
  | {
      ok: true;
      /** Index of the first entry kept. */
      firstKept: number;
      /** With a split turn, the entry that starts the turn cut in two (its start is summarised separately). */
      turnStart: number | null;
      /** Tokens of the messages from the first kept entry on (system messages left out: the compaction replays them). */
      keptTokens: number;
      /** Tokens of the messages pi would summarise (the history, and a split turn's prefix). */
      summarizedTokens: number;
      /** Where the entries a new compaction may summarise start (after the compaction in effect). */
      boundaryStart: number;
    }
  | { ok: false; reason: "leaf-is-compaction" | "nothing-to-summarize" | "first-kept-without-id" };

/** Tokens of the non-system messages of entries [from, to) that a compaction would carry (compactions give none). */
function carried(entries: readonly CutEntry[], from: number, to: number, tokensOf: (i: number) => number): number {
  let n = 0;
  for (let i = from; i < to; i++) if ((entries[i] as CutEntry).type !== "compaction") n += tokensOf(i);
  return n;
}

/**
 * pi's prepareCompaction on the projected entries. `lastOnPath`: the type of the path's last entry (pi compacts
 * nothing right after a compaction). `nonSystem(i)`: entry i's tokens without its system messages.
 */
export function planCompaction(
  entries: readonly CutEntry[],
  lastOnPath: string | undefined,
  keep: number,
  nonSystem: (i: number) => number,
): CompactPlan {
  if (lastOnPath === "compaction") return { ok: false, reason: "leaf-is-compaction" };
  const prev = entries.findIndex((e) => e.type === "compaction" && e.roles.length > 0);
  const boundaryStart = prev >= 0 ? prev + 1 : 0;
  const cut = findCutPoint(entries, boundaryStart, entries.length, keep);
  const first = entries[cut.firstKeptEntryIndex];
  if (first === undefined || !first.id) return { ok: false, reason: "first-kept-without-id" };
  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  const hasMessages = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const e = entries[i] as CutEntry;
      if (e.type !== "compaction" && e.roles.some((r) => r !== "system")) return true;
    }
    return false;
  };
  const history = hasMessages(boundaryStart, historyEnd);
  const prefix = cut.isSplitTurn && hasMessages(cut.turnStartIndex, cut.firstKeptEntryIndex);
  if (!history && !prefix) return { ok: false, reason: "nothing-to-summarize" };
  return {
    ok: true,
    firstKept: cut.firstKeptEntryIndex,
    turnStart: cut.isSplitTurn ? cut.turnStartIndex : null,
    keptTokens: carried(entries, cut.firstKeptEntryIndex, entries.length, nonSystem),
    summarizedTokens: carried(entries, boundaryStart, cut.firstKeptEntryIndex, nonSystem),
    boundaryStart,
  };
}

/** pi's compaction.keepRecentTokens for a model, and where it came from; or what is wrong with the setting. */
export type KeepRecent = { value: number; from: string } | { error: string };

/**
 * pi 1.6.0's SettingsManager.getCompactionKeepRecentTokens: `compaction.modelOverrides["provider/model"]`, else
 * `compaction.keepRecentTokens`, else the default; later files win (pi deep-merges project over global). A value
 * that is not a non-negative safe integer is an error, as in pi (which throws).
 */
export function resolveKeepRecent(
  files: readonly { file: string; compaction: Record<string, unknown> }[],
  model: { provider: unknown; modelId: unknown } | null,
): KeepRecent {
  const key = model ? `${String(model.provider)}/${String(model.modelId)}` : undefined;
  let ordinary: { value: unknown; file: string } | undefined;
  let override: { value: unknown; file: string } | undefined;
  for (const { file, compaction } of files) {
    if (compaction.keepRecentTokens !== undefined) ordinary = { value: compaction.keepRecentTokens, file };
    const overrides = compaction.modelOverrides;
    if (key === undefined || typeof overrides !== "object" || overrides === null || Array.isArray(overrides)) continue;
    const entry = (overrides as Record<string, unknown>)[key];
    if (typeof entry === "object" && entry !== null && !Array.isArray(entry)) {
      const v = (entry as Record<string, unknown>).keepRecentTokens;
      if (v !== undefined) override = { value: v, file };
    }
  }
  const valid = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
  for (const [s, name] of [
    [ordinary, "compaction.keepRecentTokens"],
    [override, `compaction.modelOverrides["${key}"].keepRecentTokens`],
  ] as const) {
    if (s && !valid(s.value))
      return { error: `${s.file}: invalid ${name}: ${JSON.stringify(s.value)} (pi expects a non-negative integer)` };
  }
  const chosen = override ?? ordinary;
  if (chosen) return { value: chosen.value as number, from: chosen.file };
  return { value: DEFAULT_KEEP_RECENT_TOKENS, from: "default" };
}

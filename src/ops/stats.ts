import { isObject } from "../model/json.js";
import type { Usage } from "../model/types.js";
import type { EntryRec, Rec } from "../model/detail.js";
import { spendOf } from "./totals.js";

/**
 * Summary numbers for a list of entries (a path, a branch, the divergent part of two paths). Pure: it works from
 * the index records; only the files touched need the tool-call arguments, read through `read` when given.
 */
export interface EntryStats {
  entries: number;
  /** Message entries with role user. */
  userTurns: number;
  /** Message entries with role assistant. */
  assistantTurns: number;
  /** Tool calls by tool name (from the assistant messages), keys sorted. */
  toolCalls: Record<string, number>;
  /** Sum of toolCalls. */
  toolCallCount: number;
  /** Assistant turns that ended in an error (stopReason "error") plus tool results flagged isError. */
  errors: number;
  /**
   * Sums over every entry that records spend, as src/ops/totals.ts counts it: assistant turns, tool results with
   * usage, compactions and branch summaries with usage, `usage` entries.
   */
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Sum of usage.cost.total over the same entries, in the provider's currency (USD in practice), rounded to 1e-6. */
  cost: number;
  /** "provider/model" of the assistant turns, in order of first use. */
  models: string[];
  /**
   * Files named by tool-call arguments (`path`, `file_path`, `filePath`): `read` for reading tools, `changed`
   * for editing/writing tools; each sorted, without repeats. null when no `read` function was given.
   */
  files: { read: string[]; changed: string[] } | null;
  /** Earliest and latest valid entry timestamps (ISO, UTC) and the span between them; null without any. */
  start: string | null;
  end: string | null;
  durationMs: number | null;
}

/** Tool names (lower case) whose path argument names a file that is read. */
const READ_TOOLS: ReadonlySet<string> = new Set(["read", "read_file", "readfile", "view", "cat", "open"]);
/** Tool names (lower case) whose path argument names a file that is created or changed. */
const CHANGE_TOOLS: ReadonlySet<string> = new Set([
  "edit",
  "write",
  "multi_edit",
  "multiedit",
  "edit_file",
  "write_file",
  "create",
  "create_file",
  "str_replace",
  "str_replace_editor",
  "replace",
]);
const PATH_ARGS = ["path", "file_path", "filePath", "file"] as const;

type FileAccess = "read" | "changed";

/** Whether a tool call reads or changes the file its path argument names; undefined for other tools. */
export function fileAccessOf(toolName: string): FileAccess | undefined {
  const n = toolName.toLowerCase();
  if (READ_TOOLS.has(n)) return "read";
  if (CHANGE_TOOLS.has(n)) return "changed";
  return undefined;
}

/** The tool calls of a whole assistant entry (as readEntry returns it): name and arguments. */
function toolCallsOf(entry: Record<string, unknown>): { name: string; arguments: unknown }[] {
  const m = entry.message;
  if (!isObject(m) || !Array.isArray(m.content)) return [];
  const out: { name: string; arguments: unknown }[] = [];
  for (const b of m.content) {
    if (isObject(b) && b.type === "toolCall") out.push({ name: typeof b.name === "string" ? b.name : "?", arguments: b.arguments });
  }
  return out;
}

/** The file a tool call's arguments name, if any. */
function pathArgument(args: unknown): string | undefined {
  if (!isObject(args)) return undefined;
  for (const k of PATH_ARGS) {
    const v = args[k];
    if (typeof v === "string" && v !== "") return v;
  }
  return undefined;
}

function emptyStats(withFiles: boolean): EntryStats {
  return {
    entries: 0,
    userTurns: 0,
    assistantTurns: 0,
    toolCalls: {},
    toolCallCount: 0,
    errors: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    cost: 0,
    models: [],
    files: withFiles ? { read: [], changed: [] } : null,
    start: null,
    end: null,
    durationMs: null,
  };
}

/**
 * Costs are summed in whole units of 1e-10 (prices have at most a few more decimals than the 1e-6 the stats round
 * to): a sum of floats depends on the order of its terms, and StatsSum adds a path's entries in either direction
 * (diff --leaves sums the active path from its leaf upwards). In units the sum is exact, so the same entries give
 * the same cost whichever way they were added, and a cost that ends in 5 in the seventh decimal (common: $0.3 per
 * million tokens) rounds up, where a running sum of floats let its last bit decide.
 */
const COST_UNITS = 1e10;

function byName(a: [string, number], b: [string, number]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/**
 * Stats built one entry at a time, in any order: `add` takes each entry with its position in the list (root
 * first), which orders the models by first use whichever way the list is walked. `stats()` may be called between
 * additions (a suffix of a path, growing towards the root); lists that did not change since the last call are
 * shared with its result, so a caller must not change what it gets.
 */
export class StatsSum {
  private readonly s: EntryStats;
  private costUnits = 0;
  private min = Infinity;
  private max = -Infinity;
  private readonly tools = new Map<string, number>();
  /** provider/model → position of its first use. */
  private readonly models = new Map<string, number>();
  private readonly filesRead = new Set<string>();
  private readonly filesChanged = new Set<string>();
  private toolsDirty = false;
  private modelsDirty = false;
  private filesDirty = false;
  private last: EntryStats | undefined;

  /** `read` re-reads a whole entry (readEntry); only for assistant entries with tool calls (the files touched). */
  constructor(private readonly read?: (rec: EntryRec) => Record<string, unknown>) {
    this.s = emptyStats(read !== undefined);
  }

  private spend(u: Usage): void {
    const t = this.s.tokens;
    t.input += u.input;
    t.output += u.output;
    t.cacheRead += u.cacheRead;
    t.cacheWrite += u.cacheWrite;
    this.costUnits += Math.round(u.cost * COST_UNITS);
  }

  add(rec: Rec<"full">, at: number): void {
    const s = this.s;
    s.entries++;
    if (!Number.isNaN(rec.time)) {
      if (rec.time < this.min) this.min = rec.time;
      if (rec.time > this.max) this.max = rec.time;
    }
    // Assistant turns are summed below with the rest of their numbers; every other entry recording spend here.
    const spend = rec.usage ? spendOf(rec) : undefined;
    if (rec.usage && spend !== undefined && spend.source !== "assistant") this.spend(rec.usage);
    if (rec.type !== "message") return;
    switch (rec.role) {
      case "user":
        s.userTurns++;
        break;
      case "assistant":
        this.assistant(rec, at);
        break;
      case "toolResult":
        if (rec.isError) s.errors++;
        break;
      default:
        break;
    }
  }

  private assistant(rec: Rec<"full">, at: number): void {
    const s = this.s;
    s.assistantTurns++;
    if (rec.stopReason === "error") s.errors++;
    if (rec.usage) this.spend(rec.usage);
    if (rec.provider !== undefined || rec.model !== undefined) {
      const key = `${rec.provider ?? "?"}/${rec.model ?? "?"}`;
      const first = this.models.get(key);
      if (first === undefined || at < first) {
        this.models.set(key, at);
        this.modelsDirty = true;
      }
    }
    if (!rec.toolNames || rec.toolNames.length === 0) return;
    for (const name of rec.toolNames) this.tools.set(name, (this.tools.get(name) ?? 0) + 1);
    this.toolsDirty = true;
    s.toolCallCount += rec.toolNames.length;
    if (!this.read) return;
    let entry: Record<string, unknown> | undefined;
    try {
      entry = this.read(rec);
    } catch {
      entry = undefined; // unreadable now (file changed under us): no files from this entry
    }
    if (!entry) return;
    for (const call of toolCallsOf(entry)) {
      const access = fileAccessOf(call.name);
      const p = access ? pathArgument(call.arguments) : undefined;
      if (p === undefined) continue;
      const set = access === "read" ? this.filesRead : this.filesChanged;
      if (!set.has(p)) {
        set.add(p);
        this.filesDirty = true;
      }
    }
  }

  /** The stats of the entries added so far. */
  stats(): EntryStats {
    const s = this.s;
    const last = this.last;
    const out: EntryStats = { ...s, tokens: { ...s.tokens } };
    out.toolCalls = last && !this.toolsDirty ? last.toolCalls : Object.fromEntries([...this.tools.entries()].sort(byName));
    out.cost = Math.round(this.costUnits / (COST_UNITS / 1e6)) / 1e6;
    out.models = last && !this.modelsDirty ? last.models : [...this.models.entries()].sort((a, b) => a[1] - b[1]).map(([m]) => m);
    if (s.files) {
      out.files =
        last?.files && !this.filesDirty ? last.files : { read: [...this.filesRead].sort(), changed: [...this.filesChanged].sort() };
    }
    if (this.min !== Infinity) {
      out.start = new Date(this.min).toISOString();
      out.end = new Date(this.max).toISOString();
      out.durationMs = this.max - this.min;
    }
    this.toolsDirty = this.modelsDirty = this.filesDirty = false;
    this.last = out;
    return out;
  }
}

/**
 * Stats over `entries` (in any order; typically root first). `read` re-reads a whole entry (readEntry) and is
 * called only for assistant entries that hold tool calls, to collect the files touched.
 */
export function computeStats(entries: Iterable<Rec<"full">>, read?: (rec: EntryRec) => Record<string, unknown>): EntryStats {
  const sum = new StatsSum(read);
  let at = 0;
  for (const rec of entries) sum.add(rec, at++);
  return sum.stats();
}

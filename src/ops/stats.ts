import { isObject } from "../model/json.js";
import type { EntryRec, Usage } from "../model/types.js";
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

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

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
 * Stats over `entries` (in any order; typically root first). `read` re-reads a whole entry (readEntry) and is
 * called only for assistant entries that hold tool calls, to collect the files touched.
 */
export function computeStats(entries: Iterable<EntryRec>, read?: (rec: EntryRec) => Record<string, unknown>): EntryStats {
  const s = emptyStats(read !== undefined);
  const tools = new Map<string, number>();
  const models: string[] = [];
  const seenModels = new Set<string>();
  const filesRead = new Set<string>();
  const filesChanged = new Set<string>();
  let cost = 0;
  const addSpend = (u: Usage): void => {
    s.tokens.input += u.input;
    s.tokens.output += u.output;
    s.tokens.cacheRead += u.cacheRead;
    s.tokens.cacheWrite += u.cacheWrite;
    cost += u.cost;
  };
  let min = Infinity;
  let max = -Infinity;
  for (const rec of entries) {
    s.entries++;
    if (!Number.isNaN(rec.time)) {
      if (rec.time < min) min = rec.time;
      if (rec.time > max) max = rec.time;
    }
    // Assistant turns are summed below with the rest of their numbers; every other entry recording spend here.
    const spend = rec.usage ? spendOf(rec) : undefined;
    if (rec.usage && spend !== undefined && spend.source !== "assistant") addSpend(rec.usage);
    if (rec.type !== "message") continue;
    switch (rec.role) {
      case "user":
        s.userTurns++;
        break;
      case "assistant": {
        s.assistantTurns++;
        if (rec.stopReason === "error") s.errors++;
        if (rec.usage) addSpend(rec.usage);
        if (rec.provider !== undefined || rec.model !== undefined) {
          const key = `${rec.provider ?? "?"}/${rec.model ?? "?"}`;
          if (!seenModels.has(key)) {
            seenModels.add(key);
            models.push(key);
          }
        }
        if (rec.toolNames && rec.toolNames.length > 0) {
          for (const name of rec.toolNames) tools.set(name, (tools.get(name) ?? 0) + 1);
          s.toolCallCount += rec.toolNames.length;
          if (read) {
            let entry: Record<string, unknown> | undefined;
            try {
              entry = read(rec);
            } catch {
              entry = undefined; // unreadable now (file changed under us): no files from this entry
            }
            if (entry) {
              for (const call of toolCallsOf(entry)) {
                const access = fileAccessOf(call.name);
                const p = access ? pathArgument(call.arguments) : undefined;
                if (p === undefined) continue;
                (access === "read" ? filesRead : filesChanged).add(p);
              }
            }
          }
        }
        break;
      }
      case "toolResult":
        if (rec.isError) s.errors++;
        break;
      default:
        break;
    }
  }
  s.toolCalls = Object.fromEntries([...tools.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
  s.cost = round6(cost);
  s.models = models;
  if (s.files) {
    s.files.read = [...filesRead].sort();
    s.files.changed = [...filesChanged].sort();
  }
  if (min !== Infinity) {
    s.start = new Date(min).toISOString();
    s.end = new Date(max).toISOString();
    s.durationMs = max - min;
  }
  return s;
}

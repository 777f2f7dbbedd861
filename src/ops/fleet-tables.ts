/**
 * The flat tables `pisess tables` writes and `pisess sql` queries: one row per thing, stable column names and
 * types. This list is the one definition; schemas/tables/*.json are made from it (tableSchema) and a test keeps
 * them equal; DuckDB column types come from it too.
 */

/** A value of a query result, as JSON gives it. */
export type SqlValue = string | number | boolean | null | SqlValue[] | { [k: string]: SqlValue };

export type ColumnType = "string" | "integer" | "number" | "boolean" | "timestamp" | "json";

export interface Column {
  name: string;
  type: ColumnType;
  /** Whether the value can be null. */
  nullable: boolean;
  description: string;
}

export interface TableDef {
  name: TableName;
  description: string;
  columns: Column[];
}

export const TABLE_NAMES = ["sessions", "entries", "messages", "tool_calls", "usage", "leaves"] as const;
export type TableName = (typeof TABLE_NAMES)[number];

const c = (name: string, type: ColumnType, nullable: boolean, description: string): Column => ({ name, type, nullable, description });

const USAGE_COLUMNS: Column[] = [
  c("input", "integer", false, "Input tokens (0 without usage)"),
  c("output", "integer", false, "Output tokens"),
  c("cache_read", "integer", false, "Tokens read from the prompt cache"),
  c("cache_write", "integer", false, "Tokens written to the prompt cache"),
  c("cache_write_1h", "integer", false, "Of cache_write, written with one-hour retention"),
  c("reasoning", "integer", false, "Of output, spent on reasoning"),
  c("total_tokens", "integer", false, "input + output + cache_read + cache_write"),
  c("cost", "number", false, "usage.cost.total as pi recorded it"),
];

const SESSION = c("session", "string", false, "The session file (as found), the key into sessions.file");

export const TABLES: Record<TableName, TableDef> = {
  sessions: {
    name: "sessions",
    description: "One row per session file.",
    columns: [
      c("file", "string", false, "Path of the session file, as found"),
      c("id", "string", true, "Header id"),
      c("cwd", "string", true, "Header cwd: the project the session ran in"),
      c(
        "parent",
        "string",
        true,
        "Fork parent the header names (parentSession, else legacy branchedFrom), resolved against the file's folder",
      ),
      c("parent_exists", "boolean", true, "Whether that parent file exists (null: not a fork)"),
      c("created", "timestamp", true, "Header timestamp"),
      c("modified", "timestamp", false, "File modification time"),
      c("bytes", "integer", false, "File size"),
      c("version", "integer", true, "Session format version (header.version, else 1)"),
      c("name", "string", true, "Session name (the last session_info name)"),
      c("entries", "integer", false, "Entries (readable lines after the header)"),
      c("messages", "integer", false, "Message entries"),
      c("assistant_turns", "integer", false, "Assistant messages"),
      c("tool_calls", "integer", false, "Tool calls in assistant messages"),
      c("compactions", "integer", false, "Compaction entries"),
      c("leaves", "integer", false, "Leaves of the tree"),
      c(
        "copied_entries",
        "integer",
        false,
        "Entries copied from the fork parent (the copied path and the labels /fork re-created after it)",
      ),
      c("damaged_lines", "integer", false, "Lines that could not be read (malformed, cut, not an object)"),
    ],
  },
  entries: {
    name: "entries",
    description: "One row per entry (every readable line after the header).",
    columns: [
      SESSION,
      c("line", "integer", false, "1-based line in the file"),
      c("id", "string", true, "Entry id (v1 files: L<line>)"),
      c("parent_id", "string", true, "parentId as written"),
      c("type", "string", false, "Entry type"),
      c("timestamp", "timestamp", true, "Entry timestamp (null when not a valid date)"),
      c("on_default_path", "boolean", false, "On the path from the root to the default leaf (the last entry)"),
      c("is_leaf", "boolean", false, "A leaf of the tree"),
      c("label", "string", true, "The label pi resolves for this entry"),
      c("depth", "integer", true, "Entries above it (0 for a root; null inside a parent cycle)"),
      c("is_copied", "boolean", false, "Copied from the fork parent"),
    ],
  },
  messages: {
    name: "messages",
    description: "One row per message entry.",
    columns: [
      SESSION,
      c("line", "integer", false, "1-based line in the file"),
      c("id", "string", true, "Entry id"),
      c("role", "string", true, "message.role"),
      c("provider", "string", true, "Provider (assistant messages)"),
      c("model", "string", true, "Model (assistant messages)"),
      c("stop_reason", "string", true, "stopReason (assistant messages)"),
      c("timestamp", "timestamp", true, "Entry timestamp"),
      c("text_length", "integer", false, "Characters of text in the content (a string, or its text blocks)"),
      ...USAGE_COLUMNS,
      c("is_copied", "boolean", false, "Copied from the fork parent: its spend counts in the parent"),
    ],
  },
  tool_calls: {
    name: "tool_calls",
    description: "One row per tool call in an assistant message, with its result where one answers it.",
    columns: [
      SESSION,
      c("line", "integer", false, "Line of the assistant message"),
      c("call_id", "string", true, "toolCall id"),
      c("tool", "string", true, "Tool name"),
      c("arguments", "json", true, "Arguments, as JSON text"),
      c("result_line", "integer", true, "Line of the first tool result with that call id (null: unanswered)"),
      c("is_error", "boolean", true, "The result's isError"),
      c("output_bytes", "integer", true, "UTF-8 bytes of the result's text"),
      c("duration_ms", "integer", true, "Result timestamp less the assistant message's"),
      c("is_copied", "boolean", false, "Copied from the fork parent"),
    ],
  },
  usage: {
    name: "usage",
    description:
      "One row per record of spend: assistant messages, tool results with usage, compactions and branch summaries with usage, usage entries.",
    columns: [
      SESSION,
      c("line", "integer", false, "1-based line in the file"),
      c("id", "string", true, "Entry id"),
      c("source", "string", false, "assistant, toolResult, compaction, branch_summary or usage"),
      c("kind", "string", true, "A usage entry's kind (cache_warm, …)"),
      c("provider", "string", false, "Provider the spend is counted under (? when unknown)"),
      c("model", "string", false, "Model the spend is counted under (? when unknown)"),
      c("timestamp", "timestamp", true, "Entry timestamp"),
      ...USAGE_COLUMNS,
      c("is_copied", "boolean", false, "Copied from the fork parent: counted there, not here"),
      c("leaf_line", "integer", false, "Line of the leaf `usage --by leaf` counts this spend under (the oldest branch through it)"),
    ],
  },
  leaves: {
    name: "leaves",
    description:
      "One row per leaf of a session's tree, with its path's totals as `pisess leaves` prints them (a fork's copies of its parent left out: they count in the parent).",
    columns: [
      SESSION,
      c("line", "integer", false, "1-based line of the leaf"),
      c("id", "string", true, "Leaf entry id"),
      c("depth", "integer", false, "Entries above the leaf (0 for a root)"),
      c("is_default", "boolean", false, "The default leaf (the last entry), the one pi opens"),
      c("cycle", "boolean", false, "On or below a parent cycle (pi cannot build its path; sums cover the part below the cut)"),
      c("first_time", "timestamp", true, "Timestamp of the path's root entry"),
      c("last_time", "timestamp", true, "Timestamp of the leaf"),
      c("models", "json", false, 'Models of the assistant messages on the path, "provider/model", sorted (JSON array)'),
      c("turns", "integer", false, "Assistant messages on the path"),
      c("tool_calls", "integer", false, "Tool calls in assistant messages on the path"),
      c("errors", "integer", false, "Tool results with isError true on the path"),
      c("compactions", "integer", false, "Compaction entries on the path"),
      c("input", "integer", false, "Input tokens of the path"),
      c("output", "integer", false, "Output tokens of the path"),
      c("cache_read", "integer", false, "Tokens read from the prompt cache on the path"),
      c("cache_write", "integer", false, "Tokens written to the prompt cache on the path"),
      c("cache_write_1h", "integer", false, "Of cache_write, written with one-hour retention"),
      c("reasoning", "integer", false, "Of output, spent on reasoning"),
      c("total_tokens", "integer", false, "input + output + cache_read + cache_write"),
      c("cost", "number", false, "Cost of the path (usage.cost.total summed, as pisess leaves prints it)"),
    ],
  },
};

const JSON_TYPE: Record<ColumnType, string> = {
  string: "string",
  integer: "integer",
  number: "number",
  boolean: "boolean",
  timestamp: "string",
  json: "string",
};

/** The JSON Schema of one table's rows (as --format ndjson writes them). */
export function tableSchema(name: TableName): Record<string, unknown> {
  const t = TABLES[name];
  const properties: Record<string, unknown> = {};
  for (const col of t.columns) {
    const p: Record<string, unknown> = {
      type: col.nullable ? [JSON_TYPE[col.type], "null"] : JSON_TYPE[col.type],
      description: col.description,
    };
    if (col.type === "timestamp") p.format = "date-time";
    if (col.type === "json") p.contentMediaType = "application/json";
    properties[col.name] = p;
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: `https://pisess.dev/schemas/tables/${name}.json`,
    title: `pisess tables: ${name}`,
    description: t.description,
    type: "object",
    properties,
    required: t.columns.map((col) => col.name),
    additionalProperties: false,
  };
}

import type { FileStat } from "../io/scan/index.js";
import type { HeaderInfo } from "../io/discover.js";

/** Severity of a finding; `--fail-on` compares against it. */
export type Severity = "error" | "warning" | "info";

export type DiagArg = string | number | boolean | null | readonly (string | number)[];

/**
 * A finding about a session file. Produced as data by the loader, the operations and the checks; turned into text
 * by exactly one formatter (src/render/diagnostics.ts).
 */
export interface Diagnostic {
  code: string;
  severity: Severity;
  file: string;
  /** 1-based physical line, or null for a finding about the whole file. */
  line: number | null;
  /** 1-based column (characters), where the finding has one. */
  column?: number;
  entryId?: string;
  args: Record<string, DiagArg>;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The part of cacheWrite written with one-hour retention (pi 1.6; 0 when absent). */
  cacheWrite1h: number;
  /** The part of output spent on reasoning (pi 1.6; 0 when absent). */
  reasoning: number;
  totalTokens: number;
  /** usage.cost.total. */
  cost: number;
}

/**
 * What the index keeps of one entry: enough to build trees, paths and summaries without holding message bodies.
 * The whole entry is read back from its byte range when an operation needs it. Every field a load can fill: the
 * records a load gives out are detail.ts's Rec<D>, which has only those its detail fills.
 */
export interface EntryFields {
  /** Position among the entries in file order (the header and skipped lines excluded). */
  index: number;
  line: number;
  offset: number;
  length: number;
  /** After migration; undefined where the entry has no usable id. */
  id: string | undefined;
  /** null for an explicit root; undefined where the field is missing or not a string. */
  parentId: string | null | undefined;
  type: string;
  timestamp: unknown;
  /** `new Date(timestamp).getTime()`, exactly as pi sorts; NaN when invalid. */
  time: number;
  role?: string;
  /** First text of the entry, cut to a few hundred characters: raw session content, not yet sanitized. */
  text?: string;
  /** assistant: holds a non-blank text block (pi's tree hides tool-call-only turns). */
  hasText?: boolean;
  toolNames?: string[];
  toolCallIds?: string[];
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  stopReason?: string;
  errorMessage?: string;
  /** Assistant message, model_change, or `usage` entry. */
  provider?: string;
  model?: string;
  /**
   * What the entry records as spent: an assistant's or a tool result's `message.usage`, a compaction's or
   * branch_summary's `usage` (the summary call), a `usage` entry's `usage`. Numbers only.
   */
  usage?: Usage;
  /** `usage` entry: its `kind` (pi writes "cache_warm"; extensions any string), cut like text. */
  usageKind?: string;
  /** message entry has a `message` pi passes on to the context: there and not null (an object or not). */
  hasMessage?: boolean;
  tokensBefore?: unknown;
  firstKeptEntryId?: string;
  /** v1 only: the original index, for diagnostics. */
  firstKeptEntryIndex?: number;
  fromId?: string;
  /** label and context_edit: the entry it names. */
  targetId?: string;
  labelText?: string;
  /** context_edit: `replacement: null` (the target's messages are left out of the context). */
  editRemoves?: boolean;
  name?: string;
  thinkingLevel?: string;
  customType?: string;
  summaryEmpty?: boolean;
  /**
   * A message entry's body facts (`pisess tables`): set by the tables detail, read from the line's bytes or from the
   * line parsed whole.
   */
  body?: MessageBody;
}

/** A tool call block of a message's content. */
export interface ToolCallFacts {
  /** Its id and name when strings. */
  id: string | null;
  name: string | null;
  /** Its arguments as JSON text (JSON.stringify of the parsed value); null when it has none. */
  arguments: string | null;
}

/**
 * What `pisess tables` reads of a message's body (model/body.ts): the same whether read from the parsed message or,
 * by the tables detail, from the line's bytes. A message that is not an object has none of them (NO_BODY).
 */
export interface MessageBody {
  /** message.stopReason when a string. */
  stopReason: string | null;
  /** UTF-16 code units of text: a string content, or the string texts of its blocks of type "text". */
  textLength: number;
  /** A tool result (role toolResult) with a string toolCallId: the call it answers, its isError, its text's size. */
  result: { callId: string; isError: boolean | null; bytes: number } | null;
  /** The content's blocks of type "toolCall", in order. */
  toolCalls: readonly ToolCallFacts[];
}

/** The header line as read: what discovery reads from a first line, plus any keys later pi versions add. */
export interface Header extends HeaderInfo {
  type: "session";
  [key: string]: unknown;
}

/** Reads whole entries back by their byte range (or from memory for streams). */
export interface EntryStore {
  /** The exact original line text (without line terminator). */
  rawLine(rec: EntryFields): string;
  /** The line's bytes, where the store reads them from a file: valid only until its next read. */
  rawBytes?(rec: EntryFields): Buffer;
  close(): void;
}

export interface LoadFacts {
  bom: boolean;
  bytes: number;
  lines: number;
  finalNewline: boolean;
  crlfLines: number;
  /** A file's size and modification time as it was opened (absent for a stream). */
  stat?: FileStat;
}

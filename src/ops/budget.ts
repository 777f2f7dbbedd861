import { isObject, type Obj } from "../model/json.js";
import { toJson } from "../model/json-text.js";

/**
 * What a context is made of, in pi 1.6.0's own token estimate: `estimateTokens` of
 * `core/compaction/compaction.js` (characters / 4, rounded up, per message; an image counts 4,800 characters), the
 * estimate pi's compaction cuts by. pisess does not run pi: the rule is re-implemented here, and
 * test/equivalence/budget-pi16.test.ts holds it to pi's function.
 */

/** pi 1.6.0's ESTIMATED_IMAGE_CHARS. */
const IMAGE_CHARS = 4800;

/** The parts a budget is split into. */
export type PartKind =
  | "system-prompt"
  | "system-section"
  | "system-tools"
  | "user-text"
  | "assistant-text"
  | "thinking"
  | "tool-calls"
  | "tool-result"
  | "image"
  | "bash"
  | "custom"
  | "compaction-summary"
  | "branch-summary";

/** Characters of one part within one message. */
interface Piece {
  kind: PartKind;
  /** The system section's name, the tool result's toolName, the custom message's customType; null for the rest. */
  name: string | null;
  chars: number;
}

/** A message's share of one part, in tokens. */
export interface MessagePart {
  kind: PartKind;
  name: string | null;
  chars: number;
  tokens: number;
}

const len = (v: unknown): number => (typeof v === "string" ? v.length : 0);

/** Adds `chars` to the message's piece of that part (pieces in order of first appearance). */
function add(pieces: Piece[], kind: PartKind, name: string | null, chars: number): void {
  for (const p of pieces)
    if (p.kind === kind && p.name === name) {
      p.chars += chars;
      return;
    }
  pieces.push({ kind, name, chars });
}

/** pi's estimateTextAndImageContentChars, split into text (as `kind`) and images. */
function contentPieces(pieces: Piece[], content: unknown, kind: PartKind, name: string | null): void {
  if (typeof content === "string") {
    add(pieces, kind, name, content.length);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const b of content) {
    if (!isObject(b)) continue;
    if (b.type === "text" && b.text) add(pieces, kind, name, len(b.text));
    else if (b.type === "image") add(pieces, "image", null, IMAGE_CHARS);
  }
}

function systemPieces(pieces: Piece[], m: Obj): void {
  contentPieces(pieces, m.content, "system-prompt", null);
  if (isObject(m.sections)) for (const [name, s] of Object.entries(m.sections)) if (s) add(pieces, "system-section", name, len(s));
  if (m.toolsAdded) add(pieces, "system-tools", null, (toJson(m.toolsAdded) ?? "").length);
}

function assistantPieces(pieces: Piece[], content: unknown): void {
  if (!Array.isArray(content)) return;
  for (const b of content) {
    if (!isObject(b)) continue;
    if (b.type === "text") add(pieces, "assistant-text", null, len(b.text));
    else if (b.type === "thinking") add(pieces, "thinking", null, len(b.thinking));
    else if (b.type === "toolCall") add(pieces, "tool-calls", null, len(b.name) + (toJson(b.arguments) ?? "").length);
  }
}

/** The characters of each part of one message, as pi's estimateTokens counts them (its switch on the role). */
function messagePieces(m: unknown): Piece[] {
  const pieces: Piece[] = [];
  if (!isObject(m)) return pieces;
  switch (m.role) {
    case "system":
      systemPieces(pieces, m);
      break;
    case "user":
      contentPieces(pieces, m.content, "user-text", null);
      break;
    case "assistant":
      assistantPieces(pieces, m.content);
      break;
    case "custom":
      contentPieces(pieces, m.content, "custom", typeof m.customType === "string" ? m.customType : null);
      break;
    case "toolResult":
      contentPieces(pieces, m.content, "tool-result", typeof m.toolName === "string" ? m.toolName : null);
      break;
    case "bashExecution":
      // pi counts a `!!` run (excludeFromContext) too: its compaction estimate does not look at the flag.
      add(pieces, "bash", null, len(m.command) + len(m.output));
      break;
    case "branchSummary":
      add(pieces, "branch-summary", null, len(m.summary));
      break;
    case "compactionSummary":
      add(pieces, "compaction-summary", null, len(m.summary));
      break;
  }
  return pieces;
}

/**
 * One message's estimate split into parts. pi rounds once per message (ceil of all its characters / 4); each part
 * gets the rise of that rounding over the parts so far, so the parts add up to pi's estimate of the message exactly.
 */
export function messageParts(m: unknown): MessagePart[] {
  const out: MessagePart[] = [];
  let chars = 0;
  let tokens = 0;
  for (const p of messagePieces(m)) {
    chars += p.chars;
    const upTo = Math.ceil(chars / 4);
    out.push({ kind: p.kind, name: p.name, chars: p.chars, tokens: upTo - tokens });
    tokens = upTo;
  }
  return out;
}

/** pi 1.6.0's estimateTokens of one message (core/compaction/compaction.js). */
export function estimateTokens(m: unknown): number {
  let chars = 0;
  for (const p of messagePieces(m)) chars += p.chars;
  return Math.ceil(chars / 4);
}

/** One part of the context: every message's share of it, in pi's estimate. */
export interface BudgetPart {
  kind: PartKind;
  /** The section's name (system-section), the tool's (tool-result), the customType (custom); null otherwise. */
  name: string | null;
  tokens: number;
  /** Of the context's estimated tokens, 0 to 1 (4 decimals). */
  share: number;
  /** Characters counted (an image as 4,800). */
  chars: number;
  /** Messages with some of this part. */
  messages: number;
}

const share = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10000) / 10000 : 0);

/** The context's tokens by part over its messages (`total`: their estimate), largest first. */
export function budgetParts(messages: readonly unknown[], total: number): BudgetPart[] {
  const byKey = new Map<string, BudgetPart>();
  for (const m of messages) {
    for (const p of messageParts(m)) {
      // An empty part (a system message's "" content) is no part of the budget.
      if (p.chars === 0) continue;
      const key = `${p.kind}\u0000${p.name ?? ""}\u0000${p.name === null ? 0 : 1}`;
      let row = byKey.get(key);
      if (!row) {
        row = { kind: p.kind, name: p.name, tokens: 0, share: 0, chars: 0, messages: 0 };
        byKey.set(key, row);
      }
      row.tokens += p.tokens;
      row.chars += p.chars;
      row.messages++;
    }
  }
  const rows = [...byKey.values()];
  for (const row of rows) row.share = share(row.tokens, total);
  // Largest first; ties in a fixed order so the output is deterministic.
  return rows.sort((a, b) => b.tokens - a.tokens || b.chars - a.chars || cmp(a.kind, b.kind) || cmp(a.name ?? "", b.name ?? ""));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

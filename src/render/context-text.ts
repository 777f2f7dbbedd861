import type { ContextDisplayStream, DisplayMessage, Part } from "./context-display.js";
import { formatTokens } from "./entry.js";
import { sanitize, sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { CHUNK_CHARS } from "./chunks.js";

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
const lastDay = { days: Number.NaN, text: "" };

/** UTC, second precision, the same wherever it runs: `2025-01-06 09:45:25Z`; `?` for an invalid time. */
export function formatTime(ms: number): string {
  if (!Number.isFinite(ms)) return "?";
  // Years 1970-9999 from the day number (Hinnant's civil_from_days): a million titles, and Date's own formatting
  // is most of their cost. Other times the long way.
  if (ms >= 0 && ms < 253402300800000) {
    const t = Math.floor(ms / 1000);
    const days = Math.floor(t / 86400);
    const sod = t - days * 86400;
    const hh = Math.floor(sod / 3600);
    const mm = Math.floor((sod % 3600) / 60);
    const clock = `${pad2(hh)}:${pad2(mm)}:${pad2(sod % 60)}Z`;
    // Messages in a row are mostly on the same day.
    if (days === lastDay.days) return lastDay.text + clock;
    const z = days + 719468;
    const era = Math.floor(z / 146097);
    const doe = z - era * 146097;
    const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
    const month = mp < 10 ? mp + 3 : mp - 9;
    const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    lastDay.days = days;
    lastDay.text = `${year}-${pad2(month)}-${pad2(day)} `;
    return lastDay.text + clock;
  }
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "?";
  return d
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

function refText(line: number, id: string | null): string {
  return id === null ? `line ${line}` : `line ${line} (${sanitizeLine(id.length > 8 ? id.slice(0, 8) : id)})`;
}

/** The header facts as label/value pairs, shared by the text and Markdown renderers. */
export function headerFacts(doc: ContextDisplayStream): [string, string][] {
  const c = doc.compaction;
  const compaction = c
    ? `${refText(c.line, c.id)}, ${formatTokens(c.tokensBefore)} tokens before; ` +
      (c.keptFrom ? `kept from ${refText(c.keptFrom.line, c.keptFrom.id)} (${c.kept} message${c.kept === 1 ? "" : "s"})` : "nothing kept")
    : "none";
  const size = `≈ ${formatTokens(doc.size.tokens)} tokens (${doc.size.method === "estimate" ? "estimated from characters" : "last reported usage + estimate"})`;
  return [
    ["file", sanitizeLine(doc.file)],
    ["leaf", refText(doc.leaf.line, doc.leaf.id)],
    ["model", doc.model === null ? "none" : sanitizeLine(doc.model)],
    ["thinking", sanitizeLine(doc.thinkingLevel)],
    ["messages", `${doc.messageCount} (${doc.llmCount} sent to the model)`],
    ["compaction", compaction],
    ...editFacts(doc),
    ["size", size],
  ];
}

/** A line on the context edits, only where the path has any (older sessions keep their header as it was). */
function editFacts(doc: ContextDisplayStream): [string, string][] {
  const e = doc.edits;
  if (e.onPath === 0) return [];
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
  return [
    [
      "edits",
      `${plural(e.onPath, "context edit")} on the path, ${e.applied} applied: ${plural(e.editedMessages, "message")} edited, ${e.removedMessages} removed`,
    ],
  ];
}

/** The title of one message: role (or its custom type / tool name), time, model, source line, notes. */
export function titleParts(m: DisplayMessage): string[] {
  let role = m.role;
  if (m.role === "custom") role = `custom: ${sanitizeLine(m.customType ?? "?")}`;
  else if (m.role === "toolResult")
    role = `${m.orphan ? "orphan " : ""}result of ${sanitizeLine(m.toolName ?? "?")}${m.isError ? " (error)" : ""}`;
  else if (m.role === "compactionSummary") role = "compaction summary";
  else if (m.role === "branchSummary") role = "branch summary";
  else if (m.role === "bashExecution") role = "bash";
  else role = sanitizeLine(role);
  const out = [role, formatTime(m.time)];
  if (m.model) out.push(sanitizeLine(m.model));
  out.push(refText(m.line, m.id));
  for (const n of m.notes) out.push(sanitizeLine(n));
  return out;
}

interface ContextTextOptions {
  style: Style;
}

function indent(text: string, prefix: string): string[] {
  return sanitize(text)
    .split("\n")
    .map((l) => (prefix + l).trimEnd());
}

function partLines(part: Part, prefix: string, style: Style): string[] {
  switch (part.kind) {
    case "text": {
      const lines = indent(part.text, prefix);
      if (part.cut > 0) lines.push(style.dim(`${prefix}… ${part.cut} more line${part.cut === 1 ? "" : "s"} (--max-output 0 shows all)`));
      return lines;
    }
    case "thinking":
      if (part.redacted) return [style.dim(`${prefix}┊ [thinking redacted]`)];
      return indent(part.text, `${prefix}┊ `).map((l) => style.dim(l));
    case "image":
      return [style.special(`${prefix}[${sanitizeLine(part.mimeType)} ${formatBytes(part.bytes)}]`)];
    case "other":
      return [style.warning(`${prefix}[${sanitizeLine(part.type)} block]`)];
    case "call": {
      const head = `${prefix}→ ${style.tool(sanitizeLine(part.name))}${part.args ? ` ${sanitizeLine(part.args)}` : ""}`;
      const lines = [head.trimEnd()];
      if (part.result === null) lines.push(style.warning(`${prefix}  ↳ no result (unanswered call ${sanitizeLine(part.id)})`));
      else if (part.result !== undefined) for (const v of resultLines(part.result, `${prefix}  `, style)) lines.push(v);
      return lines;
    }
  }
}

/** With --show-edits: what an edited message said in the file, marked off from what the model saw. */
function originalLines(m: DisplayMessage, prefix: string, style: Style): string[] {
  if (!m.original) return [];
  const lines = [style.dim(`${prefix}┄ as recorded before the edit:`)];
  for (const p of m.original) for (const v of partLines(p, `${prefix}┄ `, style).map((l) => style.dim(l))) lines.push(v);
  return lines;
}

function resultLines(m: DisplayMessage, prefix: string, style: Style): string[] {
  const title = `${prefix}↳ #${m.index + 1} ${titleParts(m).join(" · ")}`;
  const lines = [m.isError ? style.error(title) : style.dim(title)];
  for (const p of m.parts) for (const v of partLines(p, `${prefix}  │ `, style)) lines.push(v);
  for (const v of originalLines(m, `${prefix}  │ `, style)) lines.push(v);
  return lines;
}

function roleColor(m: DisplayMessage, style: Style): (s: string) => string {
  switch (m.role) {
    case "user":
      return style.user;
    case "assistant":
      return style.assistant;
    case "custom":
      return style.special;
    case "toolResult":
      return m.isError || m.orphan ? style.error : style.tool;
    case "bashExecution":
      return style.tool;
    case "system":
      return style.dim;
    default:
      return style.warning;
  }
}

function messageLines(m: DisplayMessage, style: Style): string[] {
  if (m.removedBy) {
    const lines = [style.dim(`── ✗ ${titleParts(m).join(" · ")}`)];
    for (const p of m.parts) for (const v of partLines(p, "  ✗ ", style).map((l) => style.dim(l))) lines.push(v);
    return lines;
  }
  if (m.role === "compactionSummary" || m.role === "branchSummary") {
    const color = m.role === "compactionSummary" ? style.special : style.warning;
    const lines = [color(`┌─ #${m.index + 1} ${titleParts(m).join(" · ")}`)];
    for (const p of m.parts) for (const v of partLines(p, "", style).map((l) => `${color("│")} ${l}`.trimEnd())) lines.push(v);
    lines.push(color("└─"));
    return lines;
  }
  if (m.role === "toolResult") {
    // Only orphans come here: answered results are shown under their call.
    const lines = [style.error(`── #${m.index + 1} ${titleParts(m).join(" · ")} (no matching call)`)];
    for (const p of m.parts) for (const v of partLines(p, "  │ ", style)) lines.push(v);
    return lines;
  }
  const lines = [roleColor(m, style)(`── #${m.index + 1} ${titleParts(m).join(" · ")}`)];
  for (const p of m.parts) for (const v of partLines(p, "", style)) lines.push(v);
  for (const v of originalLines(m, "", style)) lines.push(v);
  return lines;
}

/** The context as text for a terminal: the header, then each message. Every session string is sanitized. */
export function* contextText(doc: ContextDisplayStream, opts: ContextTextOptions): Generator<string> {
  const { style } = opts;
  const facts = headerFacts(doc);
  const width = facts.reduce((w, [k]) => Math.max(w, k.length), -Infinity) + 1;
  for (const [k, v] of facts) yield `${style.bold(`${k}:`.padEnd(width))} ${v}\n`;
  // Messages go out in chunks (CHUNK_CHARS): a million of them, one yield each, cost more than their text.
  let buf = "";
  for (const m of doc.items) {
    buf += `\n${messageLines(m, style).join("\n")}\n`;
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  if (buf) yield buf;
}

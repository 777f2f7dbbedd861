import type { CompactionFacts, CompactionsData } from "../ops/compactions.js";
import { fmtBytes } from "./bloat.js";
import { diagnosticLine } from "./diagnostics.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

function list(rows: { name: string; count: number }[]): string {
  return rows.map((r) => `${sanitizeLine(r.name)} ${r.count}`).join(", ");
}

function n(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function lines(ls: number[]): string {
  if (ls.length === 0) return "none";
  // Runs of consecutive lines as ranges: a long session's kept range is one span.
  const parts: string[] = [];
  let from = ls[0] as number;
  let prev = from;
  for (const l of [...ls.slice(1), Number.NaN]) {
    if (l === prev + 1) {
      prev = l;
      continue;
    }
    parts.push(from === prev ? `${from}` : `${from}-${prev}`);
    from = l;
    prev = l;
  }
  return parts.join(",");
}

function block(c: CompactionFacts, style: Style): string {
  const out: string[] = [];
  const tags = [
    c.inEffect ? style.accent("in effect") : "",
    c.onPath ? "" : "off the path",
    c.fromHook ? "from hook" : "",
    c.systemMessage ? "systemMessage" : "",
  ]
    .filter((t) => t !== "")
    .join(", ");
  out.push(
    `${style.bold(`compaction line ${c.line}`)} ${sanitizeLine(c.id ?? "(no id)")} ${sanitizeLine(String(c.timestamp ?? ""))}${tags ? `  [${tags}]` : ""}`,
  );
  const call = [
    c.model ? sanitizeLine(c.model) : "",
    c.usage ? `${c.usage.input} in / ${c.usage.output} out, $${c.usage.cost.toFixed(4)}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  out.push(
    `  tokensBefore ${sanitizeLine(String(c.tokensBefore ?? "?"))}; context before ~${c.contextBefore.tokens} tokens (${c.contextBefore.messages} messages), after ~${c.contextAfter.tokens} (${c.contextAfter.messages})${call ? `; summary call ${call}` : ""}`,
  );
  const from = c.keepsNothing
    ? "nothing kept (firstKeptEntryId is its own id)"
    : c.keptFrom
      ? `kept from line ${c.keptFrom.line}`
      : "nothing kept";
  const held = `${n(c.kept.entries, "entry", "entries")}, ${n(c.kept.messages, "message")}, ~${c.kept.tokens} tokens; lines ${lines(c.kept.lines)}`;
  // kept and dropped are judged at the leaf: for an older compaction, what a later one summarised counts as dropped.
  out.push(c.inEffect ? `  ${from}: ${held}` : `  ${from}; still in the context at the leaf: ${held}`);
  const e = c.editedOut;
  if (e.entries > 0)
    out.push(
      `  edited out (context_edit, not the compaction): ${n(e.entries, "entry", "entries")}, ${n(e.messages, "message")}; lines ${lines(e.lines)}`,
    );
  const d = c.dropped;
  out.push(
    `  dropped: ${n(d.entries, "entry", "entries")}, ${n(d.messages, "message")} (${list(d.byRole) || "none"}), ~${d.tokens} tokens, ${fmtBytes(d.bytes)}; lines ${lines(d.lines)}`,
  );
  if (d.toolCalls.length > 0) out.push(`  dropped tool calls: ${list(d.toolCalls)}`);
  if (d.files.length > 0) out.push(`  files they touched: ${d.files.map(sanitizeLine).join(", ")}`);
  if (d.images > 0) out.push(`  dropped images: ${d.images}`);
  out.push(
    `  summary: ${c.summary.chars} chars, ~${c.summary.tokens} tokens${c.ratio === null ? "" : ` (${(c.ratio * 100).toFixed(1)}% of what it replaced)`}`,
  );
  for (const w of c.warnings) out.push(`  ${(w.severity === "info" ? style.dim : style.warning)(diagnosticLine(w).trimEnd())}`);
  return `${out.join("\n")}\n`;
}

/** `pisess compactions` as text: one block per compaction. */
export function compactionsText(d: CompactionsData, style: Style): string {
  const head = `${sanitizeLine(d.file)}: ${d.compactions.length} compaction${d.compactions.length === 1 ? "" : "s"}, leaf line ${d.leaf.line}${d.leaf.id ? ` (${sanitizeLine(d.leaf.id)})` : ""}\n`;
  return [head, ...d.compactions.map((c) => block(c, style))].join("\n");
}

import type { ContextDisplayStream, DisplayMessage, Part } from "./context-display.js";
import { formatBytes, headerFacts, titleParts } from "./context-text.js";
import { cell, fence, htmlText, inlineCode } from "./markdown.js";
import { CHUNK_CHARS } from "./chunks.js";

function quote(text: string): string {
  return text
    .split("\n")
    .map((l) => (l === "" ? ">" : `> ${l}`))
    .join("\n");
}

function cutNote(cut: number): string {
  return `*… ${cut} more line${cut === 1 ? "" : "s"}*`;
}

function partMd(part: Part, asOutput: boolean): string {
  switch (part.kind) {
    case "text": {
      // Session text stays data: in a fence, Markdown shows what the model wrote and renders none of its HTML.
      const body = fence(part.text, asOutput ? "text" : "markdown");
      return part.cut > 0 ? `${body}\n\n${cutNote(part.cut)}` : body;
    }
    case "thinking":
      if (part.redacted) return "*[thinking redacted]*";
      return `<details><summary>thinking</summary>\n\n${fence(part.text, "markdown")}\n\n</details>`;
    case "image":
      return `*[${cell(part.mimeType)} ${formatBytes(part.bytes)}]*`;
    case "other":
      return `*[${cell(part.type)} block]*`;
    case "call": {
      const head = `**→ ${cell(part.name)}**${part.args ? ` ${inlineCode(part.args)}` : ""}`;
      if (part.result === null) return `${head}\n\n*no result (unanswered call ${inlineCode(part.id)})*`;
      if (part.result === undefined) return head;
      return `${head}\n\n${resultMd(part.result)}`;
    }
  }
}

/** With --show-edits: what an edited message said in the file, folded. */
function originalMd(m: DisplayMessage, asOutput: boolean): string[] {
  if (!m.original) return [];
  return [
    `<details><summary>as recorded before the edit</summary>\n\n${m.original.map((p) => partMd(p, asOutput)).join("\n\n")}\n\n</details>`,
  ];
}

function resultMd(m: DisplayMessage): string {
  const title = `*↳ ${m.index + 1}. ${cell(titleParts(m).join(" · "))}*`;
  const parts = m.parts.map((p) => partMd(p, true));
  return [title, ...parts, ...originalMd(m, true)].join("\n\n");
}

function messageMd(m: DisplayMessage): string {
  if (m.removedBy) {
    const body = m.parts.map((p) => partMd(p, true)).join("\n\n");
    // Inside an HTML block Markdown's backslash escapes do not count: entities.
    return `<details><summary>✗ ${htmlText(titleParts(m).join(" · "))}</summary>\n\n${body}\n\n</details>`;
  }
  const title = `### ${m.index + 1}. ${cell(titleParts(m).join(" · "))}${m.role === "toolResult" ? " (no matching call)" : ""}`;
  if (m.role === "compactionSummary" || m.role === "branchSummary") {
    return `${title}\n\n${quote(m.parts.map((p) => partMd(p, false)).join("\n\n"))}`;
  }
  const asOutput = !["user", "assistant", "custom"].includes(m.role);
  return [title, ...m.parts.map((p) => partMd(p, asOutput)), ...originalMd(m, asOutput)].join("\n\n");
}

/** The context as Markdown for sharing: a facts table, then one section per message. */
export function* contextMarkdown(doc: ContextDisplayStream): Generator<string> {
  yield `# Context at ${cell(headerFacts(doc)[1]?.[1] ?? "")}\n\n`;
  yield "| | |\n|---|---|\n";
  for (const [k, v] of headerFacts(doc)) yield `| ${k} | ${cell(v)} |\n`;
  // In chunks (CHUNK_CHARS), as the text: a million messages, one yield each, cost more than their text.
  let buf = "";
  for (const m of doc.items) {
    buf += `\n${messageMd(m)}\n`;
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  if (buf) yield buf;
}

import type { EntryRec } from "../model/detail.js";
import { fmtTime } from "./info-format.js";
import { toPrettyJson } from "./json.js";
import { cell, fence } from "./markdown.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Session text goes into fences: in Markdown it stays data (no HTML, links or images from the session). */
function textBlock(text: string, info = "text"): string {
  return fence(text, info);
}

function blocksMd(content: unknown): string[] {
  if (typeof content === "string") return content === "" ? [] : [textBlock(content, "markdown")];
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const b of content) {
    if (!isObj(b)) continue;
    if (b.type === "text" && typeof b.text === "string" && b.text !== "") out.push(textBlock(b.text, "markdown"));
    else if (b.type === "thinking") out.push(`*thinking:*\n\n${textBlock(String(b.thinking ?? ""))}`);
    else if (b.type === "image") out.push(`*[image ${cell(String(b.mimeType ?? "?"))}]*`);
    else if (b.type === "toolCall")
      out.push(
        `**→ ${cell(String(b.name ?? "?"))}** \`${cell(String(b.id ?? ""))}\`\n\n${textBlock(toPrettyJson(b.arguments) ?? "", "json")}`,
      );
    else out.push(`*[${cell(String(b.type))} block]*`);
  }
  return out;
}

function titleOf(rec: EntryRec, o: Obj): string {
  const m = isObj(o.message) ? o.message : null;
  const what = rec.type === "message" ? String(m?.role ?? "?") : rec.type;
  const extra: string[] = [];
  if (m?.role === "assistant") extra.push(`${String(m.provider ?? "?")}/${String(m.model ?? "?")}`);
  if (m?.role === "toolResult") {
    extra.push(String(m.toolName ?? "?"));
    if (m.isError === true) extra.push("error");
  }
  return [what, ...extra, `line ${rec.line}`, rec.id ?? "(no id)", fmtTime(rec.time)].map(cell).join(" · ");
}

function bodyMd(rec: EntryRec, o: Obj): string[] {
  if (rec.type === "message") {
    const m = isObj(o.message) ? o.message : {};
    if (m.role === "bashExecution") return [textBlock(`$ ${String(m.command ?? "")}\n${String(m.output ?? "")}`, "console")];
    if (m.role === "compactionSummary" || m.role === "branchSummary") return [textBlock(String(m.summary ?? ""), "markdown")];
    if (m.role === "system" && isObj(m.sections)) {
      const out = blocksMd(m.content);
      for (const [name, text] of Object.entries(m.sections))
        out.push(text === null ? `*section ${cell(name)} removed*` : `*section ${cell(name)}:*\n\n${textBlock(String(text), "markdown")}`);
      return out;
    }
    const out = blocksMd(m.content);
    if (typeof m.errorMessage === "string") out.push(`*error:* ${cell(m.errorMessage)}`);
    return out;
  }
  switch (rec.type) {
    case "compaction":
    case "branch_summary":
      return [textBlock(String(o.summary ?? ""), "markdown")];
    case "custom_message":
      return blocksMd(o.content);
    case "model_change":
      return [`model: ${cell(`${String(o.provider)}/${String(o.modelId)}`)}`];
    case "thinking_level_change":
      return [`thinking level: ${cell(String(o.thinkingLevel))}`];
    case "label":
      return [`label ${cell(String(o.label ?? "(cleared)"))} on ${cell(String(o.targetId))}`];
    case "session_info":
      return [`name: ${cell(String(o.name ?? ""))}`];
    case "context_edit":
      return [`edits ${cell(String(o.targetId))}`, textBlock(toPrettyJson(o.replacement) ?? "null", "json")];
    default:
      return [textBlock(String(toPrettyJson(o)), "json")];
  }
}

export interface BranchMarkdownInput {
  facts: [string, string][];
  leaf: EntryRec;
  entries: Iterable<{ rec: EntryRec; entry: Record<string, unknown> }>;
  count: number;
}

/** `pisess export --format markdown`: the header facts, then every entry of the branch root → leaf. */
export function* branchMarkdown(doc: BranchMarkdownInput): Generator<string> {
  yield `# Session ${cell(doc.facts.find(([k]) => k === "name")?.[1] ?? "")}\n\n`;
  yield "| | |\n|---|---|\n";
  for (const [k, v] of doc.facts) yield `| ${cell(k)} | ${cell(v)} |\n`;
  yield `\n## Branch to line ${doc.leaf.line} (${cell(doc.leaf.id ?? "no id")}): ${doc.count} entries\n`;
  let n = 0;
  for (const { rec, entry } of doc.entries) {
    n++;
    yield `\n### ${n}. ${titleOf(rec, entry)}\n\n`;
    const body = bodyMd(rec, entry);
    if (body.length > 0) yield `${body.join("\n\n")}\n`;
  }
}

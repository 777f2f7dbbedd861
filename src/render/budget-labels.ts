import type { BudgetPart } from "../ops/budget.js";
import { sanitizeLine } from "./sanitize.js";

/** How a part of a budget is named (the text of `pisess budget` and the HTML export's budget panel). */
const PART_LABEL: Record<BudgetPart["kind"], string> = {
  "system-prompt": "system prompt",
  "system-section": "system section",
  "system-tools": "tool declarations",
  "user-text": "user text",
  "assistant-text": "assistant text",
  thinking: "thinking",
  "tool-calls": "tool calls",
  "tool-result": "tool results",
  image: "images",
  bash: "bash executions",
  custom: "custom messages",
  "compaction-summary": "compaction summary",
  "branch-summary": "branch summaries",
};

export function partLabel(p: Pick<BudgetPart, "kind" | "name">): string {
  const base = PART_LABEL[p.kind];
  return p.name === null ? base : `${base}: ${sanitizeLine(p.name)}`;
}

import type { EntryRec } from "../model/types.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

/** Short id as pi shows it; v1-derived ids are short already. */
export function shortId(rec: EntryRec): string {
  return rec.id === undefined ? "(no id)" : rec.id.length > 8 ? rec.id.slice(0, 8) : rec.id;
}

export function formatTokens(n: unknown): string {
  if (typeof n !== "number" || !Number.isFinite(n)) return "?";
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** A one-line description of an entry: a coloured tag and the sanitized preview text, kept apart for fitting. */
export interface EntryLine {
  tag: string;
  /** Plain text; the caller cuts it to width, then colours it with `color`. */
  text: string;
  color: (s: string) => string;
}

export function describeEntry(rec: EntryRec, style: Style): EntryLine {
  const text = sanitizeLine(rec.text ?? "");
  const plain = (s: string) => s;
  switch (rec.type) {
    case "message":
      return describeMessage(rec, text, style);
    case "compaction":
      return { tag: style.special(`[compaction: ${formatTokens(rec.tokensBefore)} tokens]`), text, color: style.dim };
    case "branch_summary":
      return { tag: style.warning("[branch summary]"), text: rec.summaryEmpty ? "(empty)" : text, color: rec.summaryEmpty ? style.dim : plain };
    case "model_change":
      return { tag: style.dim(`[model: ${sanitizeLine(`${rec.provider ?? "?"}/${rec.model ?? "?"}`)}]`), text: "", color: plain };
    case "thinking_level_change":
      return { tag: style.dim(`[thinking: ${sanitizeLine(rec.thinkingLevel ?? "?")}]`), text: "", color: plain };
    case "custom":
      return { tag: style.dim(`[custom: ${sanitizeLine(rec.customType ?? "?")}]`), text: "", color: plain };
    case "custom_message":
      return { tag: style.special(`[${sanitizeLine(rec.customType ?? "custom")}]`), text, color: plain };
    case "label":
      return {
        tag: style.dim(`[label: ${rec.labelText ? sanitizeLine(rec.labelText) : "(cleared)"} → ${rec.targetId ? rec.targetId.slice(0, 8) : "?"}]`),
        text: "",
        color: plain,
      };
    case "session_info":
      return { tag: style.dim(`[title: ${rec.name ? sanitizeLine(rec.name) : "(empty)"}]`), text: "", color: plain };
    default:
      return { tag: style.warning(`[${sanitizeLine(rec.type || "no type")}]`), text, color: style.dim };
  }
}

function describeMessage(rec: EntryRec, text: string, style: Style): EntryLine {
  const plain = (s: string) => s;
  if (rec.hasMessage === false) return { tag: style.error("[message missing]"), text: "", color: plain };
  switch (rec.role) {
    case "user":
      return { tag: style.user("user:"), text, color: plain };
    case "assistant": {
      const tools = rec.toolNames && rec.toolNames.length > 0 ? `→ ${rec.toolNames.map(sanitizeLine).join(", ")}` : "";
      if (rec.stopReason === "aborted" && !text) return { tag: style.assistant("assistant:"), text: `(aborted) ${tools}`.trim(), color: style.warning };
      if (rec.stopReason === "error" || (rec.errorMessage && !text)) {
        return { tag: style.assistant("assistant:"), text: sanitizeLine(rec.errorMessage ?? "(error)"), color: style.error };
      }
      if (!text) return { tag: style.assistant("assistant:"), text: tools || "(no content)", color: style.tool };
      return { tag: style.assistant("assistant:"), text: tools ? `${text} ${tools}` : text, color: plain };
    }
    case "toolResult": {
      const name = `[${sanitizeLine(rec.toolName ?? "tool")}]`;
      return { tag: rec.isError ? style.error(`${name} error:`) : style.tool(name), text, color: style.tool };
    }
    case "bashExecution":
      return { tag: style.dim("[bash]:"), text, color: style.dim };
    case "custom":
      return { tag: style.special(`[${sanitizeLine(rec.customType ?? "custom")}]`), text, color: plain };
    default:
      return { tag: style.warning(`[${sanitizeLine(rec.role ?? "no role")}]`), text, color: style.dim };
  }
}

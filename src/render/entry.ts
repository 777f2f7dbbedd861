import type { EntryRec } from "../model/detail.js";
import type { ViewRec } from "../ops/view.js";
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
interface EntryLine {
  /** Plain tag text ("user:", "[compaction: 1.2k tokens]"), coloured with `tagColor`. */
  tag: string;
  tagColor: (s: string) => string;
  /** Plain text; the caller cuts it to width, then colours it with `color`. */
  text: string;
  color: (s: string) => string;
}

export function describeEntry(rec: ViewRec, style: Style): EntryLine {
  const text = sanitizeLine(rec.text ?? "");
  const plain = (s: string) => s;
  switch (rec.type) {
    case "message":
      return describeMessage(rec, text, style);
    case "compaction":
      return { tag: `[compaction: ${formatTokens(rec.tokensBefore)} tokens]`, tagColor: style.special, text, color: style.dim };
    case "branch_summary":
      return {
        tag: "[branch summary]",
        tagColor: style.warning,
        text: rec.summaryEmpty ? "(empty)" : text,
        color: rec.summaryEmpty ? style.dim : plain,
      };
    case "model_change":
      return { tag: `[model: ${sanitizeLine(`${rec.provider ?? "?"}/${rec.model ?? "?"}`)}]`, tagColor: style.dim, text: "", color: plain };
    case "thinking_level_change":
      return { tag: `[thinking: ${sanitizeLine(rec.thinkingLevel ?? "?")}]`, tagColor: style.dim, text: "", color: plain };
    case "custom":
      return { tag: `[custom: ${sanitizeLine(rec.customType ?? "?")}]`, tagColor: style.dim, text: "", color: plain };
    case "custom_message":
      return { tag: `[${sanitizeLine(rec.customType ?? "custom")}]`, tagColor: style.special, text, color: plain };
    case "label":
      return {
        tag: `[label: ${rec.labelText ? sanitizeLine(rec.labelText) : "(cleared)"} → ${rec.targetId ? rec.targetId.slice(0, 8) : "?"}]`,
        tagColor: style.dim,
        text: "",
        color: plain,
      };
    case "context_edit":
      return {
        tag: `[context ${rec.editRemoves ? "omit" : "replace"}: ${rec.targetId ? sanitizeLine(rec.targetId.slice(0, 8)) : "?"}]`,
        tagColor: style.dim,
        text,
        color: style.dim,
      };
    case "session_info":
      return { tag: `[title: ${rec.name ? sanitizeLine(rec.name) : "(empty)"}]`, tagColor: style.dim, text: "", color: plain };
    default:
      return { tag: `[${sanitizeLine(rec.type || "no type")}]`, tagColor: style.warning, text, color: style.dim };
  }
}

function describeMessage(rec: ViewRec, text: string, style: Style): EntryLine {
  const plain = (s: string) => s;
  if (rec.hasMessage === false) return { tag: "[message missing]", tagColor: style.error, text: "", color: plain };
  switch (rec.role) {
    case "user":
      return { tag: "user:", tagColor: style.user, text, color: plain };
    case "assistant": {
      const tools = rec.toolNames && rec.toolNames.length > 0 ? `→ ${rec.toolNames.map(sanitizeLine).join(", ")}` : "";
      if (rec.stopReason === "aborted" && !text)
        return { tag: "assistant:", tagColor: style.assistant, text: `(aborted) ${tools}`.trim(), color: style.warning };
      if (rec.stopReason === "error" || (rec.errorMessage && !text)) {
        return { tag: "assistant:", tagColor: style.assistant, text: sanitizeLine(rec.errorMessage ?? "(error)"), color: style.error };
      }
      if (!text) return { tag: "assistant:", tagColor: style.assistant, text: tools || "(no content)", color: style.tool };
      return { tag: "assistant:", tagColor: style.assistant, text: tools ? `${text} ${tools}` : text, color: plain };
    }
    case "toolResult": {
      const name = `[${sanitizeLine(rec.toolName ?? "tool")}]`;
      return rec.isError
        ? { tag: `${name} error:`, tagColor: style.error, text, color: style.tool }
        : { tag: name, tagColor: style.tool, text, color: style.tool };
    }
    case "bashExecution":
      return { tag: "[bash]:", tagColor: style.dim, text, color: style.dim };
    case "custom":
      return { tag: `[${sanitizeLine(rec.customType ?? "custom")}]`, tagColor: style.special, text, color: plain };
    case "system":
      return { tag: "[system]", tagColor: style.dim, text, color: style.dim };
    default:
      return { tag: `[${sanitizeLine(rec.role ?? "no role")}]`, tagColor: style.warning, text, color: style.dim };
  }
}

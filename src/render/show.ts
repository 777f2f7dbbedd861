import type { ShowReport } from "../reports/show.js";
import type { Diagnostic } from "../model/types.js";
import { fmtTime } from "./info-format.js";
import { toJson, toPrettyJson } from "./json.js";
import { sanitize, sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

export function showJson(r: ShowReport): string {
  return `${toJson(r)}\n`;
}

/** `pisess show FILE @N --json` for a line the loader skipped (no entry there): the line and its diagnostics. */
export interface ShowSkippedJson {
  file: string;
  line: number;
  reason: string;
  /** The line as written; null when it cannot be read back (stdin keeps only entries). */
  text: string | null;
  diagnostics: Diagnostic[];
}

export function showSkippedJson(skipped: Omit<ShowSkippedJson, "diagnostics">, diagnostics: Diagnostic[]): string {
  const o: ShowSkippedJson = { ...skipped, diagnostics };
  return `${JSON.stringify(o)}\n`;
}

type ShowRef = ShowReport["children"][number];

const refText = (r: ShowRef) => `${r.id === null ? "(no id)" : sanitizeLine(r.id)} @${r.line}`;

export function showText(r: ShowReport, style: Style): string {
  const out: string[] = [];
  const kv = (k: string, v: string) => out.push(`${style.bold(k.padEnd(10))}${v}`);
  kv("line", String(r.line));
  kv("id", r.id === null ? "(no id)" : sanitizeLine(r.id));
  kv("type", sanitizeLine(r.type || "(none)") + (r.role !== null ? ` / ${sanitizeLine(r.role)}` : ""));
  kv("time", fmtTime(r.timestamp));
  kv("parent", r.parent ? refText(r.parent) : r.parentId !== null ? style.warning(`${sanitizeLine(r.parentId)} (missing)`) : "none (root)");
  kv("children", r.children.length === 0 ? "none" : r.children.map(refText).join(", "));
  if (r.label !== null) kv("label", style.label(sanitizeLine(r.label)));
  const targetId = typeof r.entry.targetId === "string" ? r.entry.targetId : null;
  if (r.type === "label" || r.type === "context_edit") {
    kv("target", r.target ? refText(r.target) : style.warning(`${targetId === null ? "none" : sanitizeLine(targetId)} (missing)`));
  }
  if (r.editedBy.length > 0) kv("edited by", r.editedBy.map(refText).join(", "));
  out.push("");
  out.push(sanitize(toPrettyJson(r.entry) as string));
  return `${out.join("\n")}\n`;
}

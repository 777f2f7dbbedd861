import type { LineageCopy, LineageReport } from "../reports/lineage.js";
import { basename } from "node:path";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

export function lineageJson(r: LineageReport): string {
  return `${JSON.stringify(r)}\n`;
}

export function lineageNdjson(r: LineageReport): string {
  const lines = [
    ...r.ancestors.map((a) => JSON.stringify({ relation: "ancestor", ...a })),
    ...r.forks.map((f) => JSON.stringify({ relation: "fork", ...f })),
  ];
  return lines.map((l) => `${l}\n`).join("");
}

/** `of`: the parent's name, when it is not the file the line above names (a fork of a fork). */
function copyNote(c: LineageCopy | null, style: Style, of?: string): string {
  if (c === null) return "";
  if (c.entries === 0) return style.dim("  (nothing copied)");
  const at = c.forkPoint ? ` at @${c.forkPoint.line}${of !== undefined ? ` of ${sanitizeLine(basename(of))}` : ""}` : "";
  return style.dim(`  (forked${at}, ${c.entries} entr${c.entries === 1 ? "y" : "ies"} copied)`);
}

export function lineageText(r: LineageReport, style: Style): string {
  const out: string[] = [];
  out.push(`${style.bold("session")}  ${sanitizeLine(r.file)}${r.id !== null ? `  (${sanitizeLine(r.id)})` : ""}`);
  out.push(style.bold("ancestors"));
  if (r.ancestors.length === 0) out.push("  none (not a fork)");
  for (const a of r.ancestors) {
    const state = !a.exists ? style.error("MISSING") : a.id === null ? style.warning("no valid header") : sanitizeLine(a.id);
    out.push(
      `  ${"↑".repeat(a.generation)} ${sanitizeLine(a.path)}  ${state}${a.legacyBranchedFrom ? style.dim(" (legacy branchedFrom)") : ""}${copyNote(a.copied, style)}`,
    );
  }
  if (r.cycle) out.push(style.error("  the chain loops back to a file already on it"));
  out.push(style.bold("forks"));
  if (r.forks.length === 0) out.push("  none found");
  for (const f of r.forks) {
    out.push(
      `  ${"↓".repeat(f.generation)} ${sanitizeLine(f.path)}  ${sanitizeLine(f.id)}${f.legacyBranchedFrom ? style.dim(" (legacy branchedFrom)") : ""}${copyNote(f.copied, style, f.generation > 1 ? f.parent : undefined)}`,
    );
  }
  if (r.missing.length > 0) out.push(style.warning(`${r.missing.length} missing link${r.missing.length === 1 ? "" : "s"}`));
  return `${out.join("\n")}\n`;
}

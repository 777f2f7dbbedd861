import type { BloatData } from "../ops/bloat.js";
import { makeTable, tableText } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

const BAR = 24;

function bar(part: number, whole: number): string {
  if (whole <= 0) return "";
  const eighths = Math.round((part / whole) * BAR * 8);
  const full = Math.floor(eighths / 8);
  const rest = eighths % 8;
  return "█".repeat(full) + (rest > 0 ? (" ▏▎▍▌▋▊▉"[rest] ?? "") : "");
}

function pct(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : "-";
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

function section(title: string, head: string[], rows: (string | number)[][], style: Style, aligns?: ("left" | "right")[]): string {
  const t = makeTable(
    head.map((h) => style.bold(h)),
    aligns ?? head.map((_, i) => (i === 0 || i === head.length - 1 ? "left" : "right")),
  );
  for (const r of rows) t.push(r.map(String));
  return `${style.bold(title)}\n${tableText(t)}\n`;
}

/** `pisess bloat` as text: one table with bars per breakdown, then the largest entries and blocks. */
export function bloatText(d: BloatData, style: Style): string {
  const total = d.bytes;
  const row = (name: string, bytes: number, extra: (string | number)[] = []) => [
    sanitizeLine(name),
    fmtBytes(bytes),
    pct(bytes, total),
    ...extra,
    bar(bytes, total),
  ];
  const out: string[] = [];
  out.push(
    `${sanitizeLine(d.file)}: ${fmtBytes(total)} (${total} bytes), leaf line ${d.leaf.line}${d.leaf.id ? ` (${sanitizeLine(d.leaf.id)})` : ""}\n`,
  );
  out.push(
    section(
      "By kind",
      ["kind", "bytes", "share", ""],
      d.byKind.map((r) => row(r.kind, r.bytes)),
      style,
    ),
  );
  out.push(
    section(
      "By place",
      ["place", "bytes", "share", "entries", "~tokens", ""],
      d.byPlace.map((r) => row(r.place, r.bytes, [r.entries, r.tokens])),
      style,
    ),
  );
  out.push(
    section(
      "By entry type",
      ["type", "bytes", "share", "entries", ""],
      d.byType.map((r) => row(r.type, r.bytes, [r.entries])),
      style,
    ),
  );
  if (d.byRole.length > 0)
    out.push(
      section(
        "Message entries by role",
        ["role", "bytes", "share", "entries", ""],
        d.byRole.map((r) => row(r.role, r.bytes, [r.entries])),
        style,
      ),
    );
  if (d.toolOutputByTool.length > 0)
    out.push(
      section(
        "Tool output by tool",
        ["tool", "bytes", "share", "results", ""],
        d.toolOutputByTool.map((r) => row(r.tool, r.bytes, [r.results])),
        style,
      ),
    );
  if (d.customByType.length > 0)
    out.push(
      section(
        "Custom entries by customType",
        ["customType", "bytes", "share", "entries", ""],
        d.customByType.map((r) => row(r.customType, r.bytes, [r.entries])),
        style,
      ),
    );
  if (d.images.count > 0)
    out.push(
      section(
        "Images by MIME type",
        ["mimeType", "base64", "share", "count", "decoded", ""],
        d.images.byMime.map((r) => row(r.mimeType, r.base64Bytes, [r.count, fmtBytes(r.decodedBytes)])),
        style,
      ),
    );
  if (d.top.length > 0)
    out.push(
      section(
        `Largest ${d.top.length} entries`,
        ["line", "id", "type", "tool", "bytes", "place"],
        d.top.map((e) => [
          e.line,
          sanitizeLine(e.id ?? "-"),
          e.role ? `message:${e.role}` : e.type,
          sanitizeLine(e.tool ?? ""),
          fmtBytes(e.bytes),
          e.place,
        ]),
        style,
        ["right", "left", "left", "left", "right", "left"],
      ),
    );
  if (d.topBlocks.length > 0)
    out.push(
      section(
        `Largest ${d.topBlocks.length} blocks`,
        ["line", "id", "kind", "tool", "bytes", "mimeType"],
        d.topBlocks.map((b) => [
          b.line,
          sanitizeLine(b.id ?? "-"),
          b.kind,
          sanitizeLine(b.tool ?? ""),
          fmtBytes(b.bytes),
          sanitizeLine(b.mimeType ?? ""),
        ]),
        style,
        ["right", "left", "left", "left", "right", "left"],
      ),
    );
  const f = d.fork;
  out.push(
    `${style.bold("What it means")}\n` +
      `  A /fork of the active path would leave behind ${fmtBytes(f.leftBehindBytes)} (${pct(f.leftBehindBytes, total)}, ~${f.leftBehindTokens} tokens) on other branches and keep ${fmtBytes(f.keptBytes)}.\n` +
      `  Images: ${d.images.count}, ${fmtBytes(d.images.base64Bytes)} of base64 (${pct(d.images.base64Bytes, total)}), ${fmtBytes(d.images.decodedBytes)} decoded, ~${d.images.tokens} tokens.\n` +
      (d.forkParent ? `  Copied from the fork parent ${sanitizeLine(d.forkParent)}: see the fork-copy place.\n` : ""),
  );
  return out.join("\n");
}

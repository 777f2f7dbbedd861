import type { ViewRec } from "../ops/view.js";
import type { Session } from "../model/session.js";
import type { EntryRec } from "../model/detail.js";
import type { ContextDiff, ContextItem, ContextSide, DiffSide, Lineage, PathDiff } from "../ops/diff.js";
import type { EntryStats } from "../ops/stats.js";
import { capped } from "./diff-json.js";
import { describeEntry, shortId } from "./entry.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { boxedTable, boxedTableWrapped } from "./text-table.js";
import { fitWidth, stringWidth } from "./width.js";
import { CHUNK_CHARS } from "./chunks.js";

export interface DiffTextOptions {
  style: Style;
  /** Terminal columns; undefined for no cutting. */
  width: number | undefined;
  /** Two columns instead of -/+ lines (the caller checks that the width allows it). */
  sideBySide: boolean;
  /** For two files: the names to show per side. */
  files?: { left: string; right: string };
  lineage?: Lineage;
  /** List at most this many divergent entries (or messages) per side, then how many more (diff --leaves). */
  maxEntries?: number;
}

/** Narrowest width for side-by-side output; below it, unified output is used. */
export const SIDE_BY_SIDE_MIN = 100;
/** Width assumed for side-by-side output when the terminal width is unknown (a pipe). */
const SIDE_BY_SIDE_DEFAULT = 160;

const FILE_LIST_MAX = 8;

function groupDigits(n: number): string {
  const neg = n < 0;
  const s = String(Math.round(Math.abs(n)));
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ",";
    out += s[i];
  }
  return (neg ? "-" : "") + out;
}

function formatDuration(ms: number | null): string {
  if (ms === null) return "-";
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (x: number) => String(x).padStart(2, "0");
  if (h > 0) return `${h}h ${two(m)}m ${two(s)}s`;
  if (m > 0) return `${m}m ${two(s)}s`;
  return `${s}s`;
}

function fileList(files: string[] | undefined): string {
  if (!files || files.length === 0) return "-";
  const shown = files.slice(0, FILE_LIST_MAX).map((f) => fitWidth(sanitizeLine(f), 48));
  if (files.length > FILE_LIST_MAX) shown.push(`… ${files.length - FILE_LIST_MAX} more`);
  return shown.join("\n");
}

function toolList(s: EntryStats): string {
  const parts = Object.entries(s.toolCalls).map(([name, n]) => `${sanitizeLine(name)} ${n}`);
  if (parts.length === 0) return "0";
  // A few per line, so that a long list does not widen the table without end.
  const lines: string[] = [];
  for (let i = 0; i < parts.length; i += 3) lines.push(parts.slice(i, i + 3).join(", "));
  return `${s.toolCallCount}: ${lines.join(",\n")}`;
}

/** The per-side summary table (cli-table3), colour only in the header; wrapped to fit `width` columns when given. */
function statsTable(
  left: EntryStats,
  right: EntryStats,
  style: Style,
  heads: [string, string] = ["left", "right"],
  width?: number,
): string {
  const natural = buildStatsTable(left, right, style, heads, undefined);
  if (width === undefined || natural.split("\n").reduce((w, l) => Math.max(w, stringWidth(stripAnsi(l))), -Infinity) <= width)
    return natural;
  return buildStatsTable(left, right, style, heads, width);
}

function buildStatsTable(left: EntryStats, right: EntryStats, style: Style, heads: [string, string], width: number | undefined): string {
  // Column widths count cli-table3's padding (one space each side); four borders join three columns.
  const first = "assistant turns".length + 2;
  const side = width === undefined ? 0 : Math.max(8, Math.floor((width - 4 - first) / 2));
  const head = ["", style.bold(heads[0]), style.bold(heads[1])];
  const rows: string[][] = [];
  const row = (name: string, f: (s: EntryStats) => string) => rows.push([name, f(left), f(right)]);
  row("entries", (s) => groupDigits(s.entries));
  row("user turns", (s) => groupDigits(s.userTurns));
  row("assistant turns", (s) => groupDigits(s.assistantTurns));
  row("tool calls", toolList);
  row("errors", (s) => (s.errors > 0 ? style.error(groupDigits(s.errors)) : "0"));
  row("tokens in", (s) => groupDigits(s.tokens.input));
  row("tokens out", (s) => groupDigits(s.tokens.output));
  row("cache read", (s) => groupDigits(s.tokens.cacheRead));
  row("cache write", (s) => groupDigits(s.tokens.cacheWrite));
  row("cost", (s) => `$${s.cost.toFixed(4)}`);
  row("models", (s) => (s.models.length > 0 ? s.models.map((m) => fitWidth(sanitizeLine(m), 48)).join("\n") : "-"));
  row("files read", (s) => fileList(s.files?.read));
  row("files changed", (s) => fileList(s.files?.changed));
  row("duration", (s) => formatDuration(s.durationMs));
  return width === undefined ? boxedTable(head, rows) : boxedTableWrapped(head, rows, [first, side, side]);
}

function refText(session: Session, rec: EntryRec | null, style: Style): string {
  if (!rec) return style.dim("(no entries)");
  const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
  return `@${rec.line} ${style.bold(shortId(rec))}${label !== undefined ? ` ${style.label(`[${sanitizeLine(label)}]`)}` : ""}`;
}

/** One entry as a line: `@LINE ID tag text`, the text cut to `width` columns when given. */
function entryText(rec: ViewRec, style: Style, width: number | undefined): string {
  const d = describeEntry(rec, style);
  const head = `@${rec.line} ${shortId(rec)} `;
  let text = d.text;
  if (width !== undefined) text = fitWidth(text, width - stringWidth(head) - stringWidth(stripAnsi(d.tag)) - 1);
  return `${style.dim(`@${rec.line}`)} ${shortId(rec)} ${d.tag}${text ? ` ${d.color(text)}` : ""}`;
}

function stripAnsi(s: string): string {
  return s.replace(/\u001b\[[0-9;]*m/g, "");
}

function lineageText(l: Lineage, files: { left: string; right: string }): string {
  const name = (s: string) => sanitizeLine(s);
  const via = (side: "left" | "right") => {
    const link = side === "left" ? l.leftParent : l.rightParent;
    return link ? `header ${link.field}${l.matchedBy === "basename" ? ", matched by file name" : ""}` : "";
  };
  switch (l.relation) {
    case "left-forked-from-right":
      return `${name(files.left)} was forked from ${name(files.right)} (${via("left")})`;
    case "right-forked-from-left":
      return `${name(files.right)} was forked from ${name(files.left)} (${via("right")})`;
    case "siblings":
      return `both were forked from ${name(l.leftParent?.value ?? "?")}`;
    default:
      return "neither header names the other file";
  }
}

const ALIGN_TEXT = { "same-file": "same file", id: "entry ids", content: "content (role and text; the files share no ids)" } as const;

function headerLines(
  d: {
    left: { session: Session; leaf: EntryRec | null };
    right: { session: Session; leaf: EntryRec | null };
    align: keyof typeof ALIGN_TEXT;
  },
  opts: DiffTextOptions,
): string[] {
  const { style } = opts;
  const out: string[] = [];
  const f = opts.files;
  const l = d.left;
  const r = d.right;
  const lf = f ? `${sanitizeLine(f.left)} ` : "";
  const rf = f ? `${sanitizeLine(f.right)} ` : "";
  out.push(`${style.bold("left: ")} ${lf}${refText(l.session, l.leaf, style)}`);
  out.push(`${style.bold("right:")} ${rf}${refText(r.session, r.leaf, style)}`);
  if (f && opts.lineage) out.push(`${style.bold("lineage:")} ${lineageText(opts.lineage, f)}`);
  if (d.align !== "same-file") out.push(`${style.bold("aligned by:")} ${ALIGN_TEXT[d.align]}`);
  return out;
}

/** `pisess diff` text for two paths: header, fork point, stats table, divergent entries. */
export function* pathDiffText(d: PathDiff, opts: DiffTextOptions): Generator<string> {
  const { style } = opts;
  for (const l of headerLines(d, opts)) yield `${l}\n`;
  const base = d.left.base;
  const rightBase = d.right.base;
  if (base) {
    const other = d.align !== "same-file" && rightBase ? ` ${style.dim(`(right @${rightBase.line})`)}` : "";
    yield `${style.bold("fork point:")} ${entryText(base, style, opts.width === undefined ? undefined : opts.width - 12 - stringWidth(stripAnsi(other)))}${other}\n`;
  } else {
    yield `${style.bold("fork point:")} none (the paths share no entries)\n`;
  }
  if (d.same) {
    yield "the two paths are the same\n";
    return;
  }
  yield `${statsTable(
    d.left.stats,
    d.right.stats,
    style,
    [`left (${d.left.count} after fork)`, `right (${d.right.count} after fork)`],
    opts.width,
  )}\n`;
  yield* opts.sideBySide ? sideBySide(d.left, d.right, opts) : unified(d, opts);
}

function* unified(d: PathDiff, opts: DiffTextOptions): Generator<string> {
  const { style } = opts;
  const w = opts.width;
  let li = 0;
  let ri = 0;
  if (d.reask) {
    yield `${style.bold(`re-asked prompt${d.reask.sameText ? " (same text)" : ""}:`)}\n`;
    yield `${style.error("- ") + entryText(d.reask.left, style, w === undefined ? undefined : w - 2)}\n`;
    yield `${style.assistant("+ ") + entryText(d.reask.right, style, w === undefined ? undefined : w - 2)}\n`;
    li = ri = 1;
  }
  const block = function* (side: DiffSide, from: number, head: string, mark: string, colour: (s: string) => string): Generator<string> {
    const rest = side.count - from;
    yield `${style.bold(`${head} ${rest === 0 ? "nothing" : `${rest} ${from > 0 ? "more " : ""}entr${rest === 1 ? "y" : "ies"}`}`)}\n`;
    const { shown, more } = capped(side.divergent, side.count, opts.maxEntries);
    let buf = "";
    for (let i = from; i < shown.length; i++) {
      buf += `${colour(mark) + entryText(shown[i] as ViewRec, style, w === undefined ? undefined : w - 2)}\n`;
      if (buf.length > CHUNK_CHARS) {
        yield buf;
        buf = "";
      }
    }
    if (more > 0 && rest > 0) buf += `${moreLine(Math.min(more, rest), style)}\n`;
    if (buf) yield buf;
  };
  yield* block(d.left, li, "--- left:", "- ", style.error);
  yield* block(d.right, ri, "+++ right:", "+ ", style.assistant);
}

/** The line after a capped list. */
function moreLine(more: number, style: Style): string {
  return style.dim(`… and ${more} more (--all-entries lists them)`);
}

function pad(s: string, width: number): string {
  const w = stringWidth(stripAnsi(s));
  return w >= width ? s : s + " ".repeat(width - w);
}

function* sideBySide(left: DiffSide, right: DiffSide, opts: DiffTextOptions): Generator<string> {
  const { style } = opts;
  const width = opts.width ?? SIDE_BY_SIDE_DEFAULT;
  const col = Math.floor((width - 3) / 2);
  yield `${pad(style.bold(`left: ${left.count} entries`), col)} │ ${style.bold(`right: ${right.count} entries`)}\n`;
  const l = capped(left.divergent, left.count, opts.maxEntries);
  const r = capped(right.divergent, right.count, opts.maxEntries);
  const n = Math.max(l.shown.length, r.shown.length);
  let buf = "";
  for (let i = 0; i < n; i++) {
    const a = l.shown[i];
    const b = r.shown[i];
    const la = a ? entryText(a, style, col) : "";
    const lb = b ? entryText(b, style, col) : "";
    buf += `${(`${pad(la, col)} │ ${lb}`).trimEnd()}\n`;
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  if (l.more > 0 || r.more > 0) {
    const la = l.more > 0 ? moreLine(l.more, style) : "";
    const lb = r.more > 0 ? moreLine(r.more, style) : "";
    buf += `${(`${pad(la, col)} │ ${lb}`).trimEnd()}\n`;
  }
  if (buf) yield buf;
}

// ---------------------------------------------------------------------------------------------------------------
// --context

function contextSummary(side: ContextSide, style: Style): string {
  const c = side.context;
  const parts = [`${c.messages.length} message${c.messages.length === 1 ? "" : "s"}`, `thinking ${sanitizeLine(c.thinkingLevel)}`];
  parts.push(c.model ? `model ${sanitizeLine(`${c.model.provider}/${c.model.modelId}`)}` : "no model");
  if (c.compaction) parts.push(`compaction @${c.compaction.line}${c.keptFrom ? ` keeping from @${c.keptFrom.line}` : " keeping nothing"}`);
  return style.dim(parts.join(", "));
}

function itemText(it: ContextItem, style: Style, width: number | undefined, marker: string): string {
  const src = it.source ? `@${it.source.line} ${shortId(it.source)}` : "(no source)";
  const head = `${marker}#${it.index} ${src} ${it.role}: `;
  let text = sanitizeLine(it.preview);
  if (width !== undefined) text = fitWidth(text, width - stringWidth(head));
  const role =
    it.role === "user"
      ? style.user(`${sanitizeLine(it.role)}:`)
      : it.role === "assistant"
        ? style.assistant(`${sanitizeLine(it.role)}:`)
        : style.special(`${sanitizeLine(it.role)}:`);
  return `#${it.index} ${style.dim(src)} ${role}${text ? ` ${text}` : ""}`;
}

/** `pisess diff --context` text: what the model saw at each leaf. */
export function* contextDiffText(d: ContextDiff, opts: DiffTextOptions): Generator<string> {
  const { style } = opts;
  const w = opts.width;
  for (const l of headerLines(d, opts)) yield `${l}\n`;
  yield `${style.bold("left context: ")} ${contextSummary(d.left, style)}\n`;
  yield `${style.bold("right context:")} ${contextSummary(d.right, style)}\n`;
  const base = d.left.base;
  if (base) {
    const head = `common: the first ${base.index + 1} message${base.index === 0 ? "" : "s"}, through `;
    yield `${style.bold("common:")}${head.slice("common:".length)}${itemText(base, style, w, head)}\n`;
  } else yield `${style.bold("common:")} no leading messages in common\n`;
  if (d.same) {
    yield "the two contexts are the same\n";
    return;
  }
  yield `${statsTable(
    d.left.stats,
    d.right.stats,
    style,
    [`left (${d.left.divergent.length} messages)`, `right (${d.right.divergent.length} messages)`],
    opts.width,
  )}\n`;
  const block = function* (side: ContextSide, head: string, mark: string, colour: (s: string) => string): Generator<string> {
    const n = side.divergent.length;
    const shared = side.divergent.filter((i) => i.shared).length;
    yield `${style.bold(`${head} ${n} message${n === 1 ? "" : "s"}${shared > 0 ? ` (= ${shared} also in the other context)` : ""}`)}\n`;
    const { shown, more } = capped(side.divergent, n, opts.maxEntries);
    let buf = "";
    for (const it of shown) {
      const m = it.shared ? "= " : mark;
      buf += `${(it.shared ? style.dim(m) : colour(m)) + itemText(it, style, w, m)}\n`;
      if (buf.length > CHUNK_CHARS) {
        yield buf;
        buf = "";
      }
    }
    if (more > 0) buf += `${moreLine(more, style)}\n`;
    if (buf) yield buf;
  };
  yield* block(d.left, "--- left:", "- ", style.error);
  yield* block(d.right, "+++ right:", "+ ", style.assistant);
}

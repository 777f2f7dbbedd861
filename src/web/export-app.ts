/// <reference lib="dom" />
/**
 * The page `pisess export --format html` writes: bundled by scripts/build-web.mjs with the same ops modules the CLI
 * runs (tree, view, path, context and its facts, llm) and the display model of `pisess context`
 * (render/context-display.ts), so the page holds no second copy of pi's rules. Session text is data:
 * it reaches the DOM through textContent, or through marked with raw HTML escaped and links and images filtered.
 */
import { Marked, type Tokens } from "marked";
import { readEntry, type Session } from "../model/session.js";
import type { EntryRec, Rec } from "../model/detail.js";
import { budgetParts, estimateTokens } from "../ops/budget.js";
import { billedTurnAfter } from "../ops/budget-path.js";
import { buildContext, type SessionContext } from "../ops/context.js";
import { contextFacts } from "../ops/context-facts.js";
import { convertToLlmMapped } from "../ops/llm.js";
import { pathTo } from "../ops/path.js";
import { buildTree } from "../ops/tree.js";
import { buildView, FILTER_MODES, layoutRows, TEXT_LEVELS, type FilterMode, type Row, type ViewNode } from "../ops/view.js";
import { partLabel } from "../render/budget-labels.js";
import { describeContext, type DisplayMessage, type Part } from "../render/context-display.js";
import { describeEntry } from "../render/entry.js";
import { sanitize, sanitizeLine } from "../render/sanitize.js";
import type { Style } from "../render/style.js";
import type { HtmlPayload } from "../reports/export.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const ROW_HEIGHT = 22;
const CHUNK = 100;
/** Longer texts are shown as plain text: Markdown over megabytes would stall the page. */
const MARKDOWN_MAX = 200_000;
const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp)$/;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// ---- Markdown: marked, with every way out of "text" closed.
const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML is shown as the text it is; a block keeps its lines.
    html(token: Tokens.HTML | Tokens.Tag): string {
      return "block" in token && token.block ? `<div class="raw-html">${escapeHtml(token.text)}</div>` : escapeHtml(token.text);
    },
    link(token: Tokens.Link): string {
      const inner = this.parser.parseInline(token.tokens);
      if (/^(https?:|mailto:)/i.test(token.href))
        return `<a href="${escapeHtml(token.href)}" rel="noopener noreferrer nofollow" target="_blank">${inner}</a>`;
      return `${inner} <code>${escapeHtml(token.href)}</code>`;
    },
    image(token: Tokens.Image): string {
      if (/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(token.href))
        return `<img src="${escapeHtml(token.href)}" alt="${escapeHtml(token.text)}">`;
      return `<code>${escapeHtml(`![${token.text}](${token.href})`)}</code>`;
    },
  },
});

/**
 * A summary as convertToLlm wraps it (pi's COMPACTION_PREFIX / BRANCH_PREFIX: `<summary>` on a line of its own,
 * `</summary>` at the end): the prefix, the summary and the tags apart. As one Markdown text the `<summary>` line
 * would open an HTML block that swallows the summary up to its first blank line, shown raw.
 */
const SUMMARY_WRAP = /^([\s\S]*?)^<summary>\n([\s\S]*?)\n?<\/summary>\s*$/m;

function llmText(text: string): HTMLElement[] {
  const m = SUMMARY_WRAP.exec(text);
  if (!m) return [markdown(text)];
  return [markdown(m[1] as string), el("div", "text tag", "<summary>"), markdown(m[2] as string), el("div", "text tag", "</summary>")];
}

function markdown(text: string): HTMLElement {
  const t = sanitize(text);
  if (t.length > MARKDOWN_MAX) return el("pre", "text plain", t);
  const div = el("div", "text md");
  div.innerHTML = marked.parse(t) as string;
  return div;
}

// ---- The session, rebuilt from the embedded index and lines.
const payload = JSON.parse((document.getElementById("pisess-data") as HTMLElement).textContent ?? "{}") as HtmlPayload;
const recs = payload.recs;
// JSON has no NaN: an invalid timestamp's time comes back as null.
for (const r of recs) if (typeof r.time !== "number") r.time = Number.NaN;
const session: Session<"full"> = {
  file: payload.file,
  path: undefined,
  header: payload.header,
  headerLine: payload.headerLine,
  version: payload.version,
  entries: recs,
  byId: new Map(payload.byId.map(([id, i]) => [id, recs[i] as Rec<"full">])),
  labels: new Map(payload.labels),
  sessionName: payload.sessionName ?? undefined,
  defaultLeaf: payload.defaultLeaf === null ? null : (recs[payload.defaultLeaf] ?? null),
  diagnostics: [],
  facts: { bom: false, bytes: 0, lines: 0, finalNewline: true, crlfLines: 0 },
  skipped: [],
  store: { rawLine: (rec) => payload.lines[rec.index] as string, close: () => {} },
};
const tree = buildTree(session);
const byLine = new Map(recs.map((r) => [r.line, r]));
const plain = (s: string) => s;
const style: Style = {
  enabled: false,
  palette: new Set(),
  dim: plain,
  bold: plain,
  accent: plain,
  user: plain,
  assistant: plain,
  tool: plain,
  error: plain,
  warning: plain,
  info: plain,
  label: plain,
  special: plain,
};

let leaf: EntryRec = recs[payload.leaf] as EntryRec;
let filter: FilterMode = "default";
let words: string[] = [];
let llmView = false;
const folded = new Set<EntryRec>();

function refOf(rec: EntryRec): string {
  return rec.id !== undefined && session.byId.get(rec.id) === rec ? rec.id : `@${rec.line}`;
}

function recOfRef(ref: string): EntryRec | undefined {
  if (ref.startsWith("@")) return byLine.get(Number(ref.slice(1)));
  return session.byId.get(ref);
}

function select(rec: EntryRec): void {
  const hash = `#leaf=${encodeURIComponent(refOf(rec))}`;
  if (location.hash === hash) return;
  location.hash = hash;
}

function fromHash(): void {
  const m = /^#leaf=(.*)$/.exec(location.hash);
  const rec = m ? recOfRef(decodeURIComponent(m[1] as string)) : undefined;
  leaf = rec ?? (recs[payload.leaf] as EntryRec);
  renderTree();
  revealLeaf();
  renderContext();
  renderContextChart();
}

// ---- Header: facts and charts.
/**
 * The facts shown at once; the others wait in a folded <details>, so the header leaves room for the session.
 * "redacted" (export --redact) is in view: whoever opens a shared page sees that it was masked.
 */
const KEY_FACTS: ReadonlySet<string> = new Set(["name", "models", "cost", "leaves", "problems", "redacted"]);

function factsTable(rows: [string, string][]): HTMLTableElement {
  const table = el("table", "facts");
  for (const [k, v] of rows) {
    const tr = el("tr");
    tr.append(el("th", "", k), el("td", "", v));
    table.append(tr);
  }
  return table;
}

function renderFacts(): void {
  const box = document.getElementById("facts") as HTMLElement;
  const key = payload.facts.filter(([k]) => KEY_FACTS.has(k));
  const rest = payload.facts.filter(([k]) => !KEY_FACTS.has(k));
  box.append(factsTable(key));
  if (rest.length > 0) {
    const more = el("details", "more-facts");
    more.append(el("summary", "", `${rest.length} more facts`), factsTable(rest));
    box.append(more);
  }
  if (payload.imagesDropped) box.append(el("p", "note", "images left out (--no-images)"));
}

const SVG = "http://www.w3.org/2000/svg";
function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n));
}

/** Context size per assistant turn on the selected path: the usage each turn reports; compactions show as drops. */
function renderContextChart(): void {
  const box = document.getElementById("chart-context") as HTMLElement;
  box.replaceChildren();
  const r = pathTo(session, leaf);
  if (!r.ok) return;
  const points: { x: number; y: number; rec: EntryRec }[] = [];
  const marks: number[] = [];
  for (const rec of r.path) {
    if (rec.type === "compaction") marks.push(points.length);
    const u = rec.usage;
    if (rec.type === "message" && rec.role === "assistant" && u) {
      points.push({ x: points.length, y: u.totalTokens || u.input + u.output + u.cacheRead + u.cacheWrite, rec });
    }
  }
  const W = 460;
  const H = 120;
  const s = svg("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img" });
  s.append(Object.assign(svg("title", {}), { textContent: "context size per assistant turn (tokens)" }));
  const max = points.reduce((m, p) => Math.max(m, p.y), 1);
  const n = Math.max(1, points.length - 1);
  const X = (i: number) => 30 + (i / n) * (W - 40);
  const Y = (v: number) => H - 15 - (v / max) * (H - 30);
  for (const m of marks) s.append(svg("line", { x1: X(m), x2: X(m), y1: 5, y2: H - 15, class: "compaction" }));
  s.append(svg("polyline", { points: points.map((p) => `${X(p.x)},${Y(p.y)}`).join(" "), class: "size" }));
  const label = svg("text", { x: 2, y: 12, class: "axis" });
  label.textContent = `${fmt(max)} tokens · ${points.length} turns · ${marks.length} compactions`;
  s.append(label);
  box.append(s);
}

/** Tokens and cost per leaf: one bar per leaf, the selected leaf highlighted; clicking a bar selects the leaf. */
function renderLeafChart(): void {
  const box = document.getElementById("chart-leaves") as HTMLElement;
  const leaves = payload.leaves;
  const W = 460;
  const bar = 14;
  const H = Math.max(30, leaves.length * (bar + 4) + 20);
  const s = svg("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img" });
  s.append(Object.assign(svg("title", {}), { textContent: "tokens and cost per leaf" }));
  const max = leaves.reduce((m, l) => Math.max(m, l.input + l.output + l.cacheRead + l.cacheWrite), 1e-9);
  leaves.forEach((l, i) => {
    const rec = recs[l.index] as EntryRec;
    const tokens = l.input + l.output + l.cacheRead + l.cacheWrite;
    const y = 4 + i * (bar + 4);
    const g = svg("g", { class: "leafbar", "data-index": l.index });
    g.append(svg("rect", { x: 90, y, width: Math.max(1, (tokens / max) * (W - 200)), height: bar }));
    const t = svg("text", { x: 2, y: y + bar - 3 });
    t.textContent = `line ${rec.line}`;
    const c = svg("text", { x: 95 + (tokens / max) * (W - 200), y: y + bar - 3 });
    c.textContent = `${fmt(tokens)} · $${l.cost.toFixed(4)}`;
    g.append(t, c);
    g.addEventListener("click", () => select(rec));
    s.append(g);
  });
  box.append(s);
}

// ---- Tree pane: pi's /tree view (same ops), laid out as rows, drawn lazily (only the rows in sight).
let rows: Row[] = [];
let onPath = new Set<EntryRec>();

/**
 * The branch levels a row is nested under: one per connector drawn above it (each leaves a gutter to its
 * descendants) and its own. Not its indentation: pi indents the first generation after a branch point once more, so
 * a level can take two columns.
 */
function levelsOf(row: Row): number {
  return row.gutters.length + (row.connector === "none" ? 0 : 1);
}

/**
 * The gutter and connector columns of a row. Past TEXT_LEVELS branch levels (as the text `tree` and docs/commands/tree.md say)
 * only the innermost TEXT_LEVELS levels are drawn, after `LEVELS⋯ `: a long chain of branches stays readable.
 */
function prefixOf(row: Row): string {
  const levels = levelsOf(row);
  const cut = levels - TEXT_LEVELS;
  // The first column drawn: the gutter of the outermost level kept (or the row's own connector).
  const from =
    cut <= 0 ? 0 : cut < row.gutters.length ? (row.gutters[cut] as Row["gutters"][number]).position : Math.max(0, row.indent - 1);
  const cells: (string | undefined)[] = new Array(Math.max(0, row.indent - from));
  for (const g of row.gutters) {
    const at = g.position - from;
    if (at >= 0 && at < cells.length && cells[at] === undefined) cells[at] = g.show ? "│  " : "   ";
  }
  const connectorAt = row.connector === "none" ? -1 : row.indent - 1 - from;
  let out = cut > 0 ? `${levels}⋯ ` : "";
  for (let i = 0; i < cells.length; i++) out += cells[i] ?? (i === connectorAt ? (row.connector === "last" ? "└─ " : "├─ ") : "   ");
  return out;
}

/** The rows left after folding: a folded node's descendants follow it in pre-order, so they are skipped as a run. */
function visibleRows(all: Row[]): Row[] {
  const size = new Map<ViewNode, number>();
  for (let i = all.length - 1; i >= 0; i--) {
    const n = (all[i] as Row).node;
    let s = 0;
    for (const c of n.children) s += 1 + (size.get(c) ?? 0);
    size.set(n, s);
  }
  const out: Row[] = [];
  for (let i = 0; i < all.length; i++) {
    const row = all[i] as Row;
    out.push(row);
    if (folded.has(row.node.rec)) i += size.get(row.node) ?? 0;
  }
  return out;
}

function renderTree(): void {
  const view = buildView(session, tree, { filter, search: words, from: undefined, leaf, activeFirst: true });
  onPath = view.onPath;
  rows = visibleRows(layoutRows(view.roots));
  const spacer = document.getElementById("tree-rows") as HTMLElement;
  spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
  (document.getElementById("tree-count") as HTMLElement).textContent = `${rows.length} rows`;
  drawRows();
}

/** Scrolls the tree so the selected entry's row is in sight (when the filter shows it). */
function revealLeaf(): void {
  const pane = document.getElementById("tree") as HTMLElement;
  const i = rows.findIndex((r) => r.node.rec === leaf);
  if (i < 0) return;
  const top = i * ROW_HEIGHT;
  if (top < pane.scrollTop || top > pane.scrollTop + pane.clientHeight - ROW_HEIGHT)
    pane.scrollTop = Math.max(0, top - pane.clientHeight / 2);
  drawRows();
  // Rows as wide as their levels (up to 32): the pane scrolls sideways so the selected row's text is in sight.
  const prefix = pane.querySelector<HTMLElement>(".row.selected .prefix");
  if (prefix) {
    const end = prefix.offsetLeft + prefix.offsetWidth;
    pane.scrollLeft = end > pane.clientWidth * 0.6 ? end - pane.clientWidth * 0.3 : 0;
  }
}

function drawRows(): void {
  const pane = document.getElementById("tree") as HTMLElement;
  const spacer = document.getElementById("tree-rows") as HTMLElement;
  const first = Math.max(0, Math.floor(pane.scrollTop / ROW_HEIGHT) - 20);
  const last = Math.min(rows.length, first + Math.ceil(pane.clientHeight / ROW_HEIGHT) + 40);
  const frag = document.createDocumentFragment();
  for (let i = first; i < last; i++) frag.append(rowElement(rows[i] as Row, i));
  spacer.replaceChildren(frag);
}

function rowElement(row: Row, i: number): HTMLElement {
  const rec = row.node.rec;
  const div = el("div", "row");
  div.style.top = `${i * ROW_HEIGHT}px`;
  div.dataset.index = String(rec.index);
  div.dataset.line = String(rec.line);
  if (onPath.has(rec)) div.classList.add("on-path");
  if (rec === leaf) div.classList.add("selected");
  div.append(el("span", "prefix", prefixOf(row)));
  if (row.node.children.length > 0 && (row.node.children.length > 1 || row.connector !== "none")) {
    const t = el("button", "fold", folded.has(rec) ? "▸" : "▾");
    t.title = "fold or unfold this branch";
    t.addEventListener("click", (ev) => {
      ev.stopPropagation();
      if (folded.has(rec)) folded.delete(rec);
      else folded.add(rec);
      renderTree();
    });
    div.append(t);
  }
  if (row.node.cycleCut) div.append(el("span", "cycle", "[cycle] "));
  const label = rec.id !== undefined ? session.labels.get(rec.id) : undefined;
  if (label !== undefined) div.append(el("span", "label", `[${sanitizeLine(label)}] `));
  const d = describeEntry(rec, style);
  div.append(el("span", `tag type-${rec.type} role-${rec.role ?? ""}`, d.tag), el("span", "preview", ` ${d.text}`));
  div.title = `line ${rec.line}${rec.id ? ` · ${sanitizeLine(rec.id)}` : ""}`;
  div.addEventListener("click", () => select(rec));
  return div;
}

// ---- Context pane: the ops' context and display model at the selected leaf.
let pending: (() => void) | null = null;
const observer = new IntersectionObserver((es) => {
  if (es.some((e) => e.isIntersecting) && pending) {
    const next = pending;
    pending = null;
    next();
  }
});

/** Appends items in chunks as the reader scrolls: a context of thousands of messages opens at once. */
function appendLazily(box: HTMLElement, count: number, make: (i: number) => HTMLElement): void {
  let at = 0;
  const more = () => {
    const sentinel = box.querySelector(":scope > .more");
    sentinel?.remove();
    const end = Math.min(count, at + CHUNK);
    const frag = document.createDocumentFragment();
    for (; at < end; at++) frag.append(make(at));
    box.append(frag);
    if (at < count) {
      const s = el("div", "more", `${count - at} more…`);
      box.append(s);
      pending = more;
      observer.observe(s);
    }
  };
  observer.disconnect();
  pending = null;
  more();
}

function renderContext(): void {
  const box = document.getElementById("context") as HTMLElement;
  const head = document.getElementById("context-head") as HTMLElement;
  box.replaceChildren();
  head.replaceChildren();
  const r = pathTo(session, leaf);
  head.append(el("h2", "", `Context at line ${leaf.line}${leaf.id ? ` (${sanitizeLine(leaf.id)})` : ""}`));
  if (!r.ok) {
    head.append(el("p", "problem", "[cycle] the path from this entry runs into a parent cycle: pi cannot build its context"));
    return;
  }
  const ctx = buildContext(session, r.path, (rec) => readEntry(session, rec));
  const llm = convertToLlmMapped(ctx.messages);
  const doc = describeContext(
    session.file,
    leaf,
    { context: ctx, facts: contextFacts(ctx, r.path, llm.messages.length) },
    { thinking: true, maxOutput: 0, showEdits: true },
  );
  const facts = [
    `model ${doc.model === null ? "(none)" : sanitizeLine(doc.model)}`,
    `thinking ${sanitizeLine(doc.thinkingLevel)}`,
    `${doc.messageCount} messages (${doc.llmCount} to the LLM)`,
    `≈ ${fmt(doc.size.tokens)} tokens`,
  ];
  if (doc.compaction) facts.push(`compaction at line ${doc.compaction.line}, ${doc.compaction.kept} messages kept`);
  if (doc.edits.onPath > 0) facts.push(`${doc.edits.applied} of ${doc.edits.onPath} context edits applied`);
  head.append(el("p", "ctx-facts", facts.join(" · ")));
  head.append(budgetPanel(ctx));
  for (const p of ctx.problems) head.append(el("p", "problem", `line ${p.line ?? "?"}: ${p.code}`));
  if (llmView) {
    appendLazily(box, llm.messages.length, (i) => llmMessage(llm.messages[i], i));
    return;
  }
  appendLazily(box, doc.items.length, (i) => message(doc.items[i] as DisplayMessage, ctx.messages));
}

/** The parts shown in the budget panel; the rest are summed in one row. */
const BUDGET_ROWS = 8;

/**
 * What fills this context (as `pisess budget`): pi's estimate by part, with the bill of the turn that followed the
 * selected entry where one did.
 */
function budgetPanel(ctx: SessionContext): HTMLElement {
  let total = 0;
  for (const m of ctx.messages) total += estimateTokens(m);
  const parts = budgetParts(ctx.messages, total);
  const after = billedTurnAfter(session, leaf, (rec) => readEntry(session, rec));
  const box = el("details", "budget");
  box.open = true;
  const bill = after
    ? ` · billed ${fmt(after.billed.total)} by the turn at line ${after.rec.line}${total > 0 ? ` (${(after.billed.total / total).toFixed(2)}×)` : ""}`
    : "";
  box.append(el("summary", "", `Budget: ≈ ${fmt(total)} tokens by pi's estimate${bill}`));
  const table = el("table", "budget-parts");
  const row = (label: string, tokens: number, share: number) => {
    const tr = el("tr");
    const bar = el("span", "budget-bar");
    bar.style.width = `${Math.round(share * 100)}%`;
    const cell = el("td", "budget-bar-cell");
    cell.append(bar);
    tr.append(el("td", "", label), el("td", "num", fmt(tokens)), el("td", "num", `${(share * 100).toFixed(1)}%`), cell);
    table.append(tr);
  };
  for (const p of parts.slice(0, BUDGET_ROWS)) row(partLabel(p), p.tokens, p.share);
  const rest = parts.slice(BUDGET_ROWS);
  if (rest.length > 0)
    row(
      `${rest.length} more parts`,
      rest.reduce((n, p) => n + p.tokens, 0),
      rest.reduce((n, p) => n + p.share, 0),
    );
  box.append(table);
  return box;
}

function titleOf(m: DisplayMessage): string {
  const bits = [`#${m.index + 1}`, m.role];
  if (m.model) bits.push(m.model);
  if (m.customType) bits.push(m.customType);
  if (m.toolName) bits.push(m.toolName);
  if (Number.isFinite(m.time))
    bits.push(
      new Date(m.time)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, "Z"),
    );
  bits.push(`line ${m.line}${m.id ? ` (${m.id})` : ""}`);
  return sanitizeLine(bits.join(" · "));
}

function message(m: DisplayMessage, raw: readonly unknown[]): HTMLElement {
  const sec = el("section", `msg role-${m.role.replace(/[^A-Za-z]/g, "")}`);
  if (m.removedBy) sec.classList.add("removed");
  else {
    sec.dataset.index = String(m.index);
    sec.dataset.role = m.role;
  }
  if (m.isError) sec.classList.add("error");
  const h = el("header", "", titleOf(m));
  for (const n of m.notes) h.append(el("span", "note", sanitizeLine(n)));
  if (m.editedBy) h.append(el("span", "badge edited", `edited by line ${m.editedBy.line}`));
  sec.append(h);
  const rawMsg = m.removedBy ? undefined : raw[m.index];
  let image = 0;
  const framed = m.role === "compactionSummary" || m.role === "branchSummary";
  const body = el("div", framed ? "body framed" : "body");
  for (const p of m.parts)
    body.append(part(p, rawMsg, image, raw, m.role !== "user" && m.role !== "assistant" && m.role !== "custom" && !framed));
  for (const p of m.parts) if (p.kind === "image") image++;
  sec.append(body);
  if (m.original) {
    const d = el("details", "original");
    d.append(el("summary", "", "as recorded before the edit"));
    for (const p of m.original) d.append(part(p, undefined, 0, raw, false));
    sec.append(d);
  }
  return sec;
}

function imageData(rawMsg: unknown, n: number): { mime: string; data: string } | null {
  if (!isObj(rawMsg) || !Array.isArray(rawMsg.content)) return null;
  const blocks = rawMsg.content.filter((b): b is Obj => isObj(b) && b.type === "image");
  const b = blocks[n];
  if (!b || typeof b.data !== "string" || typeof b.mimeType !== "string") return null;
  return { mime: b.mimeType, data: b.data };
}

function part(p: Part, rawMsg: unknown, imageIndex: number, raw: readonly unknown[], asOutput: boolean): HTMLElement {
  switch (p.kind) {
    case "text":
      return asOutput ? el("pre", "text output", sanitize(p.text)) : markdown(p.text);
    case "thinking": {
      const d = el("details", "thinking");
      d.append(el("summary", "", p.redacted ? "thinking (redacted)" : "thinking"));
      if (!p.redacted) d.append(markdown(p.text));
      return d;
    }
    case "image": {
      const img = imageData(rawMsg, imageIndex);
      if (img && SAFE_IMAGE.test(img.mime) && img.data !== "" && /^[A-Za-z0-9+/=\s]+$/.test(img.data)) {
        const i = el("img", "image");
        i.alt = `${img.mime} image`;
        i.src = `data:${img.mime};base64,${img.data.replace(/\s+/g, "")}`;
        return i;
      }
      return el("p", "image-placeholder", `[${sanitizeLine(p.mimeType)} image, ${p.bytes} bytes, not shown]`);
    }
    case "other":
      return el("p", "other", `[${sanitizeLine(p.type)} block]`);
    case "call":
      return call(p, rawMsg, raw);
  }
}

function callArgs(rawMsg: unknown, id: string): Obj | null {
  if (!isObj(rawMsg) || !Array.isArray(rawMsg.content)) return null;
  const b = rawMsg.content.find((x): x is Obj => isObj(x) && x.type === "toolCall" && String(x.id ?? "") === id);
  return b && isObj(b.arguments) ? b.arguments : null;
}

/** edit and write calls as a diff: removed lines, then added lines. */
function diffOf(name: string, args: Obj | null): HTMLElement | null {
  if (!args) return null;
  const pairs: [string, string][] = [];
  if (/^(edit|Edit|str_replace)$/.test(name)) {
    if (typeof args.oldText === "string" && typeof args.newText === "string") pairs.push([args.oldText, args.newText]);
    if (Array.isArray(args.edits))
      for (const e of args.edits)
        if (isObj(e) && typeof e.oldText === "string" && typeof e.newText === "string") pairs.push([e.oldText, e.newText]);
  } else if (/^(write|Write)$/.test(name) && typeof args.content === "string") pairs.push(["", args.content]);
  if (pairs.length === 0) return null;
  const pre = el("pre", "diff");
  if (typeof args.path === "string") pre.append(el("span", "path", `${sanitizeLine(args.path)}\n`));
  for (const [a, b] of pairs) {
    if (a !== "") for (const l of sanitize(a).split("\n")) pre.append(el("span", "del", `- ${l}\n`));
    for (const l of sanitize(b).split("\n")) pre.append(el("span", "add", `+ ${l}\n`));
  }
  return pre;
}

function call(p: Extract<Part, { kind: "call" }>, rawMsg: unknown, raw: readonly unknown[]): HTMLElement {
  const div = el("div", "call");
  div.append(el("div", "call-head", `→ ${sanitizeLine(p.name)} ${sanitizeLine(p.args)}`));
  const diff = diffOf(p.name, callArgs(rawMsg, p.id));
  if (diff) div.append(diff);
  if (p.result === null) div.append(el("p", "problem", `no result (unanswered call ${sanitizeLine(p.id)})`));
  else if (p.result) div.append(message(p.result, raw));
  return div;
}

/** The LLM view: each message as convertToLlm makes it, text blocks rendered, anything else as JSON. */
function llmMessage(m: unknown, i: number): HTMLElement {
  const o = isObj(m) ? m : {};
  const role = typeof o.role === "string" ? o.role : "?";
  const sec = el("section", `msg llm role-${role.replace(/[^A-Za-z]/g, "")}`);
  sec.dataset.index = String(i);
  sec.dataset.role = role;
  sec.append(el("header", "", sanitizeLine(`#${i + 1} ${role}`)));
  const content = typeof o.content === "string" ? [{ type: "text", text: o.content }] : Array.isArray(o.content) ? o.content : [];
  for (const b of content) {
    if (isObj(b) && b.type === "text" && typeof b.text === "string") {
      if (b.text !== "" || role !== "system") for (const n of llmText(b.text)) sec.append(n);
    } else
      sec.append(
        el(
          "pre",
          "json",
          sanitize(JSON.stringify(b, (k, v) => (k === "data" && typeof v === "string" ? `(${v.length} chars)` : v), 2) ?? ""),
        ),
      );
  }
  if (role === "system") for (const n of systemParts(o)) sec.append(n);
  return sec;
}

/**
 * What a system message gives the model besides its content (pi 0.86+): its sections (the prompt, by name; null
 * removes one) and the tools it adds or removes.
 */
function systemParts(o: Obj): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (isObj(o.sections)) {
    for (const [name, text] of Object.entries(o.sections)) {
      const d = el("div", "section");
      d.append(el("div", "section-name", sanitizeLine(text === null ? `section ${name} removed` : `section ${name}`)));
      if (text !== null) d.append(markdown(String(text)));
      out.push(d);
    }
  }
  const names = (v: unknown) => (Array.isArray(v) ? v.map((t) => sanitizeLine(String(isObj(t) ? t.name : t))).join(", ") : "");
  if (names(o.toolsAdded)) out.push(el("p", "note", `tools added: ${names(o.toolsAdded)}`));
  if (names(o.toolsRemoved)) out.push(el("p", "note", `tools removed: ${names(o.toolsRemoved)}`));
  return out;
}

// ---- Controls.
function setup(): void {
  document.title = `pisess: ${sanitizeLine(payload.sessionName ?? payload.file)}`;
  (document.getElementById("title") as HTMLElement).textContent = sanitizeLine(payload.sessionName ?? payload.file);
  renderFacts();
  renderLeafChart();
  const sel = document.getElementById("filter") as HTMLSelectElement;
  for (const f of FILTER_MODES) {
    const o = el("option", "", f);
    o.value = f;
    sel.append(o);
  }
  sel.addEventListener("change", () => {
    filter = sel.value as FilterMode;
    renderTree();
  });
  const search = document.getElementById("search") as HTMLInputElement;
  let timer: number | undefined;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      renderTree();
      // Which search the tree shows now: tests (and scripts) wait on it instead of guessing the typing pause.
      (document.getElementById("tree") as HTMLElement).dataset.search = search.value;
    }, 150);
  });
  const llm = document.getElementById("llm") as HTMLInputElement;
  llm.addEventListener("change", () => {
    llmView = llm.checked;
    renderContext();
  });
  (document.getElementById("tree") as HTMLElement).addEventListener("scroll", () => requestAnimationFrame(drawRows));
  window.addEventListener("hashchange", fromHash);
  fromHash();
  document.body.dataset.ready = "1";
}

setup();

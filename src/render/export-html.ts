import { createHash } from "node:crypto";
import type { HtmlPayloadSource } from "../reports/export.js";
import { openArrayMember, toJson } from "./json.js";

/** Chunks of about this many characters: few writes, bounded memory. */
const CHUNK_CHARS = 1 << 20;

/** The payload as JSON safe inside a <script> element (scriptJson), written a chunk of lines at a time. */
function* payloadJson(payload: HtmlPayloadSource): Generator<string> {
  const { lines, recs, ...rest } = payload;
  // "recs" and "lines" go last, an item at a time (the index of 300,000 entries as one string, and the copies its
  // escaping made, were most of the export's memory); the page parses the whole object, so key order does not matter.
  let out = openArrayMember(scriptJson(rest), "recs");
  for (let i = 0; i < recs.length; i++) {
    out += i === 0 ? scriptJson(recs[i]) : `,${scriptJson(recs[i])}`;
    if (out.length >= CHUNK_CHARS) {
      yield out;
      out = "";
    }
  }
  out += '],"lines":[';
  let first = true;
  for (const line of lines) {
    out += first ? scriptJson(line) : `,${scriptJson(line)}`;
    first = false;
    if (out.length >= CHUNK_CHARS) {
      yield out;
      out = "";
    }
  }
  yield `${out}]}`;
}

/** JSON that is safe inside a <script> element: no "<" (so no "</script" or "<!--"), no U+2028/2029. */
export function scriptJson(value: unknown): string {
  return String(toJson(value))
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

const sha256 = (s: string) => `'sha256-${createHash("sha256").update(s, "utf8").digest("base64")}'`;

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,sans-serif;color:#1d1d1f;background:#fafafa;display:grid;grid-template-rows:auto 1fr;height:100vh}
header.top{padding:8px 14px;border-bottom:1px solid #ddd;background:#fff;display:grid;grid-template-columns:minmax(0,1fr) auto;gap:18px;max-height:34vh;overflow:auto}
.charts{display:grid;grid-template-columns:repeat(2,minmax(0,470px));gap:12px;align-items:start}
#chart-leaves{max-height:124px;overflow:auto}
h1{font-size:17px;margin:0 0 6px}
h2{font-size:15px;margin:4px 0}
table.facts{border-collapse:collapse;font-size:12px}
table.facts th{text-align:left;padding:1px 8px 1px 0;color:#555;font-weight:500;white-space:nowrap;vertical-align:top}
table.facts td{padding:1px 0;word-break:break-word}
.charts svg{display:block;margin:4px 0;background:#f6f8fa;border:1px solid #e3e3e3}
polyline.size{fill:none;stroke:#0a66c2;stroke-width:1.5}
line.compaction{stroke:#c2410c;stroke-dasharray:3 2}
text{font-size:10px;fill:#333}
g.leafbar rect{fill:#7aa7d6}
g.leafbar{cursor:pointer}
main{display:grid;grid-template-columns:minmax(300px,40%) 1fr;min-height:0}
.tree-pane{display:grid;grid-template-rows:auto 1fr;min-height:0;border-right:1px solid #ddd}
.controls{padding:6px;display:flex;gap:6px;align-items:center;background:#fff;border-bottom:1px solid #eee;font-size:12px}
.controls input[type=search]{flex:1}
#tree{overflow:auto;position:relative;font:12px/22px ui-monospace,monospace}
#tree-rows{position:relative}
.row{position:absolute;left:0;min-width:100%;height:22px;white-space:pre;cursor:pointer;padding:0 8px 0 4px}
.row:hover{background:#eef3fb}
.row.on-path{background:#f1f7ee}
.row.selected{background:#cfe3ff}
.row .prefix{color:#999}
.row .label{color:#8250df}
.row .cycle{color:#cf222e}
.row .tag{color:#555}
.row .role-user{color:#0969da}
.row .role-assistant{color:#1a7f37}
button.fold{border:0;background:none;padding:0 3px;cursor:pointer;font:inherit}
.context-pane{overflow:auto;padding:8px 14px;min-height:0}
.ctx-facts{color:#555;font-size:12px}
section.msg{background:#fff;border:1px solid #e3e3e3;border-radius:6px;margin:8px 0;padding:6px 10px}
section.msg>header{font-size:12px;color:#555;margin-bottom:4px}
section.msg.role-user{border-left:4px solid #0969da}
section.msg.role-assistant{border-left:4px solid #1a7f37}
section.msg.role-toolResult,section.msg.role-bashExecution{border-left:4px solid #999;background:#fbfbfb}
section.msg.error{border-left-color:#cf222e}
section.msg.removed{opacity:.55;text-decoration:line-through}
.framed{border:2px dashed #c2410c;padding:6px;border-radius:6px;background:#fff8f1}
.note{margin-left:8px;padding:0 4px;background:#eee;border-radius:3px}
.badge.edited{margin-left:8px;padding:0 4px;background:#fff1b8;border-radius:3px}
pre{white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,monospace;margin:4px 0}
pre.diff .del{color:#cf222e;display:block}
pre.diff .add{color:#1a7f37;display:block}
.call{border-top:1px dotted #ccc;margin-top:4px;padding-top:4px}
.call-head{font:12px ui-monospace,monospace;color:#8250df}
details.thinking{color:#666}
img.image{max-width:100%;max-height:400px}
.problem{color:#cf222e}
.more{color:#888;padding:8px}
.md code{background:#f0f0f0;padding:0 2px}
.raw-html,.text.tag{white-space:pre-wrap;font:12px/1.4 ui-monospace,monospace;color:#555}
.section{border-top:1px dotted #ccc;margin-top:4px;padding-top:4px}
.section-name{font:12px ui-monospace,monospace;color:#8250df}
details.more-facts>summary{font-size:12px;color:#555;cursor:pointer}
details.budget{font-size:12px;margin:4px 0}
details.budget>summary{color:#555;cursor:pointer}
table.budget-parts{border-collapse:collapse}
table.budget-parts td{padding:0 8px 0 0;white-space:nowrap}
table.budget-parts td.num{text-align:right}
td.budget-bar-cell{width:160px}
span.budget-bar{display:block;height:8px;background:#7aa7d6}
.charts svg{max-width:100%;height:auto}
@media (max-width:1300px){.charts{grid-template-columns:minmax(0,470px)}}
@media (max-width:900px){
header.top{grid-template-columns:minmax(0,1fr);max-height:none}
body{height:auto;min-height:100vh}
main{grid-template-columns:minmax(0,1fr);grid-template-rows:60vh auto}
.tree-pane{border-right:0;border-bottom:1px solid #ddd}
}
`;

/**
 * `pisess export --format html`: one self-contained page. The session travels once, as JSON inside a
 * non-executable script element; the page script (the bundled ops modules) builds every view from it. The CSP
 * allows only this page's own script and style (by hash) and data: images: no request leaves the page.
 */
export function* exportHtml(payload: HtmlPayloadSource, bundle: string): Generator<string> {
  // "</script" inside the bundle would end the element early; "<\/" means the same in strings and regexes.
  const js = bundle.replace(/<\/(script)/gi, "<\\/$1");
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(js)}`,
    `style-src ${sha256(CSS)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  yield '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n';
  yield `<meta http-equiv="Content-Security-Policy" content="${csp}">\n`;
  yield '<meta name="referrer" content="no-referrer">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n';
  yield "<title>pisess export</title>\n";
  yield `<style>${CSS}</style>\n</head>\n<body>\n`;
  yield '<header class="top"><div><h1 id="title"></h1><div id="facts"></div></div>';
  yield '<div class="charts"><div class="chart"><h2>Context size per assistant turn</h2><div id="chart-context"></div></div><div class="chart"><h2>Tokens and cost per leaf</h2><div id="chart-leaves"></div></div></div></header>\n';
  yield '<main><div class="tree-pane"><div class="controls"><select id="filter" aria-label="filter"></select>';
  yield '<input id="search" type="search" placeholder="search" aria-label="search"><span id="tree-count"></span></div>';
  yield '<div id="tree"><div id="tree-rows"></div></div></div>\n';
  yield '<div class="context-pane"><div class="controls"><label><input id="llm" type="checkbox"> LLM view</label></div>';
  yield '<div id="context-head"></div><div id="context"></div></div></main>\n';
  yield '<script type="application/json" id="pisess-data">';
  yield* payloadJson(payload);
  yield "</script>\n";
  yield `<script>${js}</script>\n</body>\n</html>\n`;
}

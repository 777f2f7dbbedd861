#!/usr/bin/env node
// Deterministic generator of realistic pi session files (v1, v2, v3) for parity tests and benchmarks.
// Own PRNG (mulberry32); the same seed and options always give the same bytes.
//
//   import { generateSession } from "./gen.mjs";  generateSession(seed, {version: 3, entries: 300}) -> [lines]
//   node parity/gen.mjs --seed 7 --version 3 --entries 300 --out FILE
//   node parity/gen.mjs --seed 7 --version 3 --bytes 100000000 --out FILE   (streams; bounded memory)
//   node parity/gen.mjs --seed 7 --entries 300 --pi-features --out FILE       (v3 with pi 1.6's additions)
//
// Without piFeatures the output is byte-for-byte what it was before the option existed (the feature code draws no
// random numbers then), so seeds keep their files.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// ---------------------------------------------------------------- PRNG
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  constructor(seed) {
    // mix the seed a little so that nearby seeds diverge immediately
    this.f = mulberry32((Math.imul(seed >>> 0, 0x9e3779b1) ^ 0x85ebca6b) >>> 0);
  }
  next() {
    return this.f();
  }
  int(a, b) {
    return a + Math.floor(this.f() * (b - a + 1));
  }
  chance(p) {
    return this.f() < p;
  }
  pick(arr) {
    return arr[Math.floor(this.f() * arr.length)];
  }
  /** weighted pick: [[weight, value], ...] */
  wpick(pairs) {
    let total = 0;
    for (const [w] of pairs) total += w;
    let r = this.f() * total;
    for (const [w, v] of pairs) {
      r -= w;
      if (r < 0) return v;
    }
    return pairs[pairs.length - 1][1];
  }
  hex(n) {
    let s = "";
    for (let i = 0; i < n; i++) s += "0123456789abcdef"[Math.floor(this.f() * 16)];
    return s;
  }
  b64(n) {
    const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let s = "";
    for (let i = 0; i < n; i++) s += A[Math.floor(this.f() * 64)];
    const pad = (4 - (s.length % 4)) % 4;
    return s + "=".repeat(pad);
  }
  alnum(n) {
    const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let s = "";
    for (let i = 0; i < n; i++) s += A[Math.floor(this.f() * 62)];
    return s;
  }
}

// ---------------------------------------------------------------- text pools
const PROMPTS = [
  "Can you look at the session loader and tell me why it is slow?",
  "Why does the compaction summary drop the last tool result?",
  "Refactor the tree traversal so it does not recurse.",
  "Please write unit tests for the label handling.",
  "The tests in packages/coding-agent fail on Windows, please investigate.",
  "OK, that works. Now make it handle CRLF line endings too.",
  "Revert that change, it broke the build.",
  "Explain what firstKeptEntryId means in this context.",
  "Run the benchmark again and compare with the previous numbers.",
  "continue",
  "把会话树按时间排序，然后输出每个叶子节点的路径。",
  "这个函数的返回值不正确，请帮我检查一下。",
  "日本語のテキストも正しく処理できますか？",
  "バグを修正してください。テストが失敗しています。",
  "세션 파일을 분석해 주세요. 압축 요약이 이상합니다.",
  "请不要修改公共接口，只改内部实现。",
  'What does `JSON.parse("{\\"a\\":1}")` return when the line ends with \\r?',
  'quote " and backslash \\ and slash /',
  "line\u2028separator and paragraph\u2029separator inside one string",
  "tab\there, NUL \u0000 and bell \u0007 control chars",
  "ANSI \u001b[31mred\u001b[0m and \u001b[1mbold\u001b[0m",
  "e\u0301te\u0301 (combining accents) and ﬁ ligature",
  "mixed RTL: مرحبا بالعالم and שלום",
  "emoji: 🚀🔥💡 👨‍👩‍👧‍👦 🇯🇵 🧪",
  "astral math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and 𠜎𠜱",
  "lone surrogate \ud83d here",
];
const EMOJI = ["🚀", "🔥", "💡", "👨‍👩‍👧‍👦", "🇯🇵", "🧪", "✅", "❌", "🐛"];
const CODE_LINES = [
  'import { readFileSync } from "fs";',
  "\tprivate byId = new Map<string, SessionEntry>();",
  "\t\tif (!line.trim()) continue;",
  "def build_context(entries, leaf_id):",
  "    return [e for e in path if e['type'] == 'message']",
  "fn main() -> anyhow::Result<()> {",
  "}",
  "// TODO: handle \\r\\n",
  "注释：这里需要处理空行",
  '  "version": 3,',
  "error[E0308]: mismatched types --> src/tree.rs:42:17",
  "    ✓ builds context with compaction (3 ms)",
  "    ✗ handles orphans (12 ms)",
  "npm ERR! code ELIFECYCLE",
  "\u001b[32mPASS\u001b[39m test/session.test.ts",
  "",
  "total 48\ndrwxr-xr-x  5 dev dev 4096 Jan  4 10:12 .",
  'const sep = "\u2028"; // U+2028 in source',
];
const PATHS = [
  "packages/coding-agent/src/core/session-manager.ts",
  "packages/coding-agent/src/core/messages.ts",
  "packages/coding-agent/src/core/agent-session.ts",
  "src/tree.rs",
  "docs/会话格式.md",
  "test/fixtures/📁 data/session.jsonl",
  "README.md",
  "C:\\Users\\dev\\code\\main.ts",
];
const COMMANDS = [
  "ls -la",
  "git status",
  "npm test",
  "cat package.json",
  'rg -n "parentId" src',
  "yes | head -100000",
  "false",
  "sleep 100",
  "echo 'héllo wörld 🌍'",
  "python3 -c \"print('\\u2028')\"",
];
const MODELS = [
  { provider: "anthropic", model: "claude-sonnet-4-5", api: "anthropic-messages" },
  { provider: "anthropic", model: "claude-opus-4-5", api: "anthropic-messages" },
  { provider: "openai", model: "gpt-5", api: "openai-responses" },
  { provider: "google", model: "gemini-2.5-pro", api: "google-generative-ai" },
  { provider: "openrouter", model: "qwen/qwen3-coder", api: "openai-completions" },
];
const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh"];
const THINKING16 = [...THINKING, "max"];
const SECTION_NAMES = ["preamble", "tools", "rules", "cwd", "skills", "project-context", "mode"];
const TOOL_DECLS = (() => {
  const d = (name, description, props) => ({
    name,
    description,
    parameters: { type: "object", properties: props, required: Object.keys(props) },
  });
  return [
    d("read", "Read the contents of a file.", { path: { type: "string" } }),
    d("bash", "Execute a bash command in the current working directory.", { command: { type: "string" } }),
    d("edit", "Edit a file by replacing exact text.", {
      path: { type: "string" },
      oldText: { type: "string" },
      newText: { type: "string" },
    }),
    d("write", "Write a file.", { path: { type: "string" }, content: { type: "string" } }),
    d("grep", "Search file contents (ripgrep) ✓.", { pattern: { type: "string" } }),
    d("web_search", "Search the web; returns 搜索结果.", { query: { type: "string" } }),
    d("subagent", "Run a task in a subagent.", { task: { type: "string" } }),
  ];
})();
const USAGE_KINDS = ["cache_warm", "other"];
const TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"];
const CUSTOM_TYPES = ["git-checkpoint", "todo-state", "permission-gate", "my-extension", "plan-mode", "subagent"];
const LABELS = ["checkpoint-1", "wip", "try-2", "good state", "pre-compaction", "before refactor 🚀", "标签"];
const CWDS = [
  "/home/dev/projects/pisess",
  "/Users/mario/workspaces/pi-mono",
  "C:\\Users\\dev\\code",
  "/tmp/über-项目",
  "/home/dev/my project",
];
const ERRORS = [
  "fetch failed: ECONNRESET",
  "terminated",
  "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit",
  "Overloaded",
  'upstream error: 500 "internal"',
];

// ---------------------------------------------------------------- generator
/**
 * Yields the JSONL lines (without "\n") of one session, header first.
 * @param {number} seed
 * @param {{version?: 1|2|3, entries?: number, bytes?: number, piFeatures?: boolean}} opts
 *   entries: exact number of entries after the header (default 200); bytes: stop once about this many bytes are out
 *   (benchmark mode: long tool outputs of 1-50 KB). piFeatures (version 3 only): add what pi 1.6 writes or reads
 *   beyond 0.73: `system` messages (string or text-block content, sections, toolsAdded, toolsRemoved), `usage`
 *   entries (cache_warm, compaction, branch_summary, other), `context_edit`s (null and {content} replacements, string
 *   and block content; applied, superseded, summarized by a later compaction, target on another branch, target
 *   missing, edit before its target, non-editable targets), compaction systemMessage / usage / fromHook, compactions
 *   keeping nothing (firstKeptEntryId = own id) or keeping an older compaction and system messages, branch_summary
 *   usage, cacheWrite1h, thinking level max, and messages with null or missing content.
 */
export function* generateLines(seed, opts = {}) {
  const version = opts.version ?? 3;
  if (![1, 2, 3].includes(version)) throw new Error(`version must be 1, 2 or 3, got ${version}`);
  const pf = opts.piFeatures === true;
  if (pf && version !== 3) throw new Error("piFeatures needs version 3");
  const THINK = pf ? THINKING16 : THINKING;
  const byteTarget = opts.bytes ?? null;
  const maxEntries = byteTarget ? Infinity : (opts.entries ?? 200);
  const big = byteTarget !== null;
  const r = new Rng((seed ^ Math.imul(version, 0x632be5ab)) >>> 0);

  // clock: ms since epoch, strictly increasing
  let t = Date.UTC(2025, 0, 1, 9, 0, 0) + (Math.abs(seed) % 400) * 86400000 + r.int(0, 3600000);
  const tick = () => {
    t += r.int(300, big ? 20000 : 120000);
    return t;
  };

  const ids = new Set();
  const newId = () => {
    for (;;) {
      const id = r.hex(8);
      if (!ids.has(id)) {
        ids.add(id);
        return id;
      }
    }
  };
  // an id handed out before its entry is written (a context_edit that precedes its target): the next entry takes it
  let presetNextId = null;
  // per-entry metadata (small): id -> {parentId, type, role, text}
  const meta = new Map();
  const order = []; // ids in file order
  let leaf = null;
  let count = 0;
  let bytes = 0;
  let model = r.pick(MODELS);
  const cwd = r.pick(CWDS);

  const text = (min = 1, max = 3) => {
    const n = r.int(min, max);
    const parts = [];
    for (let i = 0; i < n; i++) parts.push(r.pick(PROMPTS));
    let s = parts.join(r.pick([" ", "\n", "\n\n"]));
    if (r.chance(0.25)) s += ` ${r.pick(EMOJI)}`;
    return s;
  };
  const blob = (minB, maxB) => {
    const target = r.int(minB, maxB);
    const lines = [];
    let len = 0;
    let n = 1;
    while (len < target) {
      const l = `${String(n++).padStart(6)}\t${r.pick(CODE_LINES)}`;
      lines.push(l);
      len += l.length + 1;
    }
    return lines.join("\n");
  };
  const outputText = () => (big ? blob(1000, 50000) : r.chance(0.1) ? blob(2000, 8000) : blob(20, 1200));
  const image = () => ({
    type: "image",
    data: r.b64(big ? r.int(200, 30000) : r.int(40, 400)),
    mimeType: r.pick(["image/png", "image/jpeg", "image/webp"]),
  });
  const pathToLeaf = () => {
    const p = [];
    let cur = leaf;
    while (cur !== null && cur !== undefined) {
      p.push(cur);
      cur = meta.get(cur)?.parentId ?? null;
    }
    return p.reverse();
  };

  // ---- header
  const sessionId = `${t
    .toString(16)
    .padStart(12, "0")
    .slice(-12)
    .replace(/(.{8})(.{4})/, "$1-$2")}-7${r.hex(3)}-${r.pick(["8", "9", "a", "b"])}${r.hex(3)}-${r.hex(12)}`;
  const header = { type: "session" };
  if (version >= 2) header.version = version;
  header.id = sessionId;
  header.timestamp = new Date(t).toISOString();
  header.cwd = cwd;
  if (version === 1) {
    header.provider = model.provider;
    header.modelId = model.model;
    header.thinkingLevel = r.pick(THINKING);
  }
  if (r.chance(0.15)) {
    const key = version === 3 && r.chance(0.7) ? "parentSession" : "branchedFrom";
    header[key] = `/home/dev/.pi/agent/sessions/--home-dev-app--/2025-01-01T00-00-00-000Z_${r.hex(8)}.jsonl`;
  }
  const hline = JSON.stringify(header);
  bytes += Buffer.byteLength(hline) + 1;
  yield hline;

  // ---- entry emission
  function emit(type, fields, info = {}) {
    const ts = tick();
    let e;
    let id = null;
    if (version === 1) {
      e = { type, timestamp: new Date(ts).toISOString(), ...fields(ts) };
      id = `#${count + 1}`; // internal handle only
      meta.set(id, { parentId: leaf, type, ...info });
    } else {
      if (info.id !== undefined) id = info.id;
      else {
        id = presetNextId ?? newId();
        presetNextId = null;
      }
      const parentId = info.parentId !== undefined ? info.parentId : leaf;
      e = { type, id, parentId, timestamp: new Date(ts).toISOString(), ...fields(ts) };
      meta.set(id, { parentId, type, role: info.role, text: info.text });
    }
    order.push(id);
    leaf = id;
    count++;
    const line = JSON.stringify(e);
    bytes += Buffer.byteLength(line) + 1;
    return line;
  }
  const done = () => count >= maxEntries || (byteTarget !== null && bytes >= byteTarget);

  const msgEntry = (message, info) => emit("message", (ts) => ({ message: message(ts) }), info);

  const userMsg = (forcedText) => {
    const tx = forcedText ?? text();
    const kind = r.wpick([
      [6, "string"],
      [3, "blocks"],
      [1, "image"],
      [0.3, "imageOnly"],
    ]);
    return msgEntry(
      (ts) => {
        let content;
        if (kind === "string") content = tx;
        else if (kind === "blocks") content = [{ type: "text", text: tx }];
        else if (kind === "image") content = [{ type: "text", text: tx }, image()];
        else content = [image()];
        const msg = { role: "user", content, timestamp: ts - r.int(1, 5) };
        if (pf && r.chance(0.03)) {
          if (r.chance(0.5)) msg.content = null;
          else delete msg.content;
        }
        return msg;
      },
      { role: "user", text: tx },
    );
  };

  const usage = () => {
    const input = r.int(0, 30000);
    const output = r.int(0, 8000);
    const cacheRead = r.chance(0.7) ? r.int(0, 150000) : 0;
    const cacheWrite = r.chance(0.4) ? r.int(0, 20000) : 0;
    const cost = {
      input: input * 0.000003,
      output: output * 0.000015,
      cacheRead: cacheRead * 0.0000003,
      cacheWrite: cacheWrite * 0.00000375,
    };
    cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
    const u = { input, output, cacheRead, cacheWrite };
    if (pf && r.chance(0.3)) u.cacheWrite1h = r.int(0, cacheWrite);
    u.totalTokens = input + output + cacheRead + cacheWrite;
    u.cost = cost;
    return u;
  };

  let pendingCalls = [];
  const assistantMsg = () => {
    const stop = r.wpick([
      [10, "normal"],
      [1.2, "error"],
      [1, "aborted"],
      [0.4, "length"],
    ]);
    const content = [];
    const calls = [];
    const m = model;
    if (stop === "error" && r.chance(0.6)) {
      // empty content, error only
    } else {
      if (r.chance(0.55)) {
        const th = { type: "thinking", thinking: text(1, 2) };
        if (r.chance(0.7)) th.thinkingSignature = r.b64(r.int(40, 300));
        if (r.chance(0.05)) th.redacted = true;
        content.push(th);
      }
      if (r.chance(0.85)) content.push({ type: "text", text: stop === "aborted" ? text(1, 1).slice(0, r.int(0, 30)) : text(1, 3) });
      if (stop === "normal" && r.chance(0.55)) {
        const n = r.wpick([
          [6, 1],
          [3, 2],
          [1, 3],
        ]);
        for (let i = 0; i < n; i++) {
          const name = r.pick(TOOLS);
          const call = {
            type: "toolCall",
            id: r.chance(0.8) ? `toolu_01${r.alnum(22)}` : `call_${r.alnum(24)}|fc_${r.hex(16)}`,
            name,
            arguments:
              name === "bash"
                ? { command: r.pick(COMMANDS), timeout: r.chance(0.3) ? r.int(10, 600) : undefined }
                : name === "edit"
                  ? { path: r.pick(PATHS), oldText: r.pick(CODE_LINES), newText: r.pick(CODE_LINES) }
                  : { path: r.pick(PATHS), offset: r.chance(0.3) ? r.int(1, 500) : undefined },
          };
          if (m.provider === "google" && r.chance(0.5)) call.thoughtSignature = r.b64(32);
          content.push(call);
          calls.push(call);
        }
      }
    }
    pendingCalls = calls;
    const stopReason = stop === "normal" ? (calls.length ? "toolUse" : "stop") : stop;
    return msgEntry(
      (ts) => {
        const msg = { role: "assistant", content, api: m.api, provider: m.provider, model: m.model };
        if (r.chance(0.5)) msg.responseId = `msg_${r.alnum(24)}`;
        msg.usage =
          stop === "error" && content.length === 0
            ? {
                input: 0,
                output: 0,
                cacheRead: 0,
                cacheWrite: 0,
                totalTokens: 0,
                cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
              }
            : usage();
        msg.stopReason = stopReason;
        if (stop === "error") msg.errorMessage = r.pick(ERRORS);
        if (stop === "aborted") msg.errorMessage = "Request was aborted";
        msg.timestamp = ts - r.int(200, 290);
        if (pf) {
          if (r.chance(0.4)) msg.thinkingLevel = r.pick(THINK);
          if (r.chance(0.5)) msg.durationMs = r.int(300, 90000);
          // content null or missing (files from other writers); only when no tool call is pending
          if (!calls.length && r.chance(0.04)) {
            if (r.chance(0.5)) msg.content = null;
            else delete msg.content;
          }
        }
        return msg;
      },
      { role: "assistant" },
    );
  };

  const toolResult = (call) =>
    msgEntry(
      (ts) => {
        const isError = r.chance(0.15);
        const content = [
          {
            type: "text",
            text: isError
              ? r.pick([
                  "ENOENT: no such file or directory",
                  "Operation aborted",
                  "Command exited with code 1",
                  "old text not found in 文件",
                ])
              : outputText(),
          },
        ];
        if (!isError && r.chance(0.08)) content.push(image());
        const msg = { role: "toolResult", toolCallId: call.id, toolName: call.name, content };
        if (r.chance(0.3))
          msg.details =
            call.name === "edit"
              ? { diff: `-${r.pick(CODE_LINES)}\n+${r.pick(CODE_LINES)}` }
              : { truncation: r.chance(0.5) ? { truncated: true, totalLines: r.int(100, 9000) } : undefined, exitCode: r.int(0, 2) };
        msg.isError = isError;
        msg.timestamp = ts - r.int(1, 3);
        if (pf && r.chance(0.03)) msg.content = null;
        return msg;
      },
      { role: "toolResult" },
    );

  const bashExec = () =>
    msgEntry(
      (ts) => {
        const cancelled = r.chance(0.2);
        const exitCode = r.wpick([
          [5, 0],
          [3, r.int(1, 255)],
          [2, null],
          [0.5, undefined],
        ]);
        const truncated = r.chance(0.3);
        const msg = {
          role: "bashExecution",
          command: r.pick(COMMANDS),
          output: r.chance(0.2) ? "" : outputText(),
          exitCode,
          cancelled,
          truncated,
        };
        if (truncated && r.chance(0.6)) msg.fullOutputPath = `/tmp/pi-bash-${r.hex(8)}.log`;
        msg.timestamp = ts - r.int(1, 3);
        if (version >= 2 || r.chance(0.5)) {
          const ex = r.wpick([
            [5, undefined],
            [2, true],
            [1, false],
          ]);
          if (ex !== undefined) msg.excludeFromContext = ex;
        }
        return msg;
      },
      { role: "bashExecution" },
    );

  const customContent = () => {
    const k = r.wpick([
      [4, "string"],
      [3, "text"],
      [1, "textImage"],
      [0.5, "empty"],
    ]);
    if (k === "string") return text(1, 2);
    if (k === "text") return [{ type: "text", text: text(1, 2) }];
    if (k === "textImage") return [{ type: "text", text: text(1, 1) }, image()];
    return [];
  };
  const customRoleMsg = () =>
    msgEntry(
      (ts) => {
        const msg = {
          role: version === 2 ? "hookMessage" : "custom",
          customType: r.pick(CUSTOM_TYPES),
          content: customContent(),
          display: r.chance(0.6),
        };
        if (r.chance(0.4)) msg.details = r.pick([{ v: 3 }, { files: [r.pick(PATHS)] }, null, { nested: { ok: true, n: r.int(0, 99) } }]);
        msg.timestamp = ts - r.int(1, 3);
        return msg;
      },
      { role: version === 2 ? "hookMessage" : "custom" },
    );

  const customMessageEntry = () =>
    emit("custom_message", () => {
      const f = { customType: r.pick(CUSTOM_TYPES), content: customContent(), display: r.chance(0.6) };
      if (r.chance(0.4)) f.details = r.pick([{ v: 1 }, { gate: "allow", tool: r.pick(TOOLS) }, [1, 2, 3], "note ✓"]);
      if (pf && r.chance(0.05)) delete f.content;
      return f;
    });

  const customEntry = () =>
    emit("custom", () => {
      const f = { customType: r.pick(CUSTOM_TYPES) };
      const d = r.wpick([
        [1, undefined],
        [2, { enabled: r.chance(0.5) }],
        [1, { nested: { deep: { value: "✓" } } }],
        [1, [r.hex(4), r.int(0, 9)]],
        [0.5, null],
        [0.5, "s\u2028t"],
      ]);
      if (d !== undefined) f.data = d;
      return f;
    });

  const modelChange = () => {
    model = r.pick(MODELS);
    return emit("model_change", () => ({ provider: model.provider, modelId: model.model }));
  };
  const thinkingChange = () => emit("thinking_level_change", () => ({ thinkingLevel: r.pick(THINK) }));

  const compactionV23 = () => {
    const p = pathToLeaf();
    let first;
    const modes = [
      [7, "onPath"],
      [1, "offPath"],
      [1, "missing"],
      [0.5, "self-ish"],
    ];
    if (pf) modes.push([1, "keepNothing"], [1.5, "beforeOlder"]);
    let mode = r.wpick(modes);
    const ownId = pf ? newId() : undefined;
    if (mode === "beforeOlder") {
      // keep from a little before the previous compaction on the path: the kept range then holds that
      // compaction (and whatever system messages lie there)
      const ci = p.findLastIndex((id) => meta.get(id)?.type === "compaction");
      if (ci > 0) first = p[r.int(Math.max(0, ci - 6), ci - 1)];
      else mode = "onPath";
    }
    if (mode === "beforeOlder") {
      // chosen above
    } else if (mode === "keepNothing") {
      first = ownId; // pi's own writer when there is no cut point
    } else if (mode === "onPath" && p.length) {
      // prefer a user message some way back
      const users = p.filter((id) => meta.get(id)?.role === "user");
      first = users.length && r.chance(0.7) ? users[Math.max(0, users.length - r.int(1, 4))] : p[r.int(0, p.length - 1)];
    } else if (mode === "offPath" && order.length) {
      const onPath = new Set(p);
      const off = order.filter((id) => !onPath.has(id));
      first = off.length ? off[r.int(0, off.length - 1)] : r.hex(8);
    } else if (mode === "self-ish" && p.length) {
      first = p[p.length - 1];
    } else first = r.hex(8);
    return emit(
      "compaction",
      (ts) => {
        const f = {
          summary: `## Goal\n${text(1, 2)}\n\n## Progress\n${text(1, 1)}\n\n## Next Steps\n${text(1, 1)}\n`,
          firstKeptEntryId: first,
          tokensBefore: r.int(20000, 200000),
        };
        if (r.chance(0.6)) f.details = { readFiles: [r.pick(PATHS)], modifiedFiles: r.chance(0.5) ? [r.pick(PATHS)] : [] };
        if (r.chance(0.1)) f.fromHook = true;
        if (pf) {
          if (r.chance(0.6)) f.usage = usage();
          if (f.fromHook === undefined && r.chance(0.3)) f.fromHook = false;
          if (sys.sections && r.chance(0.6)) f.systemMessage = systemSnapshot(ts);
          if (r.chance(0.5)) later.push(() => usageEntry("compaction"));
        }
        return f;
      },
      { id: ownId },
    );
  };
  const compactionV1 = () => {
    const n = count + 1; // this entry's index (header = 0)
    const idx = r.wpick([
      [6, r.int(1, Math.max(1, n - 1))],
      [1, 0],
      [1, n + r.int(1, 500)],
      [0.5, n],
      [0.3, -1],
    ]);
    return emit("compaction", () => ({
      summary: `## Goal\n${text(1, 2)}\n\n## Progress\n${text(1, 1)}\n`,
      firstKeptEntryIndex: idx,
      tokensBefore: r.int(20000, 200000),
    }));
  };

  const label = () => {
    const target = order.length ? order[r.int(0, order.length - 1)] : null;
    if (!target) return null;
    return emit("label", () => {
      const f = { targetId: target };
      const k = r.wpick([
        [6, "set"],
        [1, "clearAbsent"],
        [1, "clearEmpty"],
      ]);
      if (k === "set") f.label = r.pick(LABELS);
      else if (k === "clearEmpty") f.label = "";
      return f;
    });
  };
  const sessionInfo = () =>
    emit("session_info", () => (r.chance(0.85) ? { name: r.pick(["fix loader", "会话解析", "refactor 🚀 tree", "", "bench run"]) } : {}));

  /** pi's /tree: jump to an earlier entry; a user message target makes its parent the leaf (re-ask as sibling). */
  let reask = null;
  const navigate = () => {
    const p = pathToLeaf();
    const pool = r.chance(0.8) && p.length > 1 ? p.slice(0, -1) : order;
    if (!pool.length) return null;
    let target = pool[r.int(0, pool.length - 1)];
    if (r.chance(0.1)) {
      // back to the very first prompt: its parent is null (or the opening entries), so the re-ask may be a new root
      const firstUser = p.find((id) => meta.get(id)?.role === "user");
      if (firstUser) target = firstUser;
    }
    const m = meta.get(target);
    if (m.role === "user") {
      leaf = m.parentId;
      reask = r.chance(0.5) ? m.text : text();
    } else leaf = target;
    if (r.chance(0.55)) {
      const from = leaf;
      return emit(
        "branch_summary",
        () => {
          const f = { fromId: from ?? "root", summary: r.chance(0.2) ? "" : `Abandoned approach: ${text(1, 2)}` };
          if (r.chance(0.6)) f.details = { readFiles: [r.pick(PATHS)], modifiedFiles: [] };
          if (r.chance(0.1)) f.fromHook = true;
          if (pf) {
            if (r.chance(0.6)) f.usage = usage();
            if (r.chance(0.4)) later.push(() => usageEntry("branch_summary"));
          }
          return f;
        },
        { parentId: from },
      );
    }
    return null;
  };

  // ---- pi 1.6 features (only with pf; nothing here draws random numbers otherwise)
  const later = []; // entries to write next, before the state machine goes on (thunks: they emit when called)
  const sys = { sections: null, tools: [] }; // the system prompt state that system messages replay
  const sectionText = (name) => `<${name}>\n${text(1, 1)}\n</${name}>`;
  const systemMsg = (initial) =>
    msgEntry(
      (ts) => {
        const msg = { role: "system" };
        const k = r.wpick([
          [5, "empty"],
          [2, "string"],
          [2, "blocks"],
          [0.4, "null"],
        ]);
        msg.content =
          k === "empty"
            ? ""
            : k === "string"
              ? `You are pi. ${text(1, 1)}`
              : k === "blocks"
                ? [
                    { type: "text", text: text(1, 1) },
                    { type: "text", text: "Follow the rules." },
                  ]
                : null;
        if (initial || !sys.sections) {
          sys.sections = {};
          for (const name of SECTION_NAMES.slice(0, r.int(2, 4))) sys.sections[name] = sectionText(name);
          sys.tools = TOOL_DECLS.slice(0, r.int(2, 5));
          msg.sections = { ...sys.sections };
          msg.toolsAdded = [...sys.tools];
        } else {
          const ops = r.wpick([
            [3, "section"],
            [1, "removeSection"],
            [2, "addTool"],
            [1, "removeTool"],
            [1, "all"],
          ]);
          if (ops === "section" || ops === "all" || ops === "removeSection") {
            const name = r.pick(SECTION_NAMES);
            const val = ops === "removeSection" ? null : sectionText(name);
            msg.sections = { [name]: val };
            if (val === null) delete sys.sections[name];
            else sys.sections[name] = val;
          }
          const missing = TOOL_DECLS.filter((d) => !sys.tools.includes(d));
          if ((ops === "addTool" || ops === "all") && missing.length) {
            const d = r.pick(missing);
            msg.toolsAdded = [d];
            sys.tools = [...sys.tools, d];
          }
          if ((ops === "removeTool" || ops === "all") && sys.tools.length) {
            const d = r.pick(sys.tools);
            msg.toolsRemoved = [{ name: d.name }];
            sys.tools = sys.tools.filter((x) => x !== d);
          }
        }
        msg.timestamp = ts - r.int(1, 3);
        return msg;
      },
      { role: "system" },
    );
  /** A compaction's systemMessage: the replayed system state at that point. */
  const systemSnapshot = (ts) => ({
    role: "system",
    content: "",
    sections: { ...sys.sections },
    toolsAdded: [...sys.tools],
    timestamp: ts - r.int(1, 3),
  });
  const usageEntry = (kind) =>
    emit("usage", () => {
      const f = { kind, provider: model.provider, model: model.model, usage: usage() };
      if (r.chance(0.2)) f.note = r.pick(["extension override", "warm-up ✓", "预热"]);
      return f;
    });
  const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult"]);
  const editable = (id) => {
    const m = meta.get(id);
    return !!m && (m.type === "custom_message" || (m.type === "message" && EDITABLE_ROLES.has(m.role)));
  };
  const replacement = () => {
    if (r.chance(0.45)) return null;
    const k = r.wpick([
      [3, "string"],
      [3, "blocks"],
      [0.5, "image"],
    ]);
    const tx = `[edited] ${text(1, 1)}`;
    if (k === "string") return { content: tx };
    if (k === "blocks") return { content: [{ type: "text", text: tx }] };
    return { content: [{ type: "text", text: tx }, image()] };
  };
  const contextEdit = (targetId, repl) => emit("context_edit", () => ({ targetId, replacement: repl }));
  /** One context_edit scenario; may queue more edits in `later`. Returns the first line, or null. */
  const editScenario = () => {
    const p = pathToLeaf();
    const onPath = p.filter(editable);
    const kind = r.wpick([
      [4, "failedAttempt"],
      [3, "single"],
      [1.5, "supersede"],
      [1, "otherBranch"],
      [0.7, "forward"],
      [0.7, "nonEditable"],
      [0.3, "missing"],
    ]);
    if (kind === "failedAttempt") {
      // hide the last assistant turn and its tool results, as pi does for a failed attempt
      const ai = p.findLastIndex((id) => meta.get(id)?.role === "assistant");
      if (ai < 0) return null;
      const targets = [p[ai], ...p.slice(ai + 1).filter((id) => meta.get(id)?.role === "toolResult")];
      for (const id of targets.slice(1)) later.push(() => contextEdit(id, null));
      return contextEdit(targets[0], null);
    }
    if (kind === "single" || kind === "supersede") {
      if (!onPath.length) return null;
      const target = onPath[Math.max(0, onPath.length - r.int(1, 8))];
      if (kind === "supersede") later.push(() => contextEdit(target, replacement()));
      return contextEdit(target, replacement());
    }
    if (kind === "otherBranch") {
      const on = new Set(p);
      const off = order.filter((id) => !on.has(id) && editable(id));
      return off.length ? contextEdit(off[r.int(0, off.length - 1)], replacement()) : null;
    }
    if (kind === "forward") {
      // the edit names the id the next entry will get
      const id = newId();
      const line = contextEdit(id, replacement());
      presetNextId = id;
      return line;
    }
    if (kind === "nonEditable") {
      const others = p.filter((id) => !editable(id) && meta.get(id)?.type !== "context_edit");
      if (!others.length) return null;
      return contextEdit(others[r.int(0, others.length - 1)], r.chance(0.6) ? null : replacement());
    }
    let missing;
    do missing = r.hex(8);
    while (ids.has(missing));
    return contextEdit(missing, replacement());
  };

  // ---- opening entries
  const first = [];
  if (version >= 2) {
    if (r.chance(0.8)) first.push(modelChange);
    if (r.chance(0.5)) first.push(thinkingChange);
  }
  if (pf && r.chance(0.9)) first.push(() => systemMsg(true));
  for (const f of first) {
    if (done()) return;
    yield f();
  }

  // ---- main loop: idle -> user -> assistant (-> tool results -> assistant)* -> idle
  let state = "idle";
  let turns = 0;
  while (!done()) {
    let line = null;
    if (later.length) {
      line = later.shift()();
    } else if (state === "idle") {
      if (reask !== null) {
        line = userMsg(reask);
        reask = null;
        state = "assistant";
      } else {
        const acts =
          version === 1
            ? [
                [10, "user"],
                [1.2, "bash"],
                [0.5, "model"],
                [0.8, "thinking"],
                [turns > 2 ? 0.6 : 0, "compaction"],
              ]
            : [
                [10, "user"],
                [1.2, "bash"],
                [0.4, "model"],
                [0.5, "thinking"],
                [0.6, "custom"],
                [0.6, "customMessage"],
                [0.5, "customRole"],
                [0.6, "label"],
                [0.25, "sessionInfo"],
                [turns > 2 ? 0.6 : 0, "compaction"],
                [turns > 1 ? 1.8 : 0, "navigate"],
              ];
        if (pf) acts.push([0.35, "system"], [0.35, "usage"], [turns > 1 ? 1.4 : 0, "edit"], [turns > 2 ? 0.4 : 0, "compaction"]);
        const act = r.wpick(acts);
        switch (act) {
          case "user":
            line = userMsg();
            state = "assistant";
            turns++;
            break;
          case "bash":
            line = bashExec();
            break;
          case "model":
            line = modelChange();
            break;
          case "thinking":
            line = thinkingChange();
            break;
          case "custom":
            line = customEntry();
            break;
          case "customMessage":
            line = customMessageEntry();
            break;
          case "customRole":
            line = customRoleMsg();
            break;
          case "label":
            line = label();
            break;
          case "sessionInfo":
            line = sessionInfo();
            break;
          case "compaction":
            line = version === 1 ? compactionV1() : compactionV23();
            break;
          case "navigate":
            line = navigate();
            break;
          case "system":
            line = systemMsg(false);
            break;
          case "usage":
            line = usageEntry(r.pick(USAGE_KINDS));
            break;
          case "edit":
            line = editScenario();
            break;
        }
      }
    } else if (state === "assistant") {
      line = assistantMsg();
      state = pendingCalls.length ? "tools" : "idle";
    } else if (state === "tools") {
      const call = pendingCalls.shift();
      line = toolResult(call);
      if (!pendingCalls.length) state = r.chance(0.9) ? "assistant" : "idle";
      else if (version >= 2 && r.chance(0.05)) {
        // an extension's entry between two tool results
        yield line;
        if (done()) return;
        line = customEntry();
      }
    }
    if (line !== null) yield line;
  }
}

/** Array of JSONL line strings (header first). */
export function generateSession(seed, opts = {}) {
  return [...generateLines(seed, opts)];
}

/** Writes a session incrementally (bounded memory). Returns {lines, bytes}. */
export function writeSession(file, seed, opts = {}) {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const fd = fs.openSync(file, "w");
  let lines = 0;
  let bytes = 0;
  let buf = [];
  let bufLen = 0;
  const flush = () => {
    if (!buf.length) return;
    const s = buf.join("");
    fs.writeSync(fd, s);
    bytes += Buffer.byteLength(s);
    buf = [];
    bufLen = 0;
  };
  try {
    for (const line of generateLines(seed, opts)) {
      buf.push(line, "\n");
      bufLen += line.length + 1;
      lines++;
      if (bufLen > 1 << 20) flush();
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  return { lines, bytes };
}

const FLAGS = new Set(["pi-features"]); // options without a value

function parseArgs(argv) {
  const a = {};
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (!k.startsWith("--")) throw new Error(`unexpected argument ${k}`);
    a[k.slice(2)] = FLAGS.has(k.slice(2)) ? true : argv[++i];
  }
  return a;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const a = parseArgs(process.argv.slice(2));
    if (a.seed === undefined || !a.out) throw new Error("--seed and --out are required");
    const opts = { version: Number(a.version ?? 3) };
    if (a["pi-features"] !== undefined) opts.piFeatures = true;
    if (a.bytes !== undefined) opts.bytes = Number(a.bytes);
    else opts.entries = Number(a.entries ?? 200);
    const res = writeSession(a.out, Number(a.seed), opts);
    console.error(`gen: wrote ${res.lines} lines, ${res.bytes} bytes to ${a.out}`);
  } catch (err) {
    console.error(
      `gen: ${err.message}\nusage: node parity/gen.mjs --seed S --version 1|2|3 (--entries N | --bytes B) [--pi-features] --out FILE`,
    );
    process.exit(2);
  }
}

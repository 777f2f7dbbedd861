#!/usr/bin/env node
// A pi 1.6 session grown the way pi grows one, for the benchmark: turns of a user prompt, an assistant turn with
// thinking and tool calls, their results, a closing answer; pi 1.6's `usage` entries (cache_warm), `context_edit`s of
// failed attempts, labels, session names, compactions that keep the recent turns, and `/tree` branches with a
// branch_summary. Text is mostly not ASCII (German, Russian, Japanese, Chinese, French, emoji, code with comments in
// them) and lines are short: about two thirds of the lines hold non-ASCII text, 1.5–2 KB a line on average, which is
// what the sessions people keep look like (pi16-written.jsonl in the corpus shows the entry shapes).
//
//   node bench/gen16.mjs --seed 7 --bytes 10000000 --out FILE
//
// Deterministic: the same seed and size give the same bytes. Streams: any size in bounded memory.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { mulberry32 } from "../parity/gen.mjs";

const PHRASES = [
  "Warum dauert das Laden der Sitzung so lange? Bitte prüfe die Datei gründlich.",
  "Die Größe der Datei wächst mit jeder Änderung; überprüfe den Zähler für Übergänge.",
  "Почему тест падает на больших файлах? Посмотри, пожалуйста, на загрузчик.",
  "Исправь обработку ошибок и запусти тесты ещё раз, с подробным выводом.",
  "このセッションの読み込みが遅い理由を調べてください。ファイルは大きいです。",
  "テストが失敗しました。エラーメッセージを確認して修正してください。",
  "请检查这个函数为什么在处理长行时变慢，并给出修复方案。",
  "把缓存的逻辑移到单独的模块里，然后运行所有测试。",
  "Peux-tu vérifier pourquoi l'élément sélectionné n'est pas mis à jour après l'écriture ?",
  "Déplace la logique de réessai dans une fonction à part et ajoute un test détaillé.",
  "¿Puedes revisar por qué el índice no se actualiza después de la compactación?",
  "Ok, läuft jetzt ✅ — 42 Tests grün, 0 rot. Nächster Schritt: Benchmark 🚀",
  "Готово: загрузчик теперь читает файл потоком, память ≈ 310 МБ вместо 2,1 ГБ.",
  "完了しました：ストリーミング読み込みで約3倍速くなりました 🎉",
  "Run the tests again and show me only the failures.",
  "Refactor the parser so that it never reads the whole file into one string.",
  "Add a regression test for the CRLF case and keep the old behaviour for LF files.",
  "Looks good. Commit it with a clear message and push the branch.",
];
const THOUGHTS = [
  "Zuerst lese ich den Lader, dann die Tests. Wahrscheinlich liest er die ganze Datei auf einmal — das erklärt den Speicher.",
  "Сначала посмотрю, как читается файл: если целиком, то это и есть узкое место. Потом проверю тесты.",
  "まずローダーを読みます。ファイル全体を一度に読み込んでいるなら、それが原因です。次にテストを確認します。",
  "先看加载器的实现。如果一次性读取整个文件，那就是内存问题的根源。然后再看测试。",
  "Je lis d'abord le chargeur, puis les tests ; s'il lit tout le fichier d'un coup, voilà le problème.",
  "Read the loader first, then the tests. If it reads the whole file at once, that is the memory problem.",
];
const CODE = [
  'export function load(path: string): Session {\n  // Datei zeilenweise lesen, nicht alles auf einmal (Speicher!)\n  const text = readFileSync(path, "utf8");\n  return parse(text.split("\\n"));\n}\n',
  'def load(path):\n    # Читаем файл построчно — иначе память растёт линейно\n    with open(path, encoding="utf-8") as f:\n        return [json.loads(line) for line in f if line.strip()]\n',
  "// セッションを一行ずつ読み込む（巨大なファイルでもメモリは一定）\nfor await (const line of rl) {\n  entries.push(JSON.parse(line));\n}\n",
  "fn read_all(path: &Path) -> io::Result<Vec<Entry>> {\n    // 逐行读取，避免一次性分配整个文件\n    let f = BufReader::new(File::open(path)?);\n    f.lines().map(|l| Ok(serde_json::from_str(&l?)?)).collect()\n}\n",
  "  ✓ load.test.ts > lädt eine leere Datei (2 ms)\n  ✓ load.test.ts > читает CRLF (1 ms)\n  ✗ load.test.ts > 長い行 (15 ms)\n    AssertionError: expected 3 to be 4\n",
  "src/load.ts:12:5 — Fehler: Typ „string | undefined“ ist nicht „string“ zuweisbar.\nsrc/parse.ts:40:1 — предупреждение: неиспользуемая переменная «tmp».\n",
];
// Output of tools that print English only: a third of the lines stay ASCII, as in sessions people keep.
const ASCII_OUT = [
  "  PASS  test/load.test.ts (42 tests) 310ms\n  PASS  test/parse.test.ts (17 tests) 95ms\n  FAIL  test/big.test.ts > reads a 1 GB file\n    Error: heap out of memory\n",
  " src/load.ts  | 14 ++++++++------\n src/parse.ts |  6 +++---\n 2 files changed, 11 insertions(+), 9 deletions(-)\n",
  'import { createReadStream } from "node:fs";\nimport { createInterface } from "node:readline";\n\nexport async function* lines(path: string) {\n  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });\n  for await (const line of rl) yield line;\n}\n',
  'src/load.ts:12:  const text = readFileSync(path, "utf8");\nsrc/export.ts:88:  const body = readFileSync(file, "utf8");\ntest/load.test.ts:5:import { readFileSync } from "node:fs";\n',
  "old: 5.7 s, 2.1 GB RSS\nnew: 1.9 s, 310 MB RSS\nspeed-up: 3.0x\n",
];
const TOOLS = ["read", "bash", "bash", "edit", "grep", "write"];
const MODELS = [
  ["anthropic", "claude-opus-4-6", "anthropic-messages"],
  ["openai", "gpt-5.2", "openai-responses"],
];

class Gen {
  constructor(seed) {
    this.r = mulberry32((Math.imul(seed >>> 0, 0x9e3779b1) ^ 0x85ebca6b) >>> 0);
    this.ids = new Set();
    this.t = Date.parse("2026-11-02T08:00:00.000Z");
    this.call = 0;
  }
  int(a, b) {
    return a + Math.floor(this.r() * (b - a + 1));
  }
  pick(xs) {
    return xs[Math.floor(this.r() * xs.length)];
  }
  chance(p) {
    return this.r() < p;
  }
  id() {
    for (;;) {
      let s = "";
      for (let i = 0; i < 8; i++) s += "0123456789abcdef"[Math.floor(this.r() * 16)];
      if (!this.ids.has(s)) {
        this.ids.add(s);
        return s;
      }
    }
  }
  tick(ms) {
    this.t += ms;
    return new Date(this.t).toISOString();
  }
  text(min, max, pool) {
    const n = this.int(min, max);
    const out = [];
    for (let i = 0; i < n; i++) out.push(this.pick(pool));
    return out.join(this.chance(0.5) ? " " : "\n");
  }
}

function usage(g, input, output) {
  const cacheRead = g.int(2000, 60000);
  const cost = { input: input * 5e-6, output: output * 25e-6, cacheRead: cacheRead * 5e-7, cacheWrite: 0 };
  cost.total = cost.input + cost.output + cost.cacheRead;
  return { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost };
}

/** Writes entries as pi appends them; `parent` is the leaf pointer that /tree moves back. */
function* session(g, model) {
  const [provider, modelId, api] = model;
  let parent = null;
  // What the context holds since the last compaction, in characters: tokensBefore is about a quarter of it, as pi counts.
  let contextChars = 0;
  const entry = (type, fields) => {
    const e = { type, id: g.id(), parentId: parent, timestamp: g.tick(g.int(200, 4000)), ...fields };
    if (type === "message") contextChars += JSON.stringify(e.message.content).length;
    parent = e.id;
    return e;
  };
  yield entry("model_change", { provider, modelId });
  yield entry("thinking_level_change", { thinkingLevel: "high" });
  const userTurns = [];
  let turn = 0;
  for (;;) {
    turn++;
    const user = entry("message", {
      message: { role: "user", content: [{ type: "text", text: g.text(1, 3, PHRASES) }], timestamp: g.t },
    });
    userTurns.push(user);
    yield user;
    for (let step = 0, steps = g.int(1, 5); step < steps; step++) {
      const calls = Array.from({ length: g.int(1, 2) }, () => {
        const name = g.pick(TOOLS);
        return { type: "toolCall", id: `toolu_${(g.call++).toString(36).padStart(6, "0")}`, name, arguments: toolArgs(g, name) };
      });
      const content = [{ type: "thinking", thinking: g.text(1, 2, THOUGHTS), thinkingSignature: "EqQBCkgIARABGAIiQLs" }, ...calls];
      const assistant = entry("message", {
        message: {
          role: "assistant",
          content,
          api,
          provider,
          model: modelId,
          usage: usage(g, g.int(3, 400), g.int(40, 900)),
          stopReason: "toolUse",
          timestamp: g.t,
        },
      });
      yield assistant;
      let failed = null;
      for (const c of calls) {
        const isError = g.chance(0.08);
        const result = entry("message", {
          message: {
            role: "toolResult",
            toolCallId: c.id,
            toolName: c.name,
            content: [
              {
                type: "text",
                text: isError
                  ? "Could not find the exact text in the file."
                  : g.text(3, 24, c.name === "bash" || c.name === "grep" ? ASCII_OUT : CODE),
              },
            ],
            isError,
            timestamp: g.t,
          },
        });
        yield result;
        if (isError) failed = [assistant.id, result.id];
      }
      // pi 1.6 drops a failed attempt from the context once a retry worked.
      if (failed && g.chance(0.6)) for (const targetId of failed) yield entry("context_edit", { targetId, replacement: null });
    }
    yield entry("message", {
      message: {
        role: "assistant",
        content: [{ type: "text", text: g.text(1, 3, PHRASES) }],
        api,
        provider,
        model: modelId,
        usage: usage(g, g.int(3, 200), g.int(20, 400)),
        stopReason: "stop",
        timestamp: g.t,
      },
    });
    if (g.chance(0.15)) {
      const u = usage(g, 3, 1);
      yield entry("usage", { kind: "cache_warm", provider, model: modelId, usage: u });
    }
    if (g.chance(0.1)) yield entry("label", { targetId: g.pick(userTurns).id, label: `cp-${turn}` });
    if (turn === 2 || g.chance(0.02)) yield entry("session_info", { name: g.pick(PHRASES).slice(0, 40) });
    if (turn % 25 === 0 && userTurns.length > 3) {
      const kept = userTurns[userTurns.length - 2];
      yield entry("compaction", {
        summary: `## Ziel\n${g.pick(PHRASES)}\n\n## Fortschritt\n${g.text(2, 4, PHRASES)}`,
        firstKeptEntryId: kept.id,
        tokensBefore: Math.round((contextChars / 4) * (0.9 + 0.2 * g.r())),
      });
      contextChars = 0;
    }
    // /tree: back to an earlier prompt's parent, now and then with a summary of the branch left behind.
    if (g.chance(0.06) && userTurns.length > 4) {
      const back = userTurns[userTurns.length - g.int(2, 4)];
      const fromId = parent;
      parent = back.parentId;
      if (g.chance(0.5)) yield entry("branch_summary", { fromId, summary: g.text(1, 2, PHRASES) });
    }
  }
}

function toolArgs(g, name) {
  switch (name) {
    case "bash":
      return { command: g.pick(["npm test", "git diff --stat", "node bench.mjs", "rg -n 'Größe' src"]) };
    case "edit":
      return { path: "src/load.ts", oldText: g.pick(CODE).slice(0, 120), newText: g.pick(CODE).slice(0, 160) };
    case "write":
      return { path: "docs/notes.md", content: g.text(1, 3, PHRASES) };
    case "grep":
      return { pattern: "readFileSync", path: "src" };
    default:
      return { path: g.pick(["src/load.ts", "src/parse.ts", "README.md", "docs/設計.md"]) };
  }
}

const { values } = parseArgs({
  options: { seed: { type: "string", default: "7" }, bytes: { type: "string" }, out: { type: "string" } },
});
if (!values.bytes || !values.out) {
  console.error("usage: node bench/gen16.mjs --seed S --bytes N --out FILE");
  process.exit(2);
}
const target = Number(values.bytes);
if (!Number.isSafeInteger(target) || target <= 0) {
  console.error(`gen16: --bytes takes a whole number of bytes, not ${values.bytes}`);
  process.exit(2);
}
const g = new Gen(Number(values.seed));
const fd = fs.openSync(values.out, "w");
const header = {
  type: "session",
  version: 3,
  id: "019aa5f1-3c2e-7b4d-9e21-5f0c8d7a6b31",
  timestamp: g.tick(0),
  cwd: "/home/dev/projects/ladezeit",
};
let buf = `${JSON.stringify(header)}\n`;
let written = 0;
for (const e of session(g, MODELS[Number(values.seed) % MODELS.length])) {
  buf += `${JSON.stringify(e)}\n`;
  if (buf.length > 1 << 20) {
    written += fs.writeSync(fd, buf);
    buf = "";
  }
  if (written + Buffer.byteLength(buf) >= target) break;
}
fs.writeSync(fd, buf);
fs.closeSync(fd);

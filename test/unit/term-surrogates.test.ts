import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TerminalFilter } from "../../src/render/sanitize.js";
import { runCli } from "../support/helpers.js";

// A session whose strings hold lone surrogates (`\ud800` escapes in the file), a pair written as escapes
// (`\ud83d\ude00`, kept) and an escaped backslash before `ud800` (text, kept). Written at test time, not kept in
// fixtures/: the tests that read every fixture (tables' parquet against ndjson) would meet it too.
const SOURCE_LINES = [
  String.raw`{"type":"session","version":3,"id":"0194bbbb-0000-7000-8000-000000000001","timestamp":"2025-01-01T10:00:00.000Z","cwd":"/home/u/app\ud800"}`,
  String.raw`{"type":"message","id":"ls000001","parentId":null,"timestamp":"2025-01-01T10:01:00.000Z","message":{"role":"user","content":"broken \ud83d here, kept \ud83d\ude00, literal \\ud800, lone low \udc00 end","timestamp":1735725660000}}`,
  String.raw`{"type":"message","id":"ls000002","parentId":"ls000001","timestamp":"2025-01-01T10:02:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok \uDBFF"},{"type":"toolCall","id":"call1","name":"bash","arguments":{"command":"echo \ud800"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0.0003,"output":0.0003,"cacheRead":0,"cacheWrite":0,"total":0.0006}},"stopReason":"toolUse","timestamp":1735725720000}}`,
  String.raw`{"type":"message","id":"ls000003","parentId":"ls000002","timestamp":"2025-01-01T10:03:00.000Z","message":{"role":"toolResult","toolCallId":"call1","toolName":"bash","content":[{"type":"text","text":"out \udfff"}],"isError":false,"timestamp":1735725780000}}`,
  String.raw`{"type":"label","id":"ls000004","parentId":"ls000003","timestamp":"2025-01-01T10:04:00.000Z","targetId":"ls000002","label":"mark\ud800"}`,
  String.raw`{"type":"session_info","id":"ls000005","parentId":"ls000004","timestamp":"2025-01-01T10:05:00.000Z","name":"name \ud800"}`,
];
const jq = spawnSync("jq", ["--version"], { encoding: "utf8" });
const hasJq = jq.status === 0;

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pisess-term-sur-"));
  mkdirSync(join(dir, "proj"));
  file = join(dir, "proj", "s.jsonl");
  writeFileSync(file, `${SOURCE_LINES.join("\n")}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** jq's verdict on a document (or a stream of them): the exit status and what it says. */
function throughJq(text: string): { status: number | null; stderr: string; out: string } {
  const r = spawnSync("jq", ["-c", "."], { input: text, encoding: "utf8" });
  return { status: r.status, stderr: r.stderr, out: r.stdout };
}

/** Every JSON and NDJSON output; `content`: whether it holds the session's strings (and so a U+FFFD). */
function runs(): [string, () => string[], boolean][] {
  return [
    ["path --json", () => ["path", file, "--json"], true],
    ["path --ndjson", () => ["path", file, "--ndjson"], true],
    ["tree --json", () => ["tree", file, "--json"], true],
    ["tree --ndjson", () => ["tree", file, "--ndjson"], true],
    ["show --json", () => ["show", file, "@2", "--json"], true],
    ["leaves --json", () => ["leaves", file, "--json"], true],
    ["leaves --ndjson", () => ["leaves", file, "--ndjson"], true],
    ["context --json", () => ["context", file, "--json"], true],
    ["context --llm --ndjson", () => ["context", file, "--llm", "--ndjson"], true],
    ["info --json", () => ["info", file, "--json"], true],
    ["labels --json", () => ["labels", file, "--json"], true],
    ["labels --ndjson", () => ["labels", file, "--ndjson"], true],
    ["grep --json", () => ["grep", "broken", file, "--json"], true],
    ["grep --ndjson", () => ["grep", "broken", file, "--ndjson"], true],
    ["diff --json", () => ["diff", file, "@2", "@4", "--json"], false],
    ["follow --ndjson", () => ["follow", file, "--from-start", "--until-idle", "0.2", "--ndjson"], true],
    ["export --format jsonl", () => ["export", file, "--format", "jsonl"], true],
    ["ls --json", () => ["ls", join(dir, "proj"), "--json"], false],
    ["ls --ndjson", () => ["ls", join(dir, "proj"), "--ndjson"], false],
    ["usage --json", () => ["usage", join(dir, "proj"), "--json"], false],
    ["lineage --json", () => ["lineage", file, "--json"], false],
    ["bloat --json", () => ["bloat", file, "--json"], false],
    ["compactions --json", () => ["compactions", file, "--json"], false],
    ["validate --format json", () => ["validate", file, "--format", "json"], false],
    ["validate --format ndjson", () => ["validate", file, "--format", "ndjson"], false],
    ["validate --format sarif", () => ["validate", file, "--format", "sarif"], false],
  ];
}

describe.skipIf(!hasJq)(`lone surrogates: every JSON output reads in ${jq.stdout.trim()} (#32.13)`, () => {
  for (const [name, args, content] of runs()) {
    it(name, async () => {
      const r = await runCli(args());
      expect(r.stdout.length).toBeGreaterThan(0);
      const v = throughJq(r.stdout);
      expect(v.stderr).toBe("");
      expect(v.status).toBe(0);
      if (!content) return;
      expect(r.stdout).toContain("\ufffd");
      expect(r.stdout).not.toMatch(/(?<!\\)(?:\\\\)*\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])/);
      expect(r.stderr).toContain("lone-surrogate");
      expect(r.stderr).toContain("U+FFFD");
    });
  }

  it("a pair written as escapes and an escaped backslash stay as they were", async () => {
    const r = await runCli(["show", file, "@2", "--json"]);
    const text = (JSON.parse(r.stdout) as { entry: { message: { content: string } } }).entry.message.content;
    expect(text).toBe("broken \ufffd here, kept \u{1f600}, literal \\ud800, lone low \ufffd end");
  });

  it("export -o writes the file as stdout would", async () => {
    const out = join(dir, "out.jsonl");
    const r = await runCli(["export", file, "--format", "jsonl", "-o", out]);
    expect(r.code).not.toBe(2);
    const text = readFileSync(out, "utf8");
    expect(throughJq(text).status).toBe(0);
    expect(text).toContain("broken \ufffd here");
  });

  it("text outputs write U+FFFD too, and say so", async () => {
    const r = await runCli(["context", file]);
    expect(r.stdout).toContain("broken \ufffd here");
    expect(r.stderr).toMatch(/s\.jsonl:2: warning lone-surrogate: .*U\+FFFD/);
  });

  it("each finding is said once in a run", async () => {
    const r = await runCli(["grep", "o", file, "--ndjson"]);
    const lines = r.stderr.split("\n").filter((l) => l.includes("lone-surrogate"));
    expect(new Set(lines).size).toBe(lines.length);
  });
});

describe("TerminalFilter: a chunk boundary anywhere gives the same output", () => {
  const whole = (form: "text" | "json", s: string, palette?: Set<string>): string => {
    const f = new TerminalFilter(form, palette);
    return f.push(s) + f.end();
  };
  const split = (form: "text" | "json", s: string, at: number[], palette?: Set<string>): string => {
    const f = new TerminalFilter(form, palette);
    let out = "";
    let from = 0;
    for (const i of [...at, s.length]) {
      out += f.push(s.slice(from, i));
      from = i;
    }
    return out + f.end();
  };

  it("json: lone surrogate escapes, pairs, escaped backslashes, raw controls", () => {
    const s = String.raw`{"a":"x\ud800y","b":"\ud83d\ude00","c":"\\ud800","d":"\\\udc00","e":"\uD83D"}` + "\u0085\u200f";
    const expected =
      String.raw`{"a":"x` +
      "\ufffd" +
      String.raw`y","b":"\ud83d\ude00","c":"\\ud800","d":"\\` +
      "\ufffd" +
      String.raw`","e":"` +
      "\ufffd" +
      String.raw`"}\u0085\u200f`;
    expect(whole("json", s)).toBe(expected);
    for (let i = 0; i <= s.length; i++) for (let j = i; j <= s.length; j += 3) expect(split("json", s, [i, j])).toBe(expected);
  });

  it("text: SGR of the palette, foreign escapes, surrogate pairs and lone ones", () => {
    const palette = new Set(["\u001b[31m", "\u001b[39m"]);
    const s = "\u001b[31mred\u001b[39m \u001b[2J \u001b]52;c;x\u0007 \u{1f600} \ud800 \u200f end";
    const expected = "\u001b[31mred\u001b[39m \\x1b[2J \\x1b]52;c;x\\x07 \u{1f600} \ufffd \\u200f end";
    expect(whole("text", s, palette)).toBe(expected);
    for (let i = 0; i <= s.length; i++) for (let j = i; j <= s.length; j += 2) expect(split("text", s, [i, j], palette)).toBe(expected);
  });

  it("text without a palette (colour off) shows every escape", () => {
    expect(whole("text", "\u001b[31mred\u001b[39m")).toBe("\\x1b[31mred\\x1b[39m");
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-bigline-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A tool output of over 6 MB on one line (with multi-byte characters, escapes and U+2028), between ordinary entries:
// six times the loader's 1 MiB read chunk, so the line is carried across chunks and the buffer grows. (It was
// 20 MB; the code paths are the same, the suite's time was not.)
const big = '日本語 "quoted" \\ back\u2028sep\n'.repeat(210_000);
const lines = [
  { type: "session", version: 3, id: "s-big", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" },
  {
    type: "message",
    id: "u1",
    parentId: null,
    timestamp: "2025-01-01T00:00:01.000Z",
    message: { role: "user", content: "dump it", timestamp: 1 },
  },
  {
    type: "message",
    id: "a1",
    parentId: "u1",
    timestamp: "2025-01-01T00:00:02.000Z",
    message: {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "cat big" } }],
      provider: "p",
      model: "m",
      stopReason: "toolUse",
      timestamp: 2,
    },
  },
  {
    type: "message",
    id: "t1",
    parentId: "a1",
    timestamp: "2025-01-01T00:00:03.000Z",
    message: {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "bash",
      content: [{ type: "text", text: big }],
      isError: false,
      timestamp: 3,
    },
  },
  {
    type: "message",
    id: "a2",
    parentId: "t1",
    timestamp: "2025-01-01T00:00:04.000Z",
    message: { role: "assistant", content: [{ type: "text", text: "done" }], provider: "p", model: "m", stopReason: "stop", timestamp: 4 },
  },
];
const file = join(dir, "big.jsonl");
writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);

describe("a session with a 6 MB line", () => {
  it("is longer than 6 MB on one line", () => {
    expect(Buffer.byteLength(JSON.stringify(lines[3]))).toBeGreaterThan(6 * 1024 * 1024);
  });

  it("tree --json sees every entry", async () => {
    const r = await runCli(["tree", file, "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(JSON.stringify(JSON.parse(r.stdout).entries)).toMatch(
      /"id":"t1","line":4,"parentId":"a1","parentLine":3,"type":"message","role":"toolResult"/,
    );
  });

  it("path --ndjson and context --json give the whole 6 MB text back, byte for byte", async () => {
    const p = await runCli(["path", file, "--ndjson"]);
    const rows = p.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { line: number; entry: { message?: { content?: { text?: string }[] } } });
    expect(rows.map((r) => r.line)).toEqual([2, 3, 4, 5]);
    expect(rows[2]?.entry.message?.content?.[0]?.text).toBe(big);
    const c = await runCli(["context", file, "--json"]);
    expect(c.code).toBe(0);
    const doc = JSON.parse(c.stdout) as { messages: { content: unknown }[] };
    expect(doc.messages[2]?.content).toEqual([{ type: "text", text: big }]);
  });

  it("the text view cuts the output and never prints raw line separators", async () => {
    const r = await runCli(["context", file, "--max-output", "3"]);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(20_000);
    expect(r.stdout).not.toContain("\u2028");
  });
});

import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { snapshotHook } from "../../src/io/scan/index.js";
import { runCli } from "../support/helpers.js";
import { jsonl, NO_PI_ENV, turnUsage } from "../support/small-session.js";

/**
 * Issue 32 point 11: a file that shrinks while it is read (pi rewrites a v1/v2 file in place when it opens it) stops
 * every command with "file shrank while being read", exit 2: none answers from what is no longer the file.
 */
const env = NO_PI_ENV;
const T = "2025-01-01T09:00:00.000Z";
let tmp: string;
const usage = turnUsage({ input: 1, output: 2, total: 3 });

/** A version-2 session of `n` turns (pi would migrate and rewrite it), as text. */
function v2(n: number): string {
  const lines: object[] = [{ type: "session", version: 2, id: "0194aaaa-0000-7000-8000-000000000001", timestamp: T, cwd: "/home/dev/app" }];
  let parent: string | null = null;
  for (let i = 0; i < n; i++) {
    const u = `u${i}`;
    const a = `a${i}`;
    lines.push({
      type: "message",
      id: u,
      parentId: parent,
      timestamp: T,
      message: { role: "user", content: `question ${i}`, timestamp: i },
    });
    lines.push({
      type: "message",
      id: a,
      parentId: u,
      timestamp: T,
      message: {
        role: "assistant",
        content: [{ type: "text", text: `answer ${i}` }],
        provider: "p",
        model: "m",
        usage,
        stopReason: "stop",
        timestamp: i,
      },
    });
    parent = a;
  }
  return jsonl(lines);
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "pisess-shrink-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  snapshotHook.afterSize = null;
});

/** A fresh file that loses its second half once its size is taken, before its bytes are read. */
function shrinking(name: string): string {
  const f = join(tmp, name);
  const text = v2(40);
  writeFileSync(f, text);
  snapshotHook.afterSize = (p) => {
    if (p !== f) return;
    snapshotHook.afterSize = null;
    truncateSync(f, Math.floor(text.length / 2));
  };
  return f;
}

const COMMANDS: [string, (f: string) => string[]][] = [
  ["tree --json", (f) => ["tree", f, "--json"]],
  ["tree", (f) => ["tree", f]],
  ["info", (f) => ["info", f]],
  ["info --json", (f) => ["info", f, "--json"]],
  ["bloat", (f) => ["bloat", f]],
  ["context", (f) => ["context", f]],
  ["path", (f) => ["path", f]],
  ["leaves", (f) => ["leaves", f]],
  ["labels", (f) => ["labels", f]],
  ["show", (f) => ["show", f, "@2"]],
  ["compactions", (f) => ["compactions", f]],
  ["validate", (f) => ["validate", f]],
  ["grep", (f) => ["grep", "question", f]],
  ["usage", (f) => ["usage", f]],
];

describe("a file that shrinks while it is read: exit 2, 'file shrank while being read', for every command", () => {
  for (const [label, argv] of COMMANDS) {
    it(label, async () => {
      const f = shrinking(`${label.replace(/\W+/g, "-")}.jsonl`);
      const r = await runCli(argv(f), { env, cwd: tmp });
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(/file shrank while being read/);
      // One mention of the file: the reason is not prefixed with its path twice.
      expect(r.stderr.split(f).length - 1, r.stderr).toBeLessThanOrEqual(1);
    });
  }
});

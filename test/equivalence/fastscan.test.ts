import { readdirSync } from "node:fs";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import { ROOT } from "../support/helpers.js";

/**
 * The loader's fast path (the skeleton scanner reading each line's bytes) gives the same session as the whole-line
 * parse (`fastScan: false`), on every corpus fixture and on generated long, tricky lines.
 */

const long = (n: number, unit = "x") => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

async function both(file: string): Promise<[Session<"full">, Session<"full">]> {
  const a = await loadSession({ kind: "file", path: file });
  const b = await loadSession({ kind: "file", path: file }, { fastScan: false });
  a.store.close();
  b.store.close();
  return [a, b];
}

function strip(s: Session): unknown {
  return { ...s, store: null };
}

describe("loader fast path", () => {
  it("gives the same session as the whole-line parse on every corpus fixture", async () => {
    const dir = join(ROOT, "fixtures", "corpus");
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
      const [a, b] = await both(join(dir, name));
      expect(isDeepStrictEqual(strip(a), strip(b)), name).toBe(true);
    }
  });

  it("gives the same session on generated files with long, tricky lines", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "pisess-fastscan-"));
    try {
      const file = join(tmp, "s.jsonl");
      const lines = fc.sample(
        fc.record({
          text: fc
            .tuple(fc.integer({ min: 0, max: 9000 }), fc.constantFrom("a", "\n", " ", "é", "🚀", "\u2028", '"', "\\", "\ud83d", "\t"))
            .map(([n, u]) => `${long(n, u)}end`),
          role: fc.constantFrom("user", "assistant", "toolResult", "bashExecution", "custom"),
          kind: fc.constantFrom("message", "compaction", "branch_summary", "custom_message", "label", "session_info"),
          bad: fc.constantFrom(0, 0, 0, 0, 1, 2, 3),
        }),
        { numRuns: 300, seed: 42 },
      );
      const out = ['{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'];
      lines.forEach((l, i) => {
        const id = `e${i}`;
        const parentId = i === 0 ? null : `e${i - 1}`;
        const ts = new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
        const o: Record<string, unknown> = { type: l.kind, id, parentId, timestamp: ts };
        if (l.kind === "message") {
          o.message =
            l.role === "assistant"
              ? {
                  role: l.role,
                  content: [
                    { type: "thinking", thinking: l.text },
                    { type: "text", text: l.text },
                    { type: "toolCall", id: `c${i}`, name: "bash", arguments: { command: l.text } },
                  ],
                  provider: "p",
                  model: "m",
                  usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { total: 0.1 } },
                  stopReason: "toolUse",
                  errorMessage: l.text,
                }
              : l.role === "bashExecution"
                ? { role: l.role, command: l.text, output: l.text }
                : {
                    role: l.role,
                    content: l.role === "user" ? l.text : [{ type: "text", text: l.text }],
                    toolCallId: `c${i}`,
                    toolName: "bash",
                    customType: "x",
                  };
        } else if (l.kind === "label") Object.assign(o, { targetId: "e0", label: l.text });
        else if (l.kind === "session_info") Object.assign(o, { name: l.text });
        else
          Object.assign(o, { summary: l.text, content: l.text, fromId: "root", firstKeptEntryId: "e0", tokensBefore: 5, customType: "c" });
        let s = JSON.stringify(o);
        if (l.bad === 1) s = s.slice(0, s.length - 7); // truncated
        if (l.bad === 2) s = s.replace('end"', 'e\u0001nd"'); // raw control character
        if (l.bad === 3) s = s.replace('"end', '"\\qend'); // bad escape
        out.push(s);
      });
      writeFileSync(file, `${out.join("\n")}\n`);
      const [a, b] = await both(file);
      expect(a.entries.length).toBeGreaterThan(200);
      expect(isDeepStrictEqual(strip(a), strip(b))).toBe(true);
      // previews are still cut from the start of the text
      const rec = a.entries.find((e) => e.type === "message" && e.role === "user" && (e.text?.length ?? 0) === 240);
      if (rec) expect(rec.text?.length).toBe(240);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

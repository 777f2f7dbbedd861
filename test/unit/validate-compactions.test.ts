import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkSession } from "../../src/check/validate.js";
import { loadSession } from "../../src/model/load.js";
import { readEntry } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { describeCompaction, prefixContexts } from "../../src/ops/compactions.js";
import { buildContext } from "../../src/ops/context.js";
import { pathTo } from "../../src/ops/path.js";
import { buildTree } from "../../src/ops/tree.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-validate-compactions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A seeded session with many compactions and every shape their checks meet: branches, kept ranges far back, on
 * another branch, missing, the compaction itself or a non-message; aborted turns (usage that does not count),
 * edits, labels; with `odd`, self-parents, dangling parents and parents named before they exist (cycles); with
 * `dup`, ids used twice.
 */
function session(seed: number, n: number, opts: { odd?: boolean; dup?: boolean }): string {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)] as T;
  const text = (c: string, max: number) => c.repeat(Math.floor(rnd() * max));
  let t = Date.parse("2026-01-01T00:00:00Z");
  const ts = () => {
    t += 1000;
    return new Date(t).toISOString();
  };
  const cost = { input: 0.005, output: 0.005, cacheRead: 0, cacheWrite: 0, total: 0.01 };
  const all: { id: string }[] = [];
  const lines: object[] = [{ type: "session", version: 3, id: "0197c000-0000-7000-8000-000000000003", timestamp: ts(), cwd: "/w" }];
  let next = 0;
  const newId = () => (0x40000000 + ++next).toString(16);
  let tip: string | null = null;
  for (let i = 0; i < n; i++) {
    if (rnd() < 0.05 && all.length > 5) tip = pick(all).id;
    const id = opts.dup && rnd() < 0.02 && all.length > 0 ? pick(all).id : newId();
    let parentId: string | null = tip;
    if (opts.odd) {
      const q = rnd();
      if (q < 0.01) parentId = id;
      else if (q < 0.02) parentId = "nope";
      else if (q < 0.03) parentId = (0x40000000 + next + 3).toString(16);
    }
    const base = { id, parentId, timestamp: ts() };
    const r = rnd();
    let e: { id: string } & Record<string, unknown>;
    if (r < 0.35) e = { type: "message", ...base, message: { role: "user", content: text("u", 2000), timestamp: t } };
    else if (r < 0.65)
      e = {
        type: "message",
        ...base,
        message: {
          role: "assistant",
          content: [{ type: "text", text: text("a", 800) }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "m",
          stopReason: rnd() < 0.15 ? "aborted" : "stop",
          usage: { input: Math.floor(rnd() * 5000), output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: Math.floor(rnd() * 90000), cost },
          timestamp: t,
        },
      };
    else if (r < 0.8)
      e = {
        type: "message",
        ...base,
        message: {
          role: "toolResult",
          toolCallId: "x",
          toolName: "read",
          content: [{ type: "text", text: text("r", 3000) }],
          isError: false,
          timestamp: t,
        },
      };
    else if (r < 0.83) e = { type: "label", ...base, targetId: all.length ? pick(all).id : "none", label: "l" };
    else if (r < 0.85)
      e = {
        type: "context_edit",
        ...base,
        targetId: all.length ? pick(all).id : "none",
        replacement: rnd() < 0.5 ? null : { content: "edited" },
      };
    else if (r < 0.87) e = { type: "custom_message", ...base, customType: "c", content: text("c", 300), display: true };
    else {
      const recent = all.slice(-Math.floor(rnd() * 60) - 1);
      const q = rnd();
      const firstKeptEntryId =
        q < 0.1
          ? "missing-id"
          : q < 0.2
            ? id
            : q < 0.3 && all.length
              ? (all[0] as { id: string }).id
              : recent.length
                ? pick(recent).id
                : null;
      e = { type: "compaction", ...base, summary: text("s", 1500), firstKeptEntryId, tokensBefore: Math.floor(rnd() * 60000) + 1 };
    }
    lines.push(e);
    all.push(e);
    tip = e.id;
  }
  const file = join(dir, `s${seed}${opts.odd ? "-odd" : ""}${opts.dup ? "-dup" : ""}.jsonl`);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return file;
}

describe("validate's compaction findings on sessions with many compactions", () => {
  const ours = new Set(["tokens-before-mismatch", "older-compaction-kept", "first-kept-not-message"]);
  const key = (d: { line: number | null; code: string; args: unknown }) => JSON.stringify([d.line, d.code, d.args]);

  it.each([
    [1, {}],
    [2, {}],
    [3, { odd: true }],
    [4, { odd: true }],
    [11, { dup: true }],
    [6, { odd: true, dup: true }],
  ])("seed %i %o: the same as `compactions` gives each compaction on its own path, every context from the root", async (seed, opts) => {
    const path = session(seed, 700, opts);
    const s = await loadSession({ kind: "file", path });
    try {
      const v = checkSession(s)
        .filter((d) => ours.has(d.code))
        .map(key)
        .sort();
      // The reference: each compaction described on the path from the root to it, with every body read.
      const tree = buildTree(s);
      const read = (r: EntryRec) => readEntry(s, r);
      const c: string[] = [];
      for (const rec of s.entries) {
        if (rec.type !== "compaction" || tree.inCycle[rec.index]) continue;
        const p = pathTo(s, rec);
        if (!p.ok) continue;
        const facts = describeCompaction(s, p.path, buildContext(s, p.path, read), rec, read, prefixContexts(s, p.path, read));
        for (const d of facts.warnings) if (ours.has(d.code)) c.push(key(d));
      }
      c.sort();
      expect(v).toEqual(c);
      expect(v.length).toBeGreaterThan(10);
    } finally {
      s.store.close();
    }
  });
});

import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { readEntry, type Session } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { buildContext } from "../../src/ops/context.js";
import { LeaveOutEffect } from "../../src/ops/export-jsonl.js";
import { pathTo } from "../../src/ops/path.js";
import { toJson } from "../../src/render/json.js";
import { exportJsonl } from "../../src/reports/export.js";
import { openSession } from "../../src/reports/open.js";
import { sessionFiles } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";
import { turnUsage } from "../support/small-session.js";

const T0 = Date.UTC(2025, 5, 1, 12);
const id = (i: number) => (0x10000000 + i).toString(16);
const HEADER = { id: "0196f000-0000-7000-8000-000000000002", timestamp: "2026-01-01T00:00:00.000Z", parentSession: "in.jsonl" };

/** A chain of `n` entries, user and assistant in turn, each user entry's own timestamp unreadable: a warning a turn. */
function warnedChain(n: number, late = false): string {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "s", timestamp: new Date(T0).toISOString(), cwd: "/" })];
  for (let i = 0; i < n; i++) {
    const ms = T0 + 1000 * (i + 1);
    const message =
      i % 2 === 0
        ? { role: "user", content: `u${i}`, timestamp: ms }
        : {
            role: "assistant",
            content: [{ type: "text", text: `a${i}` }],
            api: "a",
            provider: "p",
            model: "m",
            usage: turnUsage({ total: 0 }, { input: 1, output: 1 }),
            stopReason: "stop",
            timestamp: ms,
          };
    // late: every timestamp readable, the first a day late (each later one earlier than the one above, once lifted)
    const timestamp = late ? new Date(ms + (i === 0 ? 86_400_000 : 0)).toISOString() : i % 2 === 0 ? "bad" : new Date(ms).toISOString();
    lines.push(JSON.stringify({ type: "message", id: id(i), parentId: i ? id(i - 1) : null, timestamp, message }));
  }
  return `${lines.join("\n")}\n`;
}

const key = (s: Session, path: EntryRec[]) => {
  const c = buildContext(s, path, (r) => readEntry(s, r));
  return toJson([c.messages, c.thinkingLevel, c.model]);
};

describe("export --format jsonl: linear in the findings on the path (#32.12)", () => {
  it("a chain of 8,000 entries with a warning on every turn is exported in seconds", async () => {
    // Before: every finding rebuilt the whole context to compare it, 4,000 findings × 8,000 entries (over 120 s).
    // In process on this machine now: about 1.5 s (idle); the bound leaves room for a loaded one.
    const session = await loadSession(
      { kind: "stream", name: "in.jsonl", stream: Readable.from([warnedChain(8000)]) },
      { name: "in.jsonl" },
    );
    const t = performance.now();
    const r = await exportJsonl(session, "leaf", HEADER);
    const ms = performance.now() - t;
    expect(r.data?.remaining.filter((d) => d.code === "invalid-timestamp").length).toBe(4000);
    expect(r.data?.sameContext).toBe(true);
    expect(r.data?.lines.length).toBe(8001);
    expect(ms).toBeLessThan(20_000);
  }, 60_000);

  it("a timestamp lifted to the one above, which the next entry is earlier than: 8,000 of them in one run", async () => {
    // Each lifted timestamp made the next entry's a regression, found only by the next round's whole export and
    // validation: a round per entry (2,000 entries took 280 s). Found in the same round now.
    const session = await loadSession(
      { kind: "stream", name: "in.jsonl", stream: Readable.from([warnedChain(8000, true)]) },
      { name: "in.jsonl" },
    );
    const t = performance.now();
    const r = await exportJsonl(session, "leaf", HEADER);
    const ms = performance.now() - t;
    expect(r.data?.changed.length).toBe(7999);
    expect(r.data?.changed.every((c) => c.code === "timestamp-regression" && c.patch === "timestamp-lifted")).toBe(true);
    expectEqual(r.data?.remaining, []);
    expect(r.data?.sameContext).toBe(true);
    expect(r.exitCode).toBe(0);
    // Every entry after the first now carries the first one's time.
    const late = new Date(T0 + 1000 + 86_400_000).toISOString();
    expect(r.data?.lines.slice(2).every((l) => (JSON.parse(l) as { timestamp: string }).timestamp === late)).toBe(true);
    expect(ms).toBeLessThan(20_000);
  }, 60_000);

  it("where LeaveOutEffect answers, it gives the answer a rebuilt context gives (every fixture, every entry on the active path)", async () => {
    let answered = 0;
    for (const file of sessionFiles()) {
      let session: Session;
      try {
        session = await openSession(file);
      } catch {
        continue; // unreadable on purpose
      }
      const leaf = session.defaultLeaf;
      const r = leaf ? pathTo(session, leaf) : null;
      if (!r?.ok || r.path.length > 300) {
        session.store.close();
        continue;
      }
      const path = r.path;
      const read = (rec: EntryRec) => readEntry(session, rec);
      const effect = new LeaveOutEffect(session, path, read);
      effect.update(buildContext(session, path, read), new Set());
      const want = key(session, path);
      for (const rec of path) {
        const fast = effect.changes(rec);
        if (fast === null) continue;
        answered++;
        const slow = key(
          session,
          path.filter((e) => e !== rec),
        );
        expect(fast, `${file}:${rec.line}`).toBe(slow !== want);
      }
      session.store.close();
    }
    expect(answered).toBeGreaterThan(200);
  }, 120_000);
});

import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readEntry } from "../../src/model/session.js";
import type { Diagnostic } from "../../src/model/types.js";
import { followStatus } from "../../src/render/follow.js";
import { type FollowEvent, FollowContextSize, followContextTokens, followSession } from "../../src/reports/follow.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-follow-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let t = Date.parse("2026-03-01T10:00:00Z");
const ts = () => {
  t += 1000;
  return new Date(t).toISOString();
};
const header = (id: string) => ({ type: "session", version: 3, id, timestamp: ts(), cwd: "/w" });
const msg = (id: string, parentId: string | null, role: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: "message",
  id,
  parentId,
  timestamp: ts(),
  message: { role, content: [{ type: "text", text }], ...extra },
});
const usage = (total: number) => ({
  input: total - 100,
  output: 100,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: total,
  cost: { total: 0.5 },
});
const jsonl = (...os: object[]) => os.map((o) => `${JSON.stringify(o)}\n`).join("");

/** A follow of `file` stepped by hand: each next() runs the generator to its next event. */
function stepper(file: string, opts: { fromStart?: boolean } = {}) {
  const gen = followSession({ file, watch: false, pollMs: 5, untilIdleMs: 400, ...opts });
  return {
    async next(): Promise<FollowEvent> {
      const r = await gen.next();
      if (r.done) throw new Error("follow ended");
      return r.value;
    },
    async until<K extends FollowEvent["kind"]>(kind: K): Promise<Extract<FollowEvent, { kind: K }>> {
      for (;;) {
        const ev = await this.next();
        if (ev.kind === kind) return ev as Extract<FollowEvent, { kind: K }>;
      }
    },
    async stop(): Promise<void> {
      await gen.return(undefined);
    },
  };
}

describe("follow reads entries back through the tail's own descriptor", () => {
  it("a file replaced after its lines were read still serves its own bytes, not the new file's at its offsets", async () => {
    const file = join(dir, "replaced-before-read.jsonl");
    const a = [header("0195aaaa-0000-7000-8000-000000000001"), msg("a0000001", null, "user", "first file, first prompt")];
    writeFileSync(file, jsonl(...a));
    const f = stepper(file);
    const open = await f.until("open");
    // Same line lengths, other bytes: read at the old offsets, the new file would give other text.
    const other = join(dir, "replaced-before-read.new");
    writeFileSync(other, jsonl(header("0195bbbb-0000-7000-8000-000000000002"), msg("b0000001", null, "user", "other file, other prompt")));
    renameSync(other, file);
    const rec = open.session.entries[0];
    expect(rec).toBeDefined();
    expect(readEntry(open.session, rec!)).toEqual(a[1]);
    await f.stop();
  });

  it("lines of the old file in the batch that found it replaced read back from it; the new file's from the new one", async () => {
    const file = join(dir, "replaced-in-batch.jsonl");
    writeFileSync(file, jsonl(header("0195aaaa-0000-7000-8000-000000000003"), msg("a0000001", null, "user", "before")));
    const f = stepper(file);
    await f.until("open");
    const appended = msg("a0000002", "a0000001", "assistant", "appended to the old file just before it was replaced");
    appendFileSync(file, jsonl(appended));
    const other = join(dir, "replaced-in-batch.new");
    const replacement = msg("b0000001", null, "user", "the new file's own first entry, longer than the old ones were");
    writeFileSync(other, jsonl(header("0195bbbb-0000-7000-8000-000000000004"), replacement));
    renameSync(other, file);
    const old = await f.until("entry");
    expect(old.rec.id).toBe("a0000002");
    expect(readEntry(old.session, old.rec)).toEqual(appended);
    expect((await f.next()).kind).toBe("reset");
    const fresh = await f.until("entry");
    expect(readEntry(fresh.session, fresh.rec)).toEqual(replacement);
    await f.stop();
  });
});

describe("follow reports findings in the lines it reads, and keeps none", () => {
  it("appended lines that fail to parse, blank lines and duplicate ids: coded problems, then the entry; none stay in the index", async () => {
    const file = join(dir, "problems.jsonl");
    // One malformed line in the existing part: counted at open (its entries are not reported).
    writeFileSync(file, `${jsonl(header("0195aaaa-0000-7000-8000-000000000005"), msg("a0000001", null, "user", "hi"))}{"type":\n`);
    const f = stepper(file);
    const open = await f.until("open");
    expect(open.problems).toEqual({ error: 1, warning: 0 });
    expect(open.session.diagnostics).toEqual([]);
    appendFileSync(
      file,
      `{"type":"message","id":\n\n${jsonl(msg("a0000001", null, "user", "again"), msg("a0000002", "a0000001", "user", "ok"))}`,
    );
    const seen: (Diagnostic | string)[] = [];
    for (;;) {
      const ev = await f.next();
      if (ev.kind === "problem") seen.push(ev.diagnostic);
      else if (ev.kind === "entry") {
        seen.push(`entry ${ev.rec.line}`);
        expect(ev.session.diagnostics).toEqual([]);
        expect(ev.session.skipped).toEqual([]);
      } else if (ev.kind === "idle") break;
    }
    expect(seen.map((x) => (typeof x === "string" ? x : `${x.line} ${x.severity} ${x.code}`))).toEqual([
      "4 error malformed-json",
      "5 info blank-line",
      "6 error duplicate-id",
      "entry 6",
      "entry 7",
    ]);
    await f.stop();
  });
});

describe("the context size of the status line", () => {
  it("appends, /tree jumps, compactions, edits and duplicate ids: equal to a build from the whole path at every entry", async () => {
    const file = join(dir, "context-size.jsonl");
    const lines: object[] = [header("0195aaaa-0000-7000-8000-000000000006")];
    let n = 0;
    const id = () => `e${String(++n).padStart(7, "0")}`;
    let last: string | null = null;
    const add = (o: Record<string, unknown>) => {
      lines.push(o);
      last = o.id as string;
      return last;
    };
    const turn = (parent: string | null, stop = "stop") => {
      const u = add(msg(id(), parent, "user", "x".repeat(400)));
      const a = add(msg(id(), u, "assistant", "y".repeat(120), { stopReason: stop, usage: usage(5000 + n * 10) }));
      return add({
        ...msg(id(), a, "toolResult", "z".repeat(900)),
        message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "z".repeat(900) }] },
      });
    };
    let tip = turn(null);
    tip = turn(tip);
    const fork = tip;
    tip = turn(tip, "aborted");
    tip = add(msg(id(), tip, "user", "no usage after this one"));
    tip = turn(fork); // a /tree jump
    tip = add({
      type: "compaction",
      id: id(),
      parentId: tip,
      timestamp: ts(),
      summary: "s".repeat(300),
      firstKeptEntryId: fork,
      tokensBefore: 9000,
    });
    tip = turn(tip);
    tip = add({
      type: "custom_message",
      id: id(),
      parentId: tip,
      timestamp: ts(),
      customType: "note",
      content: "c".repeat(200),
      display: true,
    });
    tip = add({ type: "label", id: id(), parentId: tip, timestamp: ts(), targetId: fork, label: "here" });
    tip = add({ type: "context_edit", id: id(), parentId: tip, timestamp: ts(), targetId: "e9999999", replacement: null });
    tip = turn(tip);
    // The edit's target arrives later: the append changes a message the path held before it.
    tip = add({ ...msg("e9999999", tip, "user", "w".repeat(800)) });
    tip = turn(tip);
    tip = add(msg(fork, tip, "user", "an id used again"));
    tip = turn(tip);
    writeFileSync(file, jsonl(...lines));

    const f = stepper(file, { fromStart: true });
    const size = new FollowContextSize();
    let calls = 0;
    for (;;) {
      const ev = await f.next();
      if (ev.kind === "idle" || ev.kind === "open") break;
      if (ev.kind !== "entry") continue;
      calls++;
      expect(size.tokensAt(ev.session), `at line ${ev.rec.line}`).toBe(followContextTokens(ev.session));
    }
    await f.stop();
    expect(calls).toBe(lines.length - 1);
    // Built whole at the first entry, the jump, the compaction, the edit and every entry after it; the rest appended.
    expect(size.rebuilds).toBeGreaterThan(3);
    expect(size.rebuilds).toBeLessThan(calls / 2);
  });
});

describe("follow's costs", () => {
  it("are written as every other command writes them ($ and 4 decimals)", () => {
    expect(followStatus("s.jsonl", { entries: 3, tokens: 1500, cost: 0.5 }, null)).toBe("s.jsonl · 3 entries · 1.5k tokens · $0.5000");
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import { treeShape } from "../../src/ops/leaves.js";
import { computeStats } from "../../src/ops/stats.js";
import { forkCopy } from "../../src/ops/fork-copy.js";
import { sessionTotals, type KindTotals, type Totals } from "../../src/ops/totals.js";
import { buildTree } from "../../src/ops/tree.js";
import { expectGolden } from "../support/golden.js";
import { AMOUNT_KEYS, corpus, fixture, ROOT, spawnCli, expectedOf } from "../support/helpers.js";
import { infoOut, leavesNdjsonOut, lsOut } from "../support/inproc.js";
import { expectEqual } from "../support/expect-fast.js";

/**
 * Spend as pi 1.6 records it: assistant turns, tool results with usage, compactions and branch summaries with
 * usage, and `usage` entries. Every expected number is computed here from the JSONL with plain JSON.parse,
 * following the rules documented in docs/sessions.md and src/ops/totals.ts, not with pisess's loader.
 */

type Json = Record<string, any>;

// ---------- the oracle ----------

interface Entry {
  line: number;
  e: Json;
}

function parse(path: string): Entry[] {
  const out: Entry[] = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((l, i) => {
      if (i === 0) return; // the header
      let o: unknown;
      try {
        o = JSON.parse(l);
      } catch {
        return;
      }
      if (typeof o === "object" && o !== null && !Array.isArray(o)) out.push({ line: i + 1, e: o as Json });
    });
  return out;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

interface Spend {
  kind: string;
  usage: Json | undefined;
}

/** The kind key "source|kind" and the usage object of an entry that records spend. */
function spendOf(e: Json): Spend | undefined {
  const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
  if (e.type === "message" && isObj(e.message)) {
    if (e.message.role === "assistant") return { kind: "assistant|", usage: isObj(e.message.usage) ? e.message.usage : undefined };
    if (e.message.role === "toolResult" && isObj(e.message.usage)) return { kind: "toolResult|", usage: e.message.usage };
    return undefined;
  }
  if (!isObj(e.usage)) return undefined;
  if (e.type === "compaction" || e.type === "branch_summary") return { kind: `${e.type}|`, usage: e.usage };
  if (e.type === "usage") return { kind: `usage|${str(e.kind) ?? ""}`, usage: e.usage };
  return undefined;
}

type Sum = Totals & { entries: number };
const zero = (): Sum => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, cacheWrite1h: 0, reasoning: 0, entries: 0 });

function addTo(t: Sum, u: Json | undefined): void {
  t.entries++;
  if (!u) return;
  t.input += num(u.input);
  t.output += num(u.output);
  t.cacheRead += num(u.cacheRead);
  t.cacheWrite += num(u.cacheWrite);
  t.cacheWrite1h += num(u.cacheWrite1h);
  t.reasoning += num(u.reasoning);
  t.cost += typeof u.cost === "object" && u.cost !== null ? num(u.cost.total) : 0;
}

function sumOf(entries: Entry[]): { total: Sum; kinds: Map<string, Sum> } {
  const total = zero();
  const kinds = new Map<string, Sum>();
  for (const { e } of entries) {
    const s = spendOf(e);
    if (!s) continue;
    addTo(total, s.usage);
    const k = kinds.get(s.kind) ?? zero();
    addTo(k, s.usage);
    kinds.set(s.kind, k);
  }
  return { total, kinds };
}

/** The model an entry's spend counts under (docs/sessions.md: assistant/usage entries their own, else the model in effect). */
function modelOf(entries: Entry[]): (e: Json) => string {
  const byId = new Map<string, Json>();
  for (const { e } of entries) if (typeof e.id === "string" && e.id !== "") byId.set(e.id, e);
  const inEffect = (start: Json): string => {
    const seen = new Set<Json>();
    for (let cur: Json | undefined = start; cur && !seen.has(cur); ) {
      seen.add(cur);
      if (cur.type === "model_change") return `${str(cur.provider) ?? "?"}/${str(cur.modelId) ?? "?"}`;
      if (cur.type === "message" && cur.message?.role === "assistant")
        return `${str(cur.message.provider) ?? "?"}/${str(cur.message.model) ?? "?"}`;
      cur = typeof cur.parentId === "string" ? byId.get(cur.parentId) : undefined;
    }
    return "?/?";
  };
  return (e) => {
    if (e.type === "message" && e.message?.role === "assistant") return `${str(e.message.provider) ?? "?"}/${str(e.message.model) ?? "?"}`;
    if (e.type === "usage" && (str(e.provider) !== undefined || str(e.model) !== undefined))
      return `${str(e.provider) ?? "?"}/${str(e.model) ?? "?"}`;
    if (e.type === "branch_summary" && typeof e.fromId === "string" && byId.has(e.fromId)) return inEffect(byId.get(e.fromId)!);
    return inEffect(e);
  };
}

function expectTotals(actual: Totals, expected: Totals, where: string): void {
  expect(actual.input, where).toBe(expected.input);
  expect(actual.output, where).toBe(expected.output);
  expect(actual.cacheRead, where).toBe(expected.cacheRead);
  expect(actual.cacheWrite, where).toBe(expected.cacheWrite);
  expect(actual.cacheWrite1h, where).toBe(expected.cacheWrite1h);
  expect(actual.reasoning, where).toBe(expected.reasoning);
  expect(actual.cost, where).toBeCloseTo(expected.cost, 9);
}

const kindKey = (k: KindTotals): string => `${k.source}|${k.kind ?? ""}`;

function expectKinds(actual: KindTotals[], expected: Map<string, Sum>, where: string): void {
  expectEqual(actual.map(kindKey).sort(), [...expected.keys()].sort(), where);
  for (const k of actual) {
    const o = expected.get(kindKey(k))!;
    expect(k.entries, `${where} ${kindKey(k)}`).toBe(o.entries);
    expectTotals(k, o, `${where} ${kindKey(k)}`);
  }
}

const load = (path: string): Promise<Session<"full">> => loadSession({ kind: "file", path });

// ---------- pi 1.6 corpus ----------

describe("spend of the pi 1.6 corpus", () => {
  for (const name of ["pi16-written", "gen16-branchy", "gen16-edits", "gen16-faults"]) {
    it(`${name}: overall, per kind, per model and per leaf`, async () => {
      const path = corpus(`${name}.jsonl`);
      const entries = parse(path);
      const expectedDoc = expectedOf(name) as Json;
      const session = await load(path);
      try {
        const t = sessionTotals(session);
        const all = sumOf(entries);
        // The corpus holds what the task is about: usage entries and summaries with usage.
        expect([...all.kinds.keys()].some((k) => k.startsWith("usage|"))).toBe(true);
        expect([...all.kinds.keys()].some((k) => k === "compaction|" || k === "branch_summary|")).toBe(true);
        expectTotals(t.totals, all.total, "totals");
        expectKinds(t.byKind, all.kinds, "byKind");
        expect(t.assistantMessages).toBe(all.kinds.get("assistant|")?.entries ?? 0);

        const model = modelOf(entries);
        const byModel = new Map<string, Entry[]>();
        for (const en of entries) {
          if (!spendOf(en.e)) continue;
          const m = model(en.e);
          byModel.set(m, [...(byModel.get(m) ?? []), en]);
        }
        expectEqual(t.models.map((m) => `${m.provider}/${m.model}`).sort(), [...byModel.keys()].sort());
        for (const m of t.models) {
          const o = sumOf(byModel.get(`${m.provider}/${m.model}`)!);
          expectTotals(m, o.total, `model ${m.provider}/${m.model}`);
          expectKinds(m.byKind, o.kinds, `model ${m.provider}/${m.model}`);
          expect(m.assistantMessages).toBe(o.kinds.get("assistant|")?.entries ?? 0);
        }

        // Per leaf, over the path pi itself builds (expected.json), and the part after the last fork point.
        const byLine = new Map(entries.map((en) => [en.line, en]));
        const byId = new Map<string, Entry>();
        for (const en of entries) if (typeof en.e.id === "string" && en.e.id !== "") byId.set(en.e.id, en);
        const kids = new Map<number, number>();
        for (const en of entries) {
          const p = typeof en.e.parentId === "string" ? byId.get(en.e.parentId) : undefined;
          if (p && p !== en) kids.set(p.line, (kids.get(p.line) ?? 0) + 1);
        }
        const shape = treeShape(session, buildTree(session));
        let checked = 0;
        for (const leaf of shape.leaves) {
          const pi = (expectedDoc.leaves as Json[]).find((l) => l.line === leaf.rec.line);
          if (!pi?.id || !Array.isArray(pi.path) || pi.error) continue;
          const path = (pi.path as number[]).map((l) => byLine.get(l)!);
          let fork = -1;
          for (let i = 0; i < path.length - 1; i++) if ((kids.get(path[i]!.line) ?? 0) > 1) fork = i;
          const whole = sumOf(path);
          const own = sumOf(path.slice(fork + 1));
          const where = `${name} leaf @${leaf.rec.line}`;
          expectTotals(leaf.totals, whole.total, where);
          expectKinds(leaf.byKind, whole.kinds, where);
          expectTotals(leaf.ownTotals, own.total, `${where} own`);
          expectKinds(leaf.ownByKind, own.kinds, `${where} own`);
          checked++;
        }
        expect(checked).toBeGreaterThan(0);
      } finally {
        session.store.close();
      }
    });
  }

  it("the index keeps numbers only for spend: no summary, note or message body", async () => {
    const session = await load(corpus("pi16-written.jsonl"));
    try {
      const recs = session.entries.filter((r) => r.usage && r.type !== "message");
      expectEqual(recs.map((r) => r.type).sort(), ["branch_summary", "compaction", "compaction", "usage", "usage"]);
      for (const r of recs) for (const v of Object.values(r.usage!)) expect(typeof v).toBe("number");
      const warm = recs.find((r) => r.type === "usage")!;
      expect(warm).toMatchObject({ usageKind: "cache_warm", provider: "anthropic", model: "claude-opus-4-6" });
      expect(JSON.stringify(warm)).not.toContain("extension override");
    } finally {
      session.store.close();
    }
  });
});

// ---------- a fork whose parent holds usage entries and summaries with usage ----------

describe("spend of a fork and its parent", () => {
  const parentPath = fixture("glance", "spend-parent.jsonl");
  const forkPath = fixture("glance", "spend-fork.jsonl");
  const key = (en: Entry) => `${en.e.id}|${en.e.timestamp}`;

  it("counts every entry once across parent and fork; copies are shown apart", async () => {
    const pe = parse(parentPath);
    const fe = parse(forkPath);
    const parentKeys = new Set(pe.map(key));
    const copiedEntries = fe.filter((en) => parentKeys.has(key(en)));
    // The copied part holds every kind of spend.
    expectEqual([...sumOf(copiedEntries).kinds.keys()].sort(), [
      "assistant|",
      "branch_summary|",
      "compaction|",
      "toolResult|",
      "usage|cache_warm",
      "usage|title",
    ]);
    const parent = await load(parentPath);
    const fork = await load(forkPath);
    try {
      const mask = forkCopy(fork, parent).copied;
      const pt = sessionTotals(parent);
      const ft = sessionTotals(fork, mask);
      // Each entry once: parent + fork (copies left out) equals the union of both files by id and timestamp.
      const union = new Map<string, Entry>();
      for (const en of [...pe, ...fe]) union.set(key(en), en);
      const u = sumOf([...union.values()]);
      const both = zero();
      for (const t of [pt.totals, ft.totals]) for (const k of Object.keys(t) as (keyof Totals)[]) both[k] += t[k];
      expectTotals(both, u.total, "parent + fork");
      for (const [k, o] of u.kinds) {
        const rows = [...pt.byKind, ...ft.byKind].filter((r) => kindKey(r) === k);
        expect(
          rows.reduce((s, r) => s + r.entries, 0),
          k,
        ).toBe(o.entries);
        expect(
          rows.reduce((s, r) => s + r.cost, 0),
          k,
        ).toBeCloseTo(o.cost, 9);
      }
      const own = sumOf(fe.filter((en) => !parentKeys.has(key(en))));
      expectTotals(ft.totals, own.total, "fork");
      expectKinds(ft.byKind, own.kinds, "fork");
      const copied = sumOf(copiedEntries);
      expectTotals(ft.copied!.totals, copied.total, "copied");
      expectKinds(ft.copied!.byKind, copied.kinds, "copied");
      expect(ft.copied!.entries).toBe(copiedEntries.length);
      // --include-copied: the whole file.
      const inc = sessionTotals(fork, mask, true);
      const whole = sumOf(fe);
      expectTotals(inc.totals, whole.total, "include-copied");
      expectKinds(inc.byKind, whole.kinds, "include-copied");
      // Leaves: the copied prefix is left out of the path sums too.
      const leaf = treeShape(fork, buildTree(fork), { exclude: mask }).leaves;
      expect(leaf).toHaveLength(1);
      expectTotals(leaf[0]!.totals, own.total, "fork leaf");
      expectKinds(leaf[0]!.byKind, own.kinds, "fork leaf");
      const leafInc = treeShape(fork, buildTree(fork)).leaves[0]!;
      expectTotals(leafInc.totals, whole.total, "fork leaf, copies included");
    } finally {
      parent.store.close();
      fork.store.close();
    }
  });

  it("summaries and tool results count under the model in effect; a branch summary under its fromId's", async () => {
    const parent = await load(parentPath);
    try {
      const t = sessionTotals(parent);
      const kind = (model: string, k: string) =>
        t.models.find((m) => `${m.provider}/${m.model}` === model)?.byKind.find((r) => kindKey(r) === k);
      // bs1 hangs below a1 (anthropic) but summarises the branch left at a2, answered by gpt-5.
      expect(kind("openai/gpt-5", "branch_summary|")).toMatchObject({ entries: 1, input: 400 });
      // c1 follows a model_change to gemini-2.5-pro, with no assistant turn in between.
      expect(kind("google/gemini-2.5-pro", "compaction|")).toMatchObject({ entries: 1, input: 1000, reasoning: 40 });
      // r1 answers a3 (anthropic); usage entries carry their own model.
      expect(kind("anthropic/claude-sonnet-4-5", "toolResult|")).toMatchObject({ entries: 1, input: 50 });
      expect(kind("openai/gpt-5-mini", "usage|title")).toMatchObject({ entries: 1, input: 30 });
      expect(t.models.find((m) => m.model === "gpt-5-mini")?.assistantMessages).toBe(0);
    } finally {
      parent.store.close();
    }
  });

  it("path and diff stats count every kind of spend", async () => {
    const parent = await load(parentPath);
    try {
      const s = computeStats(parent.entries);
      const o = sumOf(parse(parentPath)).total;
      expectEqual(s.tokens, { input: o.input, output: o.output, cacheRead: o.cacheRead, cacheWrite: o.cacheWrite });
      expect(s.cost).toBeCloseTo(o.cost, 6);
    } finally {
      parent.store.close();
    }
  });

  // The JSON in-process, with the renderers the commands use; the text through the binary.
  it("info, leaves and ls --json carry the totals by kind; text shows them (golden)", async () => {
    const pe = parse(parentPath);
    const fe = parse(forkPath);
    const parentKeys = new Set(pe.map(key));
    const own = sumOf(fe.filter((en) => !parentKeys.has(key(en))));
    const info = JSON.parse((await infoOut(forkPath, { json: true })).stdout) as Json;
    expectTotals(info.totals, own.total, "info");
    expectKinds(info.byKind, own.kinds, "info");
    expectKinds(info.copied.byKind, sumOf(fe.filter((en) => parentKeys.has(key(en)))).kinds, "info copied");
    expectEqual(Object.keys(info.byKind[0]), ["source", "kind", "entries", ...AMOUNT_KEYS]);
    expectKinds(info.leaves[0].ownByKind, own.kinds, "info leaf");
    const leaves = JSON.parse((await leavesNdjsonOut(forkPath, { includeCopied: true })).stdout.split("\n")[0] as string) as Json;
    expectKinds(leaves.byKind, sumOf(fe).kinds, "leaves --include-copied");
    const ls = JSON.parse((await lsOut({ dirs: [parentPath, forkPath], env: {}, cwd: ROOT })).stdout) as Json;
    const lsFork = (ls.sessions as Json[]).find((s) => s.path === forkPath)!;
    expectTotals(lsFork.totals, own.total, "ls fork");
    expectKinds(lsFork.byKind, own.kinds, "ls fork");
    const lsParent = (ls.sessions as Json[]).find((s) => s.path === parentPath)!;
    expectTotals(lsParent.totals, sumOf(pe).total, "ls parent");

    const rel = "fixtures/glance/spend-parent.jsonl";
    expectGolden("spend-info-parent.txt", spawnCli(["info", rel]).stdout);
    expectGolden("spend-leaves-parent.txt", spawnCli(["leaves", rel]).stdout);
  });
});

import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { readEntry } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { buildContext } from "../../src/ops/context.js";
import { convertToLlm, convertToLlmMapped } from "../../src/ops/llm.js";
import { pathTo } from "../../src/ops/path.js";
import { findByLine } from "../../src/ops/refs.js";
import { corpus, expectedOf, fingerprint, ndjsonValues, ROOT, runCli } from "../support/helpers.js";
import { contextJsonOut } from "../support/inproc.js";
import { expectEqual, expectSame } from "../support/expect-fast.js";

interface Leaf {
  line: number;
  id?: string;
  default?: boolean;
  error?: string;
  contextError?: unknown;
  contextLeafLine?: number;
  path?: number[];
  context?: { thinkingLevel?: string; model?: unknown; messages: unknown[] };
  llm?: unknown[];
  /** pi 1.6 files: the line of the entry behind each context message. */
  messageLines?: number[];
  /** pi 1.6 files: each context_edit on the path and what became of it. */
  edits?: { line: number; targetLine?: number; status: string }[];
}

const files = readdirSync(`${ROOT}/fixtures/corpus`).filter((f) => f.endsWith(".jsonl"));
const expected = (f: string): { leaves: Leaf[] } => expectedOf(f);
/** What JSON output carries: undefined keys gone, NaN → null. */
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/**
 * pi addresses a leaf by id: where the expected file says pi built the context of another line (a duplicate id
 * resolves to its last use; an entry without id makes pi fall back to the last entry), that line is the one whose
 * context pisess must match. pisess's @LINE names the physical entry, so the test follows pi's choice.
 */
const piLine = (leaf: Leaf): number => leaf.contextLeafLine ?? leaf.line;

describe("context: every leaf of the corpus equals pi's buildSessionContext and convertToLlm (in process)", () => {
  it.each(files)("%s", async (f) => {
    const exp = expected(f);
    const session = await loadSession({ kind: "file", path: corpus(f) });
    try {
      expect(exp.leaves.length).toBeGreaterThan(0);
      for (const leaf of exp.leaves) {
        const rec = findByLine(session, piLine(leaf)) as EntryRec;
        expect(rec, `${f}:${leaf.line}`).toBeDefined();
        const p = pathTo(session, rec);
        if (leaf.error === "cycle") {
          expect(p.ok, `${f}:${leaf.line} is a cycle`).toBe(false);
          continue;
        }
        if (!p.ok) throw new Error(`${f}:${leaf.line}: unexpected cycle`);
        expectEqual(
          p.path.map((r) => r.line),
          leaf.path,
          `${f}:${leaf.line} path`,
        );
        const ctx = buildContext(session, p.path, (r) => readEntry(session, r));
        if (leaf.contextError !== undefined) {
          // pi throws here (an edit without replacement); pisess builds on without that edit and marks it.
          expect(
            ctx.edits.some((e) => e.piThrows),
            `${f}:${leaf.line}`,
          ).toBe(true);
          continue;
        }
        if (leaf.messageLines)
          expectEqual(
            ctx.sources.map((r) => r.line),
            leaf.messageLines,
            `${f}:${leaf.line} messageLines`,
          );
        if (leaf.edits) {
          const got = ctx.edits.map((e) => json({ line: e.edit.line, targetLine: e.target?.line ?? null, status: e.status }));
          expectEqual(got, leaf.edits, `${f}:${leaf.line} edits`);
        }
        expectEqual(
          json({ thinkingLevel: ctx.thinkingLevel, model: ctx.model, messages: ctx.messages }),
          leaf.context,
          `${f}:${leaf.line} context`,
        );
        expectEqual(json(convertToLlm(ctx.messages)), leaf.llm, `${f}:${leaf.line} llm`);
        expect(ctx.sources).toHaveLength(ctx.messages.length);
        expectEqual(
          ctx.problems.filter((d) => d.code === "message-missing"),
          [],
        );
        // Each source produced its message: message entries hold it verbatim unless an edit replaced its content
        // (then the original is kept beside it) or pi normalised a missing content; the others were built from them.
        ctx.sources.forEach((src, i) => {
          const entry = readEntry(session, src);
          const edit = ctx.editedBy[i];
          if (edit) {
            expectSame(edit.type, "context_edit");
            expect(ctx.originals[i]).toBeDefined();
          }
          const m = (ctx.originals[i] ?? ctx.messages[i]) as Record<string, unknown>;
          const recorded = entry.message as Record<string, unknown> | undefined;
          if (src.type === "message" && recorded?.content != null) expectEqual(m, recorded);
          else if (src.type === "message") expectEqual({ ...m, content: undefined }, { ...recorded, content: undefined });
          else expect(["compaction", "branch_summary", "custom_message"]).toContain(src.type);
        });
        const mapped = convertToLlmMapped(ctx.messages);
        expect(mapped.from).toHaveLength(mapped.messages.length);
        mapped.from.forEach((from, i) => {
          expectSame((ctx.messages[from] as { timestamp?: unknown }).timestamp, (mapped.messages[i] as { timestamp?: unknown }).timestamp);
        });
      }
    } finally {
      session.store.close();
    }
  });

  it("an entry without an id is shown with its own path (pi cannot address it and falls back to the last entry)", async () => {
    const f = "gen-v3-cycle-crlf-bom.jsonl";
    const leaf = expected(f).leaves.find((l) => l.id === undefined && !l.error) as Leaf;
    expect(leaf.contextLeafLine).not.toBe(leaf.line);
    const session = await loadSession({ kind: "file", path: corpus(f) });
    const p = pathTo(session, findByLine(session, leaf.line) as EntryRec);
    if (!p.ok) throw new Error("cycle");
    expectEqual(
      p.path.map((r) => r.line),
      [leaf.line],
    );
    const ctx = buildContext(session, p.path, (r) => readEntry(session, r));
    expectEqual(ctx.messages, [readEntry(session, p.path[0] as EntryRec).message]);
    session.store.close();
  });
});

/** A few leaves per file through the CLI (in process): first, default, last, and every cycle. */
function sample(leaves: Leaf[]): Leaf[] {
  const pick = new Set<Leaf>();
  const first = leaves[0];
  const last = leaves[leaves.length - 1];
  if (first) pick.add(first);
  if (last) pick.add(last);
  for (const l of leaves) if (l.default || l.error || l.contextLeafLine !== undefined) pick.add(l);
  return [...pick];
}

/**
 * What `context --json`, `--llm --json` and `--llm --ndjson` write for a leaf, rendered in-process with the
 * renderer the command uses (test/inproc.ts); the CLI test below proves the command writes these same bytes.
 */
async function checkJsonOutputs(f: string, leaf: Leaf): Promise<void> {
  const path = corpus(f);
  const ref = `@${piLine(leaf)}`;
  const r = await contextJsonOut(path, { leaf: ref });
  if (leaf.error === "cycle") {
    expect(r.code, `${f} ${ref}`).toBe(1);
    expect(r.stdout).toBe("");
    return;
  }
  expect(r.code, `${f} ${ref}`).toBe(0);
  const doc = JSON.parse(r.stdout) as Record<string, unknown> & { messages: unknown[]; entries: { line: number; type: string }[] };
  expectEqual(
    Object.keys(doc).sort(),
    ["entries", "file", "leaf", "messages", "model", "thinkingLevel"]
      .filter((k) => k !== "thinkingLevel" || leaf.context?.thinkingLevel !== undefined)
      .sort(),
  );
  expectEqual({ thinkingLevel: doc.thinkingLevel, model: doc.model, messages: doc.messages }, leaf.context);
  expect((doc.leaf as { line: number }).line).toBe(piLine(leaf));
  expect(doc.entries).toHaveLength(doc.messages.length);
  const onPath = new Set(leaf.path);
  for (const e of doc.entries) if (!onPath.has(e.line)) expect(leaf.path).toContain(e.line);

  const l = await contextJsonOut(path, { leaf: ref, llm: true });
  expect(l.code).toBe(0);
  const ldoc = JSON.parse(l.stdout) as { messages: unknown[]; entries: unknown[] };
  expectEqual(ldoc.messages, leaf.llm);
  expect(ldoc.entries).toHaveLength(ldoc.messages.length);

  const nd = await contextJsonOut(path, { leaf: ref, llm: true, ndjson: true });
  expect(nd.code).toBe(0);
  expectEqual(ndjsonValues(nd.stdout), leaf.llm);
}

describe("context --json / --llm --json / --llm --ndjson output (in process, the command's renderer)", () => {
  it.each(files)("%s", async (f) => {
    const before = fingerprint(corpus(f));
    for (const leaf of sample(expected(f).leaves)) await checkJsonOutputs(f, leaf);
    expectEqual(fingerprint(corpus(f)), before);
  });

  it("the default leaf is pi's default leaf", async () => {
    for (const f of files) {
      const leaf = expected(f).leaves.find((l) => l.default) as Leaf;
      const r = await contextJsonOut(corpus(f));
      if (leaf.error) {
        expect(r.code).toBe(1);
        continue;
      }
      const doc = JSON.parse(r.stdout) as { leaf: { line: number }; messages: unknown[] };
      expect(doc.leaf.line).toBe(leaf.line);
      expectEqual(doc.messages, leaf.context?.messages);
    }
  });
});

describe("pisess context --json / --llm --json / --llm --ndjson (the CLI)", () => {
  // A file with a cycle, a leaf without id and a duplicate id: every way the command can end.
  const f = "gen-v3-cycle-crlf-bom.jsonl";
  const path = corpus(f);

  it("writes the renderer's bytes for each leaf of the sample; a cycle exits 1 with nothing on stdout", async () => {
    const before = fingerprint(path);
    const leaves = sample(expected(f).leaves);
    expect(leaves.some((l) => l.error === "cycle")).toBe(true);
    const seen = new Set<string>();
    for (const leaf of leaves) {
      const ref = `@${piLine(leaf)}`;
      // Two leaves can name the same line for pi (a leaf without id falls back to the last entry): one run each.
      if (seen.has(ref)) continue;
      seen.add(ref);
      const r = await runCli(["context", path, "--leaf", ref, "--json"]);
      if (leaf.error === "cycle") {
        expect(r.code, `${f} ${ref}`).toBe(1);
        expect(r.stdout).toBe("");
        expect(r.stderr).toMatch(/cycle|names itself as its parent/);
        continue;
      }
      expect(r.code, `${f} ${ref}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe((await contextJsonOut(path, { leaf: ref })).stdout);
      expectEqual((JSON.parse(r.stdout) as { messages: unknown }).messages, leaf.context?.messages);
    }
    expectEqual(fingerprint(path), before);
  });

  it("--llm --json and --llm --ndjson at the default leaf are pi's convertToLlm", async () => {
    const leaf = expected(f).leaves.find((l) => l.default) as Leaf;
    const l = await runCli(["context", path, "--llm", "--json"]);
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toBe((await contextJsonOut(path, { llm: true })).stdout);
    expectEqual((JSON.parse(l.stdout) as { messages: unknown[] }).messages, leaf.llm);
    const nd = await runCli(["context", path, "--llm", "--ndjson"]);
    expect(nd.code, nd.stderr).toBe(0);
    expect(nd.stdout).toBe((await contextJsonOut(path, { llm: true, ndjson: true })).stdout);
    expectEqual(ndjsonValues(nd.stdout), leaf.llm);
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import { entryPlaces, pathPlaces, placesFromContext } from "../../src/ops/bloat.js";
import { buildContext } from "../../src/ops/context.js";
import { lightEntry } from "../../src/ops/kept.js";
import { pathTo } from "../../src/ops/path.js";
import { bloatReport, type BloatData } from "../../src/reports/bloat.js";
import { corpus, fixture, ROOT, runCli, spawnCli, expectedOf } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";

type Obj = Record<string, unknown>;

const corpusFiles = readdirSync(`${ROOT}/fixtures/corpus`)
  .filter((f) => f.endsWith(".jsonl"))
  .map((f) => corpus(f));
const bloatFiles = ["kinds.jsonl", "kinds-crlf-bom.jsonl", "fork.jsonl"].map((f) => fixture("bloat", f));

async function bloat(path: string, opts: { leaf?: string; top?: number; detail?: "full" | "skeleton" } = {}): Promise<BloatData> {
  const session: Session = await loadSession({ kind: "file", path }, { detail: opts.detail ?? "skeleton" });
  try {
    return (await bloatReport(session, { leaf: opts.leaf, top: opts.top })).data;
  } finally {
    session.store.close();
  }
}

const sum = (rows: { bytes: number }[]) => rows.reduce((n, r) => n + r.bytes, 0);
const row = <T extends { bytes: number }>(rows: T[], key: keyof T, name: string) => rows.find((r) => r[key] === name)?.bytes ?? 0;
/** A value's bytes as the fixtures write it (JSON.stringify, UTF-8). */
const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v), "utf8");

describe("bloat: every byte counted exactly once", () => {
  it.each([...corpusFiles, ...bloatFiles])("%s", async (path) => {
    const raw = readFileSync(path);
    const d = await bloat(path);
    expect(d.bytes).toBe(statSync(path).size);
    expect(sum(d.byType)).toBe(d.bytes);
    expect(sum(d.byKind)).toBe(d.bytes);
    expect(sum(d.byPlace)).toBe(d.bytes);
    // Line endings, counted from the raw bytes: every "\n", and the "\r" before one.
    let endings = 0;
    for (let i = 0; i < raw.length; i++) if (raw[i] === 0x0a) endings += i > 0 && raw[i - 1] === 0x0d ? 2 : 1;
    if (raw.length > 0 && raw[raw.length - 1] === 0x0d) endings++;
    expect(row(d.byKind, "kind", "lineEndings")).toBe(endings);
    const bom = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
    expect(row(d.byKind, "kind", "bom")).toBe(bom ? 3 : 0);
  });

  it("entry counts per type equal pi's own parse of each corpus file", async () => {
    for (const path of corpusFiles) {
      const exp = expectedOf(path) as { entries: { type: string }[] };
      const want = new Map<string, number>();
      // pisess counts an entry without a type (pi keeps a line such as `42` as one) as a defective line instead.
      for (const e of exp.entries) if (typeof e.type === "string") want.set(e.type, (want.get(e.type) ?? 0) + 1);
      const d = await bloat(path);
      for (const [type, n] of want) expect(d.byType.find((r) => r.type === type)?.entries, `${path} ${type}`).toBe(n);
    }
  });

  it("a CRLF file with a BOM, a blank line and a malformed line counts them as their own categories", async () => {
    const path = fixture("bloat", "kinds-crlf-bom.jsonl");
    const lines = readFileSync(path, "utf8")
      .replace(/^\ufeff/, "")
      .split("\r\n");
    const d = await bloat(path);
    expect(row(d.byType, "type", "(bom)")).toBe(3);
    expect(row(d.byType, "type", "(blank)")).toBe(0);
    expect(d.byType.find((r) => r.type === "(blank)")?.entries).toBe(1);
    const broken = lines.find((l) => l.startsWith('{"type":"message","id":"broken')) as string;
    expect(row(d.byType, "type", "(malformed)")).toBe(Buffer.byteLength(broken));
    expect(row(d.byKind, "kind", "defective")).toBe(Buffer.byteLength(broken));
    // The same entries as the LF file: only the line endings, BOM and defective lines differ.
    const lf = await bloat(fixture("bloat", "kinds.jsonl"));
    for (const k of ["text", "image", "toolOutput", "jsonOverhead", "header"])
      expect(row(d.byKind, "kind", k), k).toBe(row(lf.byKind, "kind", k));
  });
});

describe("bloat: content kinds", () => {
  it("each kind equals the sizes of the values the fixture wrote", async () => {
    const path = fixture("bloat", "kinds.jsonl");
    const entries = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((l) => JSON.parse(l) as Obj);
    const want: Record<string, number> = {};
    const add = (k: string, v: unknown) => {
      want[k] = (want[k] ?? 0) + size(v);
    };
    const byTool = new Map<string, number>();
    let images = 0;
    let decoded = 0;
    for (const e of entries) {
      if (e.type === "message") {
        const m = e.message as Obj;
        const textKind = m.role === "toolResult" ? "toolOutput" : "text";
        if (typeof m.content === "string") add(textKind, m.content);
        for (const b of Array.isArray(m.content) ? (m.content as Obj[]) : []) {
          if (b.type === "text") {
            add(textKind, b.text);
            if (m.role === "toolResult") byTool.set(String(m.toolName), (byTool.get(String(m.toolName)) ?? 0) + size(b.text));
          }
          if (b.type === "thinking") {
            add("thinking", b.thinking);
            add("thinkingSignature", b.thinkingSignature);
          }
          if (b.type === "toolCall") add("toolCallArguments", b.arguments);
          if (b.type === "image") {
            add("image", b.data);
            images++;
            decoded += Buffer.from(String(b.data), "base64").length;
          }
        }
        if (m.details !== undefined) add("details", m.details);
        if (m.role === "bashExecution") add("toolOutput", m.output);
      } else if (e.type === "compaction" || e.type === "branch_summary") {
        add("summary", e.summary);
        if (e.details !== undefined) add("details", e.details);
      } else if (e.type === "custom") add("custom", e.data);
      else if (e.type === "custom_message") {
        add("text", e.content);
        add("details", e.details);
      }
    }
    const d = await bloat(path);
    for (const [k, n] of Object.entries(want)) expect(row(d.byKind, "kind", k), k).toBe(n);
    expect(row(d.toolOutputByTool, "tool", "read")).toBe(byTool.get("read"));
    expect(d.images.count).toBe(images);
    expect(d.images.decodedBytes).toBe(decoded);
    expectEqual(d.images.byMime.map((r) => r.mimeType).sort(), ["image/jpeg", "image/png"]);
    expectEqual(d.customByType.map((r) => r.customType).sort(), ["custom:plan-mode", "custom_message:todo-state"]);
  });

  it("keys and names written with escapes or non-ASCII count as JSON.parse reads them; a later duplicate key wins", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pisess-bloat-"));
    const path = join(dir, "escaped.jsonl");
    const head = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';
    const call =
      '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"l\u00e9s","arguments":{"x":1}}],"timestamp":1}}';
    // Escaped in the file: "r\\u006fle" is "role", "\\u0074ype" is "type", "r\\u00e9ad" is "réad"; "lés" is raw UTF-8. The
    // second "text" replaces the first.
    const result =
      '{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"r\\u006fle":"toolResult","toolCallId":"c","toolName":"r\\u00e9ad","content":[{"\\u0074ype":"text","text":"first","text":"second!"}],"timestamp":2}}';
    const text = `${head}\n${call}\n${result}\n`;
    writeFileSync(path, text);
    const d = await bloat(path);
    rmSync(dir, { recursive: true });
    expect(row(d.byKind, "kind", "toolOutput")).toBe(size("second!"));
    expectEqual(d.toolOutputByTool, [{ tool: "r\u00e9ad", bytes: size("second!"), results: 1 }]);
    expectEqual(d.toolCallArgumentsByTool, [{ tool: "l\u00e9s", bytes: size({ x: 1 }), calls: 1 }]);
    expect(sum(d.byKind)).toBe(Buffer.byteLength(text));
  });

  it("skeleton and full loads give the same answer", async () => {
    for (const path of [corpus("gen16-edits.jsonl"), fixture("bloat", "kinds.jsonl")])
      expectEqual(await bloat(path, { detail: "full" }), await bloat(path, { detail: "skeleton" }));
  });
});

describe("bloat: places", () => {
  interface Leaf {
    line: number;
    default?: boolean;
    path?: number[];
    messageLines?: number[];
  }
  const pi16 = corpusFiles.filter((f) => /\/(pi16|gen16)-[^/]*$/.test(f));

  it.each(pi16)("%s: context and other-branches bytes follow pi's own context and path at the leaf", async (path) => {
    const exp = expectedOf(path) as { leaves: Leaf[] };
    const lines = readFileSync(path, "utf8").split("\n");
    // Content bytes plus the line's ending ("\n"; the last line may have none).
    const lineBytes = (l: number) => Buffer.byteLength(lines[l - 1] as string) + (l < lines.length ? 1 : 0);
    const leaf = exp.leaves.find((l) => l.default) as Leaf;
    expect(leaf.messageLines).toBeDefined();
    const d = await bloat(path, { leaf: `@${leaf.line}` });
    const context = new Set(leaf.messageLines);
    const place = (p: string) => d.byPlace.find((r) => r.place === p);
    expect(place("context")?.bytes ?? 0).toBe([...context].reduce((n, l) => n + lineBytes(l), 0));
    expect(place("context")?.entries ?? 0).toBe(context.size);
    const onPath = new Set(leaf.path);
    const skipped = new Set((expectedOf(path) as { skipped: { line: number }[] }).skipped.map((s) => s.line));
    let off = 0;
    const isObject = (text: string) => {
      try {
        const v: unknown = JSON.parse(text);
        return typeof v === "object" && v !== null && !Array.isArray(v);
      } catch {
        return false;
      }
    };
    for (let l = 2; l <= lines.length; l++) if (!onPath.has(l) && !skipped.has(l) && isObject(lines[l - 1] as string)) off += lineBytes(l);
    expect(place("other-branches")?.bytes ?? 0).toBe(off);
    expect(d.fork.leftBehindBytes).toBe(off);
  });

  it.each([...corpusFiles, ...bloatFiles])("%s: places at leaves equal those of the context built with full light bodies", async (path) => {
    const session = await loadSession({ kind: "file", path }, { detail: "skeleton" });
    try {
      let plain = 0;
      let edited = 0;
      // Every leaf, every compaction and edit (paths that end at one), and every 25th entry: enough shapes, fast.
      const parents = new Set(session.entries.map((e) => e.parentId));
      const leaves = session.entries.filter(
        (e, i) => !parents.has(e.id) || e.type === "compaction" || e.type === "context_edit" || i % 25 === 0,
      );
      for (const leaf of leaves) {
        const r = pathTo(session, leaf);
        if (!r.ok) continue;
        // The reference: the context as validate and compactions build it, from lightEntry's bodies.
        const ctx = buildContext(session, r.path, (rec) => lightEntry(session, rec));
        const want = entryPlaces(session, r.path, ctx, undefined);
        expectEqual(pathPlaces(session, r.path, undefined).places, want);
        expectEqual(placesFromContext(session, r.path, undefined), want);
        if (r.path.some((e) => e.type === "compaction" || e.type === "context_edit")) edited++;
        else plain++;
      }
      expect(plain + edited).toBeGreaterThan(0);
    } finally {
      session.store.close();
    }
  });

  it("a fork's entries copied from its parent are their own place", async () => {
    const lines = readFileSync(fixture("bloat", "fork.jsonl"), "utf8").split("\n");
    const d = await bloat(fixture("bloat", "fork.jsonl"));
    // make.mjs copies lines 2-5 of kinds.jsonl; line 6 is the fork's own.
    const copied = d.byPlace.find((r) => r.place === "fork-copy");
    expect(copied?.entries).toBe(4);
    expect(copied?.bytes).toBe([2, 3, 4, 5].reduce((n, l) => n + Buffer.byteLength(lines[l - 1] as string) + 1, 0));
    expect(d.byPlace.find((r) => r.place === "context")?.entries).toBe(1);
    expect(d.forkParent).toBe(fixture("bloat", "kinds.jsonl"));
  });
});

describe("bloat: largest entries", () => {
  it("top lists the longest entry lines, largest first", async () => {
    const path = corpus("gen16-branchy.jsonl");
    const lines = readFileSync(path, "utf8").split("\n");
    const lengths = lines
      .map((l, i) => ({ line: i + 1, bytes: Buffer.byteLength(l) }))
      .filter((x) => x.line > 1 && x.bytes > 0)
      .sort((a, b) => b.bytes - a.bytes || a.line - b.line);
    const d = await bloat(path, { top: 5 });
    expectEqual(
      d.top.map((t) => t.bytes),
      lengths.slice(0, 5).map((x) => x.bytes),
    );
    expect(d.topBlocks).toHaveLength(5);
    expect(d.topBlocks[0]!.bytes).toBeGreaterThanOrEqual(d.topBlocks[4]!.bytes);
  });
});

describe("bloat: CLI", () => {
  it("--json: byType, byKind and byPlace add up to the file size", async () => {
    const path = "fixtures/bloat/kinds.jsonl";
    const r = await runCli(["bloat", path, "--json", "--top", "3"]);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as BloatData;
    expect(d.bytes).toBe(statSync(`${ROOT}/${path}`).size);
    for (const k of ["byType", "byKind", "byPlace"] as const) expect(sum(d[k])).toBe(d.bytes);
    expect(d.top).toHaveLength(3);
  });

  it("text: tables with bars, and what a fork would leave behind", async () => {
    const r = spawnCli(["bloat", "fixtures/bloat/kinds.jsonl"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^By kind$/m);
    expect(r.stdout).toMatch(/█/);
    // The one entry off the path: the side-branch user message (id e0000006), with its newline.
    const side = readFileSync(fixture("bloat", "kinds.jsonl"), "utf8")
      .split("\n")
      .find((l) => l.includes('"id":"e0000006"')) as string;
    expect(r.stdout).toContain(`A /fork of the active path would leave behind ${Buffer.byteLength(side) + 1} B`);
  });

  it("read-only: bloat and compactions leave the file's bytes and mtime as they were", async () => {
    const path = fixture("bloat", "kinds-crlf-bom.jsonl");
    const before = { bytes: readFileSync(path), mtime: statSync(path).mtimeMs };
    await runCli(["bloat", path]);
    await runCli(["compactions", path, "--all", "--json"]);
    expect(readFileSync(path).equals(before.bytes)).toBe(true);
    expect(statSync(path).mtimeMs).toBe(before.mtime);
  });

  it("stdin is refused (the file is read twice)", async () => {
    const r = await runCli(["bloat", "-"], { input: readFileSync(fixture("bloat", "kinds.jsonl")) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs a file/);
  });
});

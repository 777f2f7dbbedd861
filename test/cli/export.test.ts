import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { checkSession } from "../../src/check/validate.js";
import { loadSession } from "../../src/model/load.js";
import { readEntry } from "../../src/model/session.js";
import { buildContext } from "../../src/ops/context.js";
import { pathTo } from "../../src/ops/path.js";
import { checkOutput, OutputRefused } from "../../src/io/output-file.js";
import { exportJsonl } from "../../src/reports/export.js";
import { exportOut } from "../support/export-inproc.js";
import { corpus, fingerprint, fixture, ROOT, runCli, spawnCli, expectedOf } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";
import { cliOut } from "../support/inproc.js";

interface Leaf {
  line: number;
  error?: string;
  contextError?: unknown;
  contextLeafLine?: number;
  path?: number[];
  context?: { thinkingLevel?: string; model?: unknown; messages: unknown[] };
}

const files = readdirSync(join(ROOT, "fixtures", "corpus")).filter((f) => f.endsWith(".jsonl"));
const expected = (f: string): { leaves: Leaf[] } => expectedOf(f);
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
/** Findings inside what pi sends the model: leaving the entry out or changing it would change the context. */
const IN_CONTEXT = new Set(["tool-result-orphan", "schema-violation", "context-edit-not-editable"]);
const HEADER = { id: "0196f000-0000-7000-8000-000000000001", timestamp: "2026-01-01T00:00:00.000Z" };

describe("export --format jsonl: the new file's context at its last entry is pi's context at the leaf", () => {
  it.each(files)("%s", async (f) => {
    const session = await loadSession({ kind: "file", path: corpus(f) });
    const originalFindings = checkSession(session);
    let checked = 0;
    let clean = 0;
    try {
      for (const leaf of expected(f).leaves) {
        if (leaf.error !== undefined || leaf.contextError !== undefined || !leaf.context) continue;
        const r = await exportJsonl(session, `@${leaf.contextLeafLine ?? leaf.line}`, { ...HEADER, parentSession: corpus(f) });
        const data = r.data;
        if (data === null) throw new Error(`${f}:${leaf.line}: no export`);
        const text = `${data.lines.join("\n")}\n`;
        const copy = await loadSession({ kind: "stream", name: "copy", stream: Readable.from([text]) }, { name: "copy" });
        const last = copy.defaultLeaf;
        if (last === null) throw new Error("empty export");
        const p = pathTo(copy, last);
        if (!p.ok) throw new Error("cycle in export");
        // Every entry of the new file is on one chain: the path, nothing else.
        expect(p.path.length, `${f}:${leaf.line}`).toBe(copy.entries.length);
        const ctx = buildContext(copy, p.path, (rec) => readEntry(copy, rec));
        const got = { thinkingLevel: ctx.thinkingLevel, model: ctx.model, messages: ctx.messages };
        // As JSON, equal to pi's. node's strict equality is asked first (vitest's equality and the JSON round trip cost
        // ~20 ms a leaf): a value strictly equal to the parsed JSON, or whose round trip is, is equal to it for toEqual
        // too. A message with an undefined field (custom messages' details) is strictly equal only after the round trip.
        if (!isDeepStrictEqual(got, leaf.context)) expectEqual(json(got), leaf.context, `${f}:${leaf.line}`);
        // Clean, except for defects inside what the model is sent (no valid file holds the same context): each is
        // reported as kept, has a code of that kind, and validate finds it on the same line of the original.
        const findings = checkSession(copy, { fileExists: () => true }).filter((d) => d.severity !== "info");
        expectEqual(findings.map((d) => d.code).sort(), data.remaining.map((d) => d.code).sort(), `${f}:${leaf.line}`);
        for (const d of data.remaining) {
          expect(IN_CONTEXT.has(d.code), `${f}:${leaf.line} ${d.code}`).toBe(true);
          expect(
            originalFindings.some((o) => o.code === d.code && o.line === d.line),
            `${f}:${leaf.line} ${d.code}`,
          ).toBe(true);
        }
        expect(r.exitCode).toBe(data.remaining.length > 0 ? 1 : 0);
        if (data.remaining.length === 0) clean++;
        copy.store.close();
        checked++;
      }
    } finally {
      session.store.close();
    }
    expect(checked).toBeGreaterThan(0);
    // Only the two files with defects inside a context keep findings, and only at some leaves.
    if (!/^gen(-v3|16)-(faults|edits)\.jsonl$/.test(f)) expect(clean, f).toBe(checked);
  });

  it("writes a fresh v3 header naming the original as parentSession; the path's entries keep their ids", async () => {
    const f = corpus("gen-v1.jsonl");
    const r = spawnCli(["export", f, "--format", "jsonl"]);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const head = lines[0] as Record<string, unknown>;
    const original = JSON.parse(readFileSync(f, "utf8").split("\n")[0] as string) as Record<string, unknown>;
    expect(head.type).toBe("session");
    expect(head.version).toBe(3);
    expect(head.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(head.id).not.toBe(original.id);
    expect(head.cwd).toBe(original.cwd);
    expect(head.parentSession).toBe(f);
    // v1 has no ids (pi invents them on load): one entry per path entry, each with its own id, chained.
    const exp = expectedOf("gen-v1") as { leaves: Leaf[] };
    const def = exp.leaves.find((l) => (l as { default?: boolean }).default) as Leaf;
    expect(lines.length - 1).toBe(def.path?.length);
    expect(new Set(lines.slice(1).map((o) => o.id)).size).toBe(lines.length - 1);
    for (let i = 1; i < lines.length; i++)
      expect((lines[i] as Record<string, unknown>).parentId).toBe(i === 1 ? null : (lines[i - 1] as Record<string, unknown>).id);
  });

  // The CLI in process (its stderr lines and exit status); the binary's export is spawned above.
  it("reports each left-out line on stderr with its code", async () => {
    const r = await cliOut(["export", corpus("gen-v3-long.jsonl"), "--format", "jsonl"]);
    expect(r.stderr).toMatch(/gen-v3-long\.jsonl:511: left out of the export: label-target-missing: /);
    expect(r.stdout).not.toContain('"label":"before refactor');
  });

  it("changes what no message carries (keep-nothing firstKeptEntryId, a regressing timestamp), says so, exits 0", async () => {
    const f = corpus("gen-v3-faults.jsonl");
    const r = await cliOut(["export", f, "--format", "jsonl", "--leaf", "@90"]);
    expect(r.stderr).toMatch(
      /gen-v3-faults\.jsonl:70: changed in the export \(firstKeptEntryId set to its own id, pi's "keep nothing"\): first-kept-/,
    );
    expect(r.code).toBe(0);
    const c70 = JSON.parse(readFileSync(f, "utf8").split("\n")[69] as string) as { id: string };
    const out = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out.find((o) => o.id === c70.id)?.firstKeptEntryId).toBe(c70.id);
    const t = await cliOut(["export", f, "--format", "jsonl", "--leaf", "@111"]);
    expect(t.stderr).toMatch(
      /gen-v3-faults\.jsonl:110: changed in the export \(timestamp set to the entry above's\): timestamp-regression/,
    );
    // Still kept there: a tool result that answers no call is part of what pi sends.
    expect(t.stderr).toMatch(/:103: kept in the export .*tool-result-orphan/);
    expect(t.code).toBe(1);
  });

  it("the report names each field change it made, with the finding it fixed", async () => {
    const session = await loadSession({ kind: "file", path: corpus("gen-v3-faults.jsonl") });
    const keep = await exportJsonl(session, "@90", { ...HEADER, parentSession: session.file });
    const lifted = await exportJsonl(session, "@111", { ...HEADER, parentSession: session.file });
    session.store.close();
    expectEqual(
      keep.data?.changed.map((c) => [c.line, c.patch]),
      [[70, "keep-nothing"]],
    );
    expect(lifted.data?.changed.map((c) => [c.line, c.code, c.patch])).toContainEqual([110, "timestamp-regression", "timestamp-lifted"]);
  });

  it("a branch summary whose fromId is off the path stays as pi's /fork leaves it: info in the new file, exit 0", async () => {
    const session = await loadSession({ kind: "file", path: corpus("gen16-branchy.jsonl") });
    const r = await exportJsonl(session, "@99", { ...HEADER, parentSession: session.file });
    session.store.close();
    expect(r.exitCode).toBe(0);
    // Nothing the command would report on stderr: nothing left out, changed or kept with a finding.
    expectEqual([r.data?.leftOut, r.data?.changed, r.data?.remaining], [[], [], []]);
    const text = `${(r.data?.lines ?? []).join("\n")}\n`;
    const copy = await loadSession({ kind: "stream", name: "copy", stream: Readable.from([text]) }, { name: "copy" });
    try {
      const ds = checkSession(copy, { fileExists: () => true });
      expectEqual(
        ds.filter((d) => d.severity !== "info"),
        [],
      );
      expect(ds.some((d) => d.code === "branch-summary-from-parent")).toBe(true);
    } finally {
      copy.store.close();
    }
  });
});

describe("export --format markdown", () => {
  it("holds the header facts and every entry of the branch root → leaf", async () => {
    const f = corpus("gen16-edits.jsonl");
    const r = await exportOut(f, { format: "markdown", leaf: "@200" });
    expect(r.code).toBe(0);
    const exp = expected("gen16-edits.jsonl").leaves;
    const raw = readFileSync(f, "utf8").split("\n");
    const header = JSON.parse(raw[0] as string) as { id: string; cwd: string };
    expect(r.stdout).toContain(`| id | ${header.id} |`);
    expect(r.stdout).toMatch(/\| problems \| .*schema-violation ×3 \(error\)/);
    // The path to line 200 as pi resolves it: walk parentLine in expected.json.
    const entries = (expectedOf("gen16-edits") as { entries: { line: number; parentLine: number | null }[] }).entries;
    const parent = new Map(entries.map((e) => [e.line, e.parentLine]));
    const path: number[] = [];
    for (let l: number | null | undefined = 200; l != null; l = parent.get(l)) path.unshift(l);
    const headings = [...r.stdout.matchAll(/^### \d+\. .* · line (\d+) · /gm)].map((m) => Number(m[1]));
    expectEqual(headings, path);
    expect(exp.length).toBeGreaterThan(0);
  });

  it("keeps hostile session text inside code fences (no raw HTML outside them)", async () => {
    const r = await exportOut(fixture("export", "hostile.jsonl"), { format: "markdown" });
    expect(r.code).toBe(0);
    let inFence: string | null = null;
    for (const line of r.stdout.split("\n")) {
      const m = /^(`{3,})/.exec(line);
      if (m && (inFence === null || (m[1] as string).length >= inFence.length)) {
        inFence = inFence === null ? (m[1] as string) : null;
        continue;
      }
      // Outside fences a "<" is escaped ("\\<"), which Markdown shows as text.
      if (inFence === null) expect(line).not.toMatch(/(^|[^\\])<(script|img|svg|iframe|a |style)/i);
    }
    expect(r.stdout).not.toContain("\u202e");
    expect(r.stdout).not.toContain("\u0007");
  });
});

describe("export: output and read-only rules", () => {
  const dir = mkdtempSync(join(tmpdir(), "pisess-export-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses (exit 2) the input file, an existing .jsonl, or an existing file without --force; the input is unchanged", async () => {
    const src = join(dir, "s.jsonl");
    writeFileSync(src, readFileSync(corpus("gen-v3-branchy.jsonl")));
    const before = fingerprint(src);
    expect((await runCli(["export", src, "-o", src, "--format", "markdown"])).code).toBe(2);
    // The other refusals come from the same check (the command turns its OutputRefused into exit 2, as above).
    expect(() => checkOutput(src, [src], true)).toThrow(OutputRefused);
    const other = join(dir, "other.jsonl");
    writeFileSync(other, "x\n");
    expect(() => checkOutput(other, [src], true)).toThrow(/\.jsonl file/);
    expect(readFileSync(other, "utf8")).toBe("x\n");
    const md = join(dir, "out.md");
    writeFileSync(md, "keep\n");
    expect(() => checkOutput(md, [src], false)).toThrow(/--force/);
    expect(() => checkOutput(dir, [src], true)).toThrow(/directory/);
    expect(readFileSync(md, "utf8")).toBe("keep\n");
    // Writing a file (-o) in process: the refusal above and the HTML below go through the CLI, in process too.
    expect((await cliOut(["export", src, "-o", md, "--force"])).code).toBe(0);
    expect(readFileSync(md, "utf8")).toMatch(/^# Session/);
    const fresh = join(dir, "new.jsonl");
    expect((await cliOut(["export", src, "-o", fresh])).code).toBe(0);
    expect(readFileSync(fresh, "utf8").split("\n")[0]).toContain('"type":"session"');
    expectEqual(fingerprint(src), before);
  });

  it("reads only: every format of faulty, CRLF/BOM, pi-written and hostile files leaves bytes and mtimes unchanged", async () => {
    const inputs = [
      ...["gen16-faults.jsonl", "gen-v3-cycle-crlf-bom.jsonl", "pi16-written.jsonl", "real-v1-large-session.jsonl"].map((f) => corpus(f)),
      fixture("export", "hostile.jsonl"),
    ];
    const before = inputs.map(fingerprint);
    for (const f of inputs) {
      for (const format of ["html", "markdown", "jsonl"] as const) {
        const r = await exportOut(f, { format });
        expect([0, 1], `${f} ${format}`).toContain(r.code);
        expect(r.stdout.length, `${f} ${format}`).toBeGreaterThan(0);
      }
    }
    expectEqual(inputs.map(fingerprint), before);
  }, 120_000);

  it("picks the format from -o (.html) and writes Markdown to a pipe by default", async () => {
    const src = corpus("gen-v2.jsonl");
    const html = join(dir, "x.html");
    expect((await runCli(["export", src, "-o", html])).code).toBe(0);
    expect(readFileSync(html, "utf8")).toMatch(/^<!doctype html>/);
    expect((await runCli(["export", src])).stdout).toMatch(/^# Session/);
  });
});

describe("export --format html: the file itself", () => {
  it("embeds data safely: no '<' or U+2028/2029 inside the JSON block, which parses back to the value", async () => {
    const { scriptJson } = await import("../../src/render/export-html.js");
    const value = { a: "</script><script>alert(1)</script><!--", b: "line\u2028sep\u2029", c: ["<img onerror=x>"] };
    const out = scriptJson(value);
    expect(out).not.toMatch(/[<\u2028\u2029]/);
    expectEqual(JSON.parse(out), value);
  });

  it("allows nothing but its own script and style and data: images; --no-images drops image data", async () => {
    const r = await exportOut(fixture("export", "hostile.jsonl"), { format: "html" });
    expect(r.code).toBe(0);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(r.stdout)?.[1] ?? "";
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[^']+'(;|$)/);
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    // Exactly two script elements: the JSON data and the page script; no src=, no external anything.
    expect([...r.stdout.matchAll(/<script\b/g)].length).toBe(2);
    expect(r.stdout).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    expect(r.stdout).toContain(png);
    const none = await exportOut(fixture("export", "hostile.jsonl"), { format: "html", images: false });
    expect(none.code).toBe(0);
    expect(none.stdout).not.toContain(png);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Worker } from "node:worker_threads";
import { ROOT, runCli } from "../support/helpers.js";

const MODULES = {
  load: "model/load",
  session: "model/session",
  validate: "check/validate",
  text: "render/validate-text",
  style: "render/style",
  path: "ops/path",
  context: "ops/context",
  facts: "ops/context-facts",
  display: "render/context-display",
  ctext: "render/context-text",
  exp: "reports/export",
};

/** Runs `body` (an async function body over `m`, the built modules) in a worker with a 1 MB stack; its return value. */
function onSmallStack(body: string): Promise<unknown[]> {
  const imports = Object.entries(MODULES)
    .map(([k, v]) => `${k}: await import(${JSON.stringify(`file://${ROOT}/dist/${v}.js`)})`)
    .join(", ");
  const code = `const { parentPort } = await import("node:worker_threads");
    const m = { ${imports} };
    try { parentPort.postMessage({ ok: await (async () => { ${body} })() }); }
    catch (e) { parentPort.postMessage({ error: String(e && e.message) }); }`;
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { resourceLimits: { stackSizeMb: 1 } });
    w.once("message", (r: { ok?: unknown[]; error?: string }) => {
      void w.terminate();
      if (r.error !== undefined) reject(new Error(r.error));
      else resolve(r.ok as unknown[]);
    });
    w.once("error", reject);
  });
}

// #32.5: inputs large in one direction that overflowed the stack ("Maximum call stack size exceeded", exit 2):
// an array spread into a call's arguments (about 125,000 items overflow Node's default stack) and JSON.stringify
// of content nested deeper than its recursion goes. Each is generated here, a little past the size that broke.

const dir = mkdtempSync(join(tmpdir(), "pisess-scale-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2025, 5, 1, 12);
const id = (i: number) => (0x10000000 + i).toString(16);
const HEADER = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: new Date(T0).toISOString(), cwd: "/" });
const USAGE =
  '{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}';

function write(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const userLine = (i: number, parent: string | null, content: string) =>
  `{"type":"message","id":"${id(i)}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"${new Date(T0 + 1000 * (i + 1)).toISOString()}","message":{"role":"user","content":${JSON.stringify(content)},"timestamp":${T0 + 1000 * (i + 1)}}}`;

const assistantLine = (i: number, parent: string, content: string) =>
  `{"type":"message","id":"${id(i)}","parentId":"${parent}","timestamp":"${new Date(T0 + 1000 * (i + 1)).toISOString()}","message":{"role":"assistant","content":${content},"api":"a","provider":"p","model":"m","usage":${USAGE},"stopReason":"toolUse","timestamp":${T0 + 1000 * (i + 1)}}}`;

describe("large inputs do not overflow the stack (#32.5)", () => {
  // Test workers have a 4 MB stack, where 140,000 spread arguments still fit: these run the built modules (dist/) in
  // a worker with a 1 MB stack, about what Node's main thread (the CLI) has.
  it("validate (text) on a file with 140,000 findings: the checks and the text", async () => {
    const n = 140_000;
    const lines = [HEADER];
    // An unreadable entry timestamp: one invalid-timestamp warning per entry.
    for (let i = 0; i < n; i++)
      lines.push(
        `{"type":"message","id":"${id(i)}","parentId":${i ? `"${id(i - 1)}"` : "null"},"timestamp":"x","message":{"role":"user","content":"u","timestamp":1}}`,
      );
    const file = write("findings.jsonl", lines);
    const r = await onSmallStack(`
      const s = await m.load.loadSession({ kind: "file", path: ${JSON.stringify(file)} });
      const d = m.validate.checkSession(s);
      const text = [...m.text.validateFindingLines([{ file: "f.jsonl", diagnostics: d }], m.style.makeStyle(false))];
      return [d.filter((x) => x.code === "invalid-timestamp").length, text.length === d.length, text[0]];`);
    expect(r[0]).toBe(n);
    expect(r[1]).toBe(true);
    expect(r[2]).toMatch(/^f\.jsonl:2 +warning +invalid-timestamp /);
  }, 60_000);

  it("context on a user message of 140,000 lines", async () => {
    const n = 140_000;
    const text = Array.from({ length: n }, (_, i) => `line ${i}`).join("\n");
    const file = write("lines.jsonl", [HEADER, userLine(0, null, text)]);
    const r = await onSmallStack(`
      const s = await m.load.loadSession({ kind: "file", path: ${JSON.stringify(file)} });
      const path = m.path.pathTo(s, s.defaultLeaf).path;
      const ctx = m.context.buildContext(s, path, (rec) => m.session.readEntry(s, rec));
      const source = { context: ctx, facts: m.facts.contextFacts(ctx, path, 0) };
      const doc = m.display.describeContext(s.file, s.defaultLeaf, source, { maxOutput: 0, maxArgs: 80, thinking: true });
      return [[...m.ctext.contextText(doc, { style: m.style.makeStyle(false) })].join("").includes("line ${n - 1}\\n")];`);
    expect(r[0]).toBe(true);
  }, 60_000);

  it("validate and export on an assistant message with 200,000 tool calls none answers", async () => {
    const n = 200_000;
    const calls = Array.from({ length: n }, (_, i) => `{"type":"toolCall","id":"c${i}","name":"t","arguments":{}}`).join(",");
    const file = write("calls.jsonl", [HEADER, userLine(0, null, "go"), assistantLine(1, id(0), `[${calls}]`)]);
    // validate's checks, and the HTML export's problem counts (exportFacts runs the same checks).
    const r = await onSmallStack(`
      const s = await m.load.loadSession({ kind: "file", path: ${JSON.stringify(file)} });
      const facts = await m.exp.exportFacts(s, null);
      return [m.validate.checkSession(s).filter((d) => d.code === "tool-call-unanswered").length, facts.info !== undefined];`);
    expect(r).toEqual([n, true]);
  }, 60_000);

  describe("content nested 30,000 objects deep (JSON.stringify overflows from about 10,000)", () => {
    let deep = '"bottom"';
    for (let i = 0; i < 30_000; i++) deep = `{"a":${deep}}`;
    const file = write("deep.jsonl", [
      HEADER,
      userLine(0, null, "go"),
      assistantLine(1, id(0), `[{"type":"text","text":"hi"},{"type":"toolCall","id":"c","name":"t","arguments":${deep}}]`),
      `{"type":"message","id":"${id(2)}","parentId":"${id(1)}","timestamp":"${new Date(T0 + 3000).toISOString()}","message":{"role":"toolResult","toolCallId":"c","toolName":"t","content":[{"type":"text","text":"ok"}],"details":${deep},"isError":false,"timestamp":${T0 + 3000}}}`,
      `{"type":"custom_message","id":"${id(3)}","parentId":"${id(2)}","timestamp":"${new Date(T0 + 4000).toISOString()}","customType":"x","content":"c","display":true,"details":${deep}}`,
    ]);

    it("export --format jsonl writes the same entries (the deep value as it was)", async () => {
      const out = join(dir, "deep-export.jsonl");
      const r = await runCli(["export", file, "--format", "jsonl", "-o", out]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const written = readFileSync(out, "utf8").split("\n");
      expect(written.length).toBe(6); // header, four entries, the final newline
      expect(written[2]).toContain(`"arguments":${deep}}]`);
    }, 60_000);

    it.each([
      ["context"],
      ["context", "--format", "markdown"],
      ["export", "--format", "markdown"],
      ["grep", "ok"],
      ["grep", "hi", "--json"],
    ])(
      "%s %s %s",
      async (...args: string[]) => {
        const argv = args[0] === "grep" ? ["grep", args[1] as string, file, ...args.slice(2)] : [args[0] as string, file, ...args.slice(1)];
        const r = await runCli(argv);
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
      },
      60_000,
    );
  });
});

import { describe, it, expect } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { turnUsage } from "../support/small-session.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const schemaDir = join(root, "schemas");
const corpusDir = join(root, "fixtures", "corpus");
const BASE = "https://pisess.dev/schemas/";

interface IndexItem {
  name: string;
  file: string;
  $id: string;
  kind: string;
}
interface SchemaIndex {
  baseUri: string;
  schemas: IndexItem[];
  knownKeys: string;
}
type Json = Record<string, unknown>;

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

const index = readJson(join(schemaDir, "index.json")) as SchemaIndex;
const knownKeys = readJson(join(schemaDir, index.knownKeys)) as Record<string, string[]>;
const schemaFiles = readdirSync(schemaDir).filter((f) => f.endsWith(".json") && f !== "index.json" && f !== "known-keys.json");

function makeAjv(opts: Options = {}): { ajv: Ajv; warnings: unknown[][] } {
  const warnings: unknown[][] = [];
  const logger = {
    log: () => undefined,
    warn: (...args: unknown[]) => void warnings.push(args),
    error: (...args: unknown[]) => void warnings.push(args),
  };
  const ajv = new Ajv({ ...opts, logger });
  for (const item of index.schemas) ajv.addSchema(readJson(join(schemaDir, item.file)) as object);
  return { ajv, warnings };
}

const { ajv } = makeAjv({ allErrors: true });
function validator(name: string): ValidateFunction {
  const v = ajv.getSchema(`${BASE + name}.json`);
  if (!v) throw new Error(`schema ${name} not found`);
  return v;
}
const vHeader = validator("header");
const vEntry = validator("entry");
const vMessage = validator("message");

/** Lines of a session file: split on "\n" only, strip BOM and trailing "\r", skip blank and unparsable lines. */
function readLines(file: string): { line: number; value: unknown }[] {
  let text = readFileSync(file, "utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const out: { line: number; value: unknown }[] = [];
  text.split("\n").forEach((raw, i) => {
    const l = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (l.trim() === "") return;
    try {
      out.push({ line: i + 1, value: JSON.parse(l) });
    } catch {
      /* malformed: reported elsewhere */
    }
  });
  return out;
}

function fmt(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} (${e.schemaPath})`).join("; ");
}

/** Validate a whole file: header line against header.json, later lines against entry.json. */
function fileProblems(file: string): string[] {
  const problems: string[] = [];
  const lines = readLines(file);
  lines.forEach(({ line, value }, i) => {
    const v = i === 0 ? vHeader : vEntry;
    if (!v(value)) problems.push(`line ${line}: ${fmt(v.errors)}`);
    // the message must also pass message.json on its own (entry.json reaches it by $ref too)
    const o = value as Json;
    if (i > 0 && o && o.type === "message" && !vMessage(o.message)) {
      problems.push(`line ${line} message: ${fmt(vMessage.errors)}`);
    }
  });
  return problems;
}

describe("schema files", () => {
  it("index.json lists every schema file, with $id = base + file name", () => {
    expect(index.baseUri).toBe(BASE);
    expect(index.schemas.map((s) => s.file).sort()).toEqual([...schemaFiles].sort());
    for (const item of index.schemas) {
      const s = readJson(join(schemaDir, item.file)) as Json;
      expect(s.$id).toBe(BASE + item.file);
      expect(item.$id).toBe(s.$id);
      expect(s.$schema).toBe("http://json-schema.org/draft-07/schema#");
      expect(typeof s.title).toBe("string");
      expect(typeof s.description).toBe("string");
      // Objects stay open (unknown keys are allowed); additionalProperties only ever types a map's values.
      expect(JSON.stringify(s)).not.toMatch(/"additionalProperties":(false|true)/);
    }
  });

  it("compile under default Ajv and strict: true without warnings", () => {
    for (const opts of [{}, { strict: true }, { strict: true, allErrors: true }] as Options[]) {
      const { ajv: a, warnings } = makeAjv(opts);
      for (const item of index.schemas) expect(a.getSchema(item.$id), item.name).toBeTypeOf("function");
      expect(warnings).toEqual([]);
    }
  });

  it("known-keys.json has an entry for every schema, matching its properties", () => {
    expect(Object.keys(knownKeys).sort()).toEqual(index.schemas.map((s) => s.name).sort());
    for (const item of index.schemas) {
      if (item.kind === "dispatcher") continue;
      const s = readJson(join(schemaDir, item.file)) as { properties: Json };
      expect(knownKeys[item.name], item.name).toEqual(Object.keys(s.properties));
    }
  });
});

describe("clean fixtures validate", () => {
  const clean = readdirSync(corpusDir)
    .filter((f) => f.endsWith(".jsonl"))
    .filter((f) => f.startsWith("real-") || ["gen-v1.jsonl", "gen-v2.jsonl", "gen-v3-branchy.jsonl", "gen-v3-long.jsonl"].includes(f));
  it("finds the clean fixtures", () => {
    expect(clean.length).toBeGreaterThanOrEqual(6);
  });
  for (const f of clean) {
    it(f, () => {
      expect(fileProblems(join(corpusDir, f))).toEqual([]);
    });
  }
});

describe("pi 1.6.0 files", () => {
  it("pi16-written.jsonl and gen16-branchy.jsonl are schema-valid", () => {
    for (const f of ["pi16-written.jsonl", "gen16-branchy.jsonl"]) expect(fileProblems(join(corpusDir, f)), f).toEqual([]);
  });
  it("gen16-edits.jsonl: only the injected content and replacement faults fail", () => {
    const faults = readFileSync(join(corpusDir, "gen16-edits.faults.ndjson"), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Json);
    const want = faults.filter((f) => f.fault === "null-content" || f.fault === "edit-no-replacement").map((f) => f.line as number);
    expect(want).toHaveLength(4);
    const got = fileProblems(join(corpusDir, "gen16-edits.jsonl")).map((p) => Number(/^line (\d+)/.exec(p)?.[1]));
    expect([...new Set(got)].sort((a, b) => a - b)).toEqual(want.sort((a, b) => a - b));
  });
});

describe("faulty fixtures", () => {
  it("gen-v3-faults.jsonl: only line 104 (tokensBefore) fails, naming tokensBefore", () => {
    const faults = readFileSync(join(corpusDir, "gen-v3-faults.faults.ndjson"), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Json);
    const wrongType = faults.find((f) => f.fault === "wrong-field-type");
    expect(wrongType).toMatchObject({ line: 104, field: "tokensBefore" });

    const lines = readLines(join(corpusDir, "gen-v3-faults.jsonl"));
    const l104 = lines.find((l) => l.line === 104);
    expect(l104).toBeDefined();
    expect(vEntry(l104!.value)).toBe(false);
    expect(vEntry.errors?.some((e) => e.instancePath === "/tokensBefore")).toBe(true);
    expect(validator("entry-compaction")(l104!.value)).toBe(false);

    // everything else in that file is schema-valid (its other faults are structural; unknown type passes)
    const problems = fileProblems(join(corpusDir, "gen-v3-faults.jsonl"));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^line 104: .*\/tokensBefore/);
  });

  it("gen-v3-cycle-crlf-bom.jsonl is schema-valid (its faults are structural)", () => {
    expect(fileProblems(join(corpusDir, "gen-v3-cycle-crlf-bom.jsonl"))).toEqual([]);
  });
});

const ts = "2025-01-01T00:00:00.000Z";
const usage = turnUsage({ total: 0 }, { input: 1, output: 2 });
const assistant = (over: Json = {}): Json => ({
  role: "assistant",
  content: [
    { type: "thinking", thinking: "hm" },
    { type: "text", text: "hi" },
    { type: "toolCall", id: "t1", name: "bash", arguments: { command: "ls" } },
  ],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude",
  usage,
  stopReason: "toolUse",
  timestamp: 1,
  ...over,
});
const toolResult = (over: Json = {}): Json => ({
  role: "toolResult",
  toolCallId: "t1",
  toolName: "bash",
  content: [{ type: "text", text: "ok" }],
  isError: false,
  timestamp: 2,
  ...over,
});
const msgEntry = (message: unknown): Json => ({ type: "message", id: "aaaaaaaa", parentId: null, timestamp: ts, message });

/** Validate and return the instancePaths of the errors ([] when valid). */
function errPaths(v: ValidateFunction, data: unknown): string[] {
  return v(data) ? [] : (v.errors ?? []).map((e) => e.instancePath);
}

describe("hand-made negative cases", () => {
  it("toolResult isError 'yes'", () => {
    expect(errPaths(vMessage, toolResult({ isError: "yes" }))).toContain("/isError");
    expect(errPaths(vEntry, msgEntry(toolResult({ isError: "yes" })))).toContain("/message/isError");
  });
  it("assistant stopReason 'bogus'", () => {
    expect(errPaths(vMessage, assistant({ stopReason: "bogus" }))).toContain("/stopReason");
    expect(errPaths(vEntry, msgEntry(assistant({ stopReason: "bogus" })))).toContain("/message/stopReason");
  });
  it("toolCall without name", () => {
    const m = assistant({ content: [{ type: "toolCall", id: "t1", arguments: {} }] });
    expect(vMessage(m)).toBe(false);
    expect(
      vMessage.errors?.some(
        (e) =>
          e.instancePath === "/content/0" &&
          e.keyword === "required" &&
          (e.params as { missingProperty?: string }).missingProperty === "name",
      ),
    ).toBe(true);
    expect(errPaths(validator("block-toolCall"), { type: "toolCall", id: "t1", arguments: {} })).toEqual([""]);
  });
  it("toolCall with non-object arguments", () => {
    expect(errPaths(validator("block-toolCall"), { type: "toolCall", id: "t", name: "n", arguments: "{}" })).toContain("/arguments");
  });
  it("image without mimeType (user and toolResult content)", () => {
    const img = { type: "image", data: "AAAA" };
    expect(errPaths(validator("block-image"), img)).toEqual([""]);
    expect(errPaths(vMessage, { role: "user", content: [img], timestamp: 1 })).toContain("/content/0");
    expect(errPaths(vMessage, toolResult({ content: [img] }))).toContain("/content/0");
  });
  it("label with numeric targetId", () => {
    const label = { type: "label", id: "bbbbbbbb", parentId: "aaaaaaaa", timestamp: ts, targetId: 42, label: "x" };
    expect(errPaths(vEntry, label)).toContain("/targetId");
    expect(errPaths(validator("entry-label"), label)).toContain("/targetId");
  });
  it("string tokensBefore, missing firstKept*", () => {
    const c = { type: "compaction", id: "c", parentId: "p", timestamp: ts, summary: "s", firstKeptEntryId: "x", tokensBefore: 10 };
    expect(errPaths(vEntry, c)).toEqual([]);
    expect(errPaths(vEntry, { ...c, tokensBefore: "10" })).toContain("/tokensBefore");
    expect(errPaths(vEntry, { ...c, fromHook: "no" })).toContain("/fromHook");
    const { firstKeptEntryId: _drop, ...noKept } = c;
    expect(vEntry(noKept)).toBe(false);
    expect(errPaths(vEntry, { ...noKept, firstKeptEntryIndex: 3 })).toEqual([]);
    expect(errPaths(vEntry, { ...noKept, firstKeptEntryIndex: 1.5 })).toContain("/firstKeptEntryIndex");
  });
  it("wrong id/parentId types on known and unknown entry types", () => {
    const base = { type: "model_change", timestamp: ts, provider: "p", modelId: "m" };
    expect(errPaths(vEntry, { ...base, id: 7 })).toContain("/id");
    expect(errPaths(vEntry, { ...base, parentId: 7 })).toContain("/parentId");
    expect(errPaths(vEntry, { ...base, id: "x", parentId: null })).toEqual([]);
    expect(errPaths(vEntry, { type: "mode_change", id: 7, parentId: null, timestamp: ts })).toContain("/id");
  });
  it("entry without type, non-string type, non-object lines", () => {
    expect(vEntry({ id: "x", timestamp: ts })).toBe(false);
    expect(errPaths(vEntry, { type: 3, timestamp: ts })).toContain("/type");
    for (const v of [null, 42, [], "x"]) expect(vEntry(v)).toBe(false);
  });
  it("message entry without message; message without role", () => {
    expect(vEntry({ type: "message", id: "x", parentId: null, timestamp: ts })).toBe(false);
    expect(vMessage({ content: "hi", timestamp: 1 })).toBe(false);
  });
  it("assistant usage: missing cost, string totals, unknown block type", () => {
    expect(errPaths(vMessage, assistant({ usage: { ...usage, cost: undefined } }))).toContain("/usage");
    expect(errPaths(vMessage, assistant({ usage: { ...usage, input: "1" } }))).toContain("/usage/input");
    expect(errPaths(vMessage, assistant({ usage: { ...usage, cost: { ...usage.cost, total: null } } }))).toContain("/usage/cost/total");
    expect(errPaths(vMessage, assistant({ content: [{ type: "image", data: "A", mimeType: "image/png" }] }))).toContain("/content/0/type");
    expect(errPaths(vMessage, assistant({ timestamp: ts }))).toContain("/timestamp");
  });
  it("header: wrong type, missing id, string version", () => {
    const h = { type: "session", version: 3, id: "u", timestamp: ts, cwd: "/x" };
    expect(errPaths(vHeader, h)).toEqual([]);
    expect(errPaths(vHeader, { ...h, type: "message" })).toContain("/type");
    expect(vHeader({ ...h, id: undefined })).toBe(false);
    expect(errPaths(vHeader, { ...h, version: "3" })).toContain("/version");
    expect(errPaths(vHeader, { ...h, parentSession: 1 })).toContain("/parentSession");
  });
  it("bashExecution with string exitCode; custom message display not boolean", () => {
    const b = { role: "bashExecution", command: "ls", output: "", exitCode: 0, cancelled: false, truncated: false, timestamp: 1 };
    expect(errPaths(vMessage, b)).toEqual([]);
    expect(errPaths(vMessage, { ...b, exitCode: null })).toEqual([]);
    expect(errPaths(vMessage, { ...b, exitCode: "0" })).toContain("/exitCode");
    const c = { role: "custom", customType: "x", content: "hi", display: true, timestamp: 1 };
    expect(errPaths(vMessage, c)).toEqual([]);
    expect(errPaths(vMessage, { ...c, role: "hookMessage" })).toEqual([]);
    expect(errPaths(vMessage, { ...c, display: "yes" })).toContain("/display");
  });
});

describe("pi 1.6 shapes", () => {
  const sys = (over: Json = {}): Json => ({ role: "system", content: "You are pi.", timestamp: 1, ...over });
  const edit = (over: Json = {}): Json => ({
    type: "context_edit",
    id: "e",
    parentId: "p",
    timestamp: ts,
    targetId: "t",
    replacement: null,
    ...over,
  });
  const usageEntry = (over: Json = {}): Json => ({
    type: "usage",
    id: "u",
    parentId: "p",
    timestamp: ts,
    kind: "cache_warm",
    provider: "anthropic",
    model: "m",
    usage,
    ...over,
  });
  it("system messages", () => {
    expect(errPaths(vMessage, sys())).toEqual([]);
    expect(
      errPaths(
        vMessage,
        sys({
          content: [{ type: "text", text: "x" }],
          sections: { a: "x", b: null },
          toolsAdded: [{ name: "bash", description: "d", parameters: {} }],
          toolsRemoved: [{ name: "read" }],
        }),
      ),
    ).toEqual([]);
    expect(errPaths(vMessage, sys({ content: [{ type: "image", data: "A", mimeType: "image/png" }] }))).toContain("/content/0/type");
    expect(errPaths(vMessage, sys({ sections: { a: 3 } }))).toContain("/sections/a");
    expect(errPaths(vMessage, sys({ toolsAdded: [{ name: "bash" }] }))).toContain("/toolsAdded/0");
    expect(errPaths(vMessage, sys({ toolsRemoved: ["read"] }))).toContain("/toolsRemoved/0");
    expect(vMessage(sys({ content: undefined }))).toBe(false);
  });
  it("usage entries", () => {
    expect(errPaths(vEntry, usageEntry())).toEqual([]);
    expect(errPaths(vEntry, usageEntry({ kind: "anything", note: "n" }))).toEqual([]);
    expect(errPaths(vEntry, usageEntry({ kind: 3 }))).toContain("/kind");
    expect(errPaths(vEntry, usageEntry({ note: 3 }))).toContain("/note");
    expect(errPaths(vEntry, usageEntry({ usage: { ...usage, cost: undefined } }))).toContain("/usage");
    expect(vEntry(usageEntry({ model: undefined }))).toBe(false);
  });
  it("context edits", () => {
    expect(errPaths(vEntry, edit())).toEqual([]);
    expect(errPaths(vEntry, edit({ replacement: { content: "x" } }))).toEqual([]);
    expect(
      errPaths(
        vEntry,
        edit({
          replacement: {
            content: [
              { type: "text", text: "x" },
              { type: "toolCall", id: "c", name: "n", arguments: {} },
            ],
          },
        }),
      ),
    ).toEqual([]);
    expect(errPaths(vEntry, edit({ replacement: "x" }))).toContain("/replacement");
    expect(errPaths(vEntry, edit({ replacement: {} }))).toContain("/replacement");
    expect(errPaths(vEntry, edit({ replacement: { content: 5 } }))).toContain("/replacement/content");
    expect(errPaths(vEntry, edit({ replacement: { content: [{ type: "text" }] } }))).toContain("/replacement/content/0");
    expect(errPaths(vEntry, edit({ targetId: 1 }))).toContain("/targetId");
    expect(vEntry(edit({ replacement: undefined }))).toBe(false);
  });
  it("compaction and branch summary: usage, fromHook, systemMessage", () => {
    const c = { type: "compaction", id: "c", parentId: "p", timestamp: ts, summary: "s", firstKeptEntryId: "c", tokensBefore: 1 };
    expect(errPaths(vEntry, { ...c, usage, fromHook: true, systemMessage: sys() })).toEqual([]);
    expect(errPaths(vEntry, { ...c, systemMessage: sys({ role: "user" }) })).toContain("/systemMessage/role");
    expect(errPaths(vEntry, { ...c, usage: { input: 1 } })).toContain("/usage");
    const b = { type: "branch_summary", id: "b", parentId: "p", timestamp: ts, fromId: "x", summary: "s" };
    expect(errPaths(vEntry, { ...b, usage, fromHook: false })).toEqual([]);
    expect(errPaths(vEntry, { ...b, usage: { ...usage, output: "2" } })).toContain("/usage/output");
  });
  it("assistant: new stop reasons and optional fields, usage cacheWrite1h and reasoning", () => {
    for (const stopReason of ["pending", "deferred"]) expect(errPaths(vMessage, assistant({ stopReason }))).toEqual([]);
    const full = assistant({
      responseModel: "m-2025",
      responseId: "r",
      providerThinkingLevel: "high",
      thinkingLevel: "max",
      diagnostics: [{ type: "retry", timestamp: 1, error: { message: "x" } }],
      deferred: { provider: "p", modelId: "m", api: "a", id: "h" },
      rawStopReason: "end_turn",
      endTurn: true,
      durationMs: 12,
      usage: { ...usage, cacheWrite1h: 0, reasoning: 1, cost: { ...usage.cost, totalFromProvider: true } },
    });
    expect(errPaths(vMessage, full)).toEqual([]);
    expect(errPaths(vMessage, assistant({ durationMs: "12" }))).toContain("/durationMs");
    expect(errPaths(vMessage, assistant({ deferred: { id: "h" } }))).toContain("/deferred");
    expect(errPaths(vMessage, assistant({ usage: { ...usage, reasoning: "1" } }))).toContain("/usage/reasoning");
    expect(errPaths(vMessage, assistant({ usage: { ...usage, cacheWrite1h: null } }))).toContain("/usage/cacheWrite1h");
  });
  it("tool result: usage, nestedCalls, durationMs; thinking level max", () => {
    expect(
      errPaths(
        vMessage,
        toolResult({ usage, durationMs: 3, nestedCalls: { calls: [{ id: "1", name: "read", status: "ok" }], complete: true } }),
      ),
    ).toEqual([]);
    expect(
      errPaths(vMessage, toolResult({ nestedCalls: { calls: [{ id: "1", name: "read", status: "done" }], complete: true } })),
    ).toContain("/nestedCalls/calls/0/status");
    expect(errPaths(vEntry, { type: "thinking_level_change", id: "a", parentId: null, timestamp: ts, thinkingLevel: "max" })).toEqual([]);
  });
});

describe("hand-made positive cases (unknown keys, types and roles are allowed)", () => {
  it("extra keys everywhere", () => {
    const m = assistant({
      someFutureKey: 1,
      content: [
        { type: "text", text: "x", textSignature: "sig" },
        { type: "toolCall", id: "t", name: "n", arguments: {}, extra: true },
      ],
      usage: { ...usage, reasoning: 5, cost: { ...usage.cost, extra: 0 } },
    });
    expect(errPaths(vEntry, { ...msgEntry(m), newEntryKey: "x" })).toEqual([]);
    expect(errPaths(vHeader, { type: "session", version: 3, id: "u", timestamp: ts, cwd: "/", metadata: { a: 1 } })).toEqual([]);
    expect(errPaths(vEntry, { type: "label", id: "a", parentId: "b", timestamp: ts, targetId: "c", color: "red" })).toEqual([]);
    expect(errPaths(vMessage, toolResult({ details: { diff: "x" }, durationMs: 4 }))).toEqual([]);
  });
  it("unknown entry types and message roles pass", () => {
    expect(errPaths(vEntry, { type: "mode_change", id: "a", parentId: "b", timestamp: ts, mode: "plan" })).toEqual([]);
    expect(errPaths(vEntry, msgEntry({ role: "branchSummary", summary: "s" }))).toEqual([]);
    expect(errPaths(vMessage, { role: "someFutureRole" })).toEqual([]);
  });
  it("v1 shapes: header without version, entries without id/parentId, legacy branchedFrom", () => {
    expect(
      errPaths(vHeader, {
        type: "session",
        id: "u",
        timestamp: ts,
        cwd: "/",
        provider: "p",
        modelId: "m",
        thinkingLevel: "off",
        branchedFrom: "/f.jsonl",
      }),
    ).toEqual([]);
    expect(errPaths(vEntry, { type: "thinking_level_change", timestamp: ts, thinkingLevel: "high" })).toEqual([]);
    expect(errPaths(vEntry, { type: "message", timestamp: ts, message: { role: "user", content: "hi", timestamp: 1 } })).toEqual([]);
  });
  it("label without label (clear), session_info without name, custom without data", () => {
    expect(errPaths(vEntry, { type: "label", id: "a", parentId: "b", timestamp: ts, targetId: "c" })).toEqual([]);
    expect(errPaths(vEntry, { type: "session_info", id: "a", parentId: "b", timestamp: ts })).toEqual([]);
    expect(errPaths(vEntry, { type: "custom", id: "a", parentId: "b", timestamp: ts, customType: "x" })).toEqual([]);
  });
});

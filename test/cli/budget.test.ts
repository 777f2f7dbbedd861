import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkOutput } from "../support/output-schema-check.js";
import { corpus, fixture, runCli } from "../support/helpers.js";

/** `pisess budget` end to end: the text, the JSON contract, pi's settings files, the bill on pi 1.6's own file. */

const home = mkdtempSync(join(tmpdir(), "pisess-budget-cli-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const agent = (name: string, settings: string) => {
  const dir = join(home, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "settings.json"), settings);
  return { PI_CODING_AGENT_DIR: dir };
};
const noSettings = { PI_CODING_AGENT_DIR: join(home, "none") };
type Json = Record<string, any>;

describe("pisess budget", () => {
  it("text: the parts with bars, the largest entries, the bill, compact now", async () => {
    const r = await runCli(["budget", fixture("readme", "session.jsonl"), "--leaf", "@129"], { env: noSettings });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("session.jsonl: leaf line 129 (e0000129): 404 tokens in 78 messages");
    expect(r.stdout).toMatch(/user text +268 +66\.3% +39 +█+/);
    expect(r.stdout).toContain("the assistant turn at line 130 (e0000130), its first child by file order");
    expect(r.stdout).toContain("billed 1000 (input 1000 + cacheRead 0 + cacheWrite 0), estimated 404: ratio 2.475");
    expect(r.stdout).toContain("keepRecentTokens 20000 (pi's default)");
  });

  it("pi 1.6's own session: system sections, tool declarations and every turn's bill on the path (--path)", async () => {
    const r = await runCli(["budget", corpus("pi16-written.jsonl"), "--path", "--json"], { env: noSettings });
    expect(r.code).toBe(0);
    checkOutput("budget", r.stdout);
    const d = JSON.parse(r.stdout) as Json;
    expect(d.leaf).toEqual({ line: 46, id: "5dfe8582" });
    const kinds = new Set((d.parts as Json[]).map((p) => `${p.kind}:${p.name ?? ""}`));
    for (const k of ["system-section:preamble", "system-tools:", "bash:", "custom:todo-state", "tool-result:bash", "branch-summary:"])
      expect(kinds).toContain(k);
    // The bills as pi 1.6 wrote them (usage.input + cacheRead + cacheWrite of each assistant turn on the path).
    const turns = (d.path as Json[]).filter((p) => p.kind === "turn");
    expect(turns.map((t) => [t.line, t.billed])).toEqual([
      [6, 6600],
      [8, 6615],
      [12, 7120],
      [16, 7125],
      [19, 7930],
      [26, 8040],
      [28, 8145],
      [34, 8350],
      [44, 8770],
      [46, 8875],
    ]);
    expect((d.path as Json[]).filter((p) => p.kind === "compaction").map((c) => [c.line, c.tokensBefore])).toEqual([[31, 9200]]);
  });

  it("--path as text: a row per turn (its parent, estimate, bill, ratio), the compaction marked with its tokensBefore", async () => {
    const r = await runCli(["budget", corpus("pi16-written.jsonl"), "--path"], { env: noSettings });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Along the path");
    expect(r.stdout).toMatch(/\n +6 +assistant +5 +\d+ +6600 +\d+\.\d{3}\n/);
    expect(r.stdout).toMatch(/\n +31 +compaction +\d+ +\(before 9200\)\n/);
  });

  it("a real session (v1, two compactions): every turn with usage has a ratio; compaction rows mark the drops", async () => {
    const r = await runCli(["budget", corpus("real-v1-before-compaction.jsonl"), "--path", "--json"], { env: noSettings });
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as Json;
    const rows = d.path as Json[];
    const compactions = rows.filter((p) => p.kind === "compaction");
    expect(compactions.length).toBeGreaterThan(0);
    for (const t of rows.filter((p) => p.kind === "turn" && p.billed !== null))
      expect(t.ratio).toBe(Math.round((t.billed / t.estimate) * 1000) / 1000);
    // Right after a compaction the estimate drops below the turn before it.
    const i = rows.indexOf(compactions[compactions.length - 1] as Json);
    expect((rows[i] as Json).estimate).toBeLessThan((rows[i - 1] as Json).estimate);
  });

  it("keepRecentTokens from pi's settings: a model's override first, the project's settings over the agent's", async () => {
    const env = agent("a", JSON.stringify({ compaction: { keepRecentTokens: 200 } }));
    const r = await runCli(["budget", fixture("readme", "session.jsonl"), "--json"], { env });
    const d = JSON.parse(r.stdout) as Json;
    expect(d.keepRecentTokens).toEqual({ value: 200, from: join(env.PI_CODING_AGENT_DIR, "settings.json") });
    expect(d.compactNow.possible).toBe(true);
    // The project's .pi/settings.json (the header's cwd) wins; a model override there beats the ordinary setting.
    const project = join(home, "project");
    mkdirSync(join(project, ".pi"), { recursive: true });
    writeFileSync(
      join(project, ".pi", "settings.json"),
      JSON.stringify({ compaction: { keepRecentTokens: 300, modelOverrides: { "anthropic/claude-opus-4-6": { keepRecentTokens: 50 } } } }),
    );
    const lines = readFileSync(corpus("pi16-written.jsonl"), "utf8").split("\n");
    const header = { ...(JSON.parse(lines[0] as string) as Json), cwd: project };
    const file = join(home, "s.jsonl");
    writeFileSync(file, [JSON.stringify(header), ...lines.slice(1)].join("\n"));
    const p = JSON.parse((await runCli(["budget", file, "--json"], { env })).stdout) as Json;
    expect(p.keepRecentTokens).toEqual({ value: 50, from: join(project, ".pi", "settings.json") });
    const over = await runCli(["budget", fixture("readme", "session.jsonl"), "--json", "--keep-recent", "7"], { env });
    expect((JSON.parse(over.stdout) as Json).keepRecentTokens).toEqual({ value: 7, from: "--keep-recent" });
  });

  it("a setting pi would refuse, or a settings file that is not JSON: exit 2, one line", async () => {
    for (const text of [JSON.stringify({ compaction: { keepRecentTokens: -5 } }), "{not json"]) {
      const env = agent(`bad-${text.length}`, text);
      const r = await runCli(["budget", fixture("readme", "session.jsonl")], { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("settings.json");
    }
  });

  it("a parent cycle: the diagnostic, exit 1; a bad reference: exit 2", async () => {
    const cycle = await runCli(["budget", fixture("context", "cycle.jsonl")], { env: noSettings });
    expect(cycle.code).toBe(1);
    expect(cycle.stdout).toBe("");
    expect(cycle.stderr).toContain("parent-cycle");
    const bad = await runCli(["budget", fixture("readme", "session.jsonl"), "--leaf", "nope"], { env: noSettings });
    expect(bad.code).toBe(2);
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixture, runCli } from "../support/helpers.js";
import { bigSecretSession, foundFacts, plantedFacts, secretSession, VALUES } from "../support/secret-session.js";
import { WorkerLinter } from "../../src/reports/secrets-pool.js";
import { type BatchHit, lintBatch, secretlintConfig } from "../../src/check/secrets.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-secrets-cli-"));
const file = join(dir, "planted.jsonl");
writeFileSync(file, secretSession().text);
const clean = fixture("corpus", "gen-v3-branchy.jsonl");

describe("pisess secrets: formats and exit status", () => {
  it("every format masks every value; --show-secret prints them", async () => {
    for (const format of ["text", "json", "ndjson", "github", "sarif"]) {
      const r = await runCli(["secrets", file, "--format", format]);
      expect(r.code, `${format}: ${r.stderr}`).toBe(1);
      for (const [rule, v] of Object.entries(VALUES)) expect(r.stdout.includes(v.slice(4)), `${format} ${rule}`).toBe(false);
    }
    const shown = await runCli(["secrets", file, "--json", "--show-secret"]);
    expect(shown.stdout).toContain(VALUES.github);
  });

  it("exit 0 without secrets, 1 with (unsent ones too, unless --fail-on error), 2 for an unreadable input", async () => {
    expect((await runCli(["secrets", clean])).code).toBe(0);
    expect((await runCli(["secrets", file, "--fail-on", "error"])).code).toBe(1);
    const unsent = join(dir, "unsent.jsonl");
    writeFileSync(unsent, `${secretSession().text.split("\n")[0]}\n`);
    expect((await runCli(["secrets", unsent])).code).toBe(1);
    expect((await runCli(["secrets", unsent, "--fail-on", "error"])).code).toBe(0);
    const missing = await runCli(["secrets", join(dir, "nope.jsonl")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.jsonl/);
  });

  it("sarif: the two secret codes are its rules; github: one annotation per place", async () => {
    const sarif = JSON.parse((await runCli(["secrets", file, "--format", "sarif"])).stdout) as {
      runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; properties: { args: { rule: string } } }[] }[];
    };
    const run = sarif.runs[0];
    expect(run?.tool.driver.rules.map((x) => x.id)).toEqual(["secret-sent", "secret-unsent"]);
    expect(run?.results).toHaveLength(29);
    expect(new Set(run?.results.map((x) => x.properties.args.rule)).size).toBe(Object.keys(VALUES).length);
    const gh = (await runCli(["secrets", file, "--format", "github"])).stdout.trim().split("\n");
    expect(gh).toHaveLength(29);
    expect(gh[0]).toMatch(/^::warning file=.*planted\.jsonl,line=1,title=secret-unsent::npm secret npm_… \(40 chars\) in header at \/cwd/);
  });

  it("usage errors: a --pattern without NAME=, a preset rule's name, a bad regex (exit 2, one line)", async () => {
    for (const args of [
      ["--pattern", "nameless"],
      ["--pattern", "github=x"],
      ["--pattern", "a=("],
      ["--allow", "("],
    ]) {
      const r = await runCli(["secrets", file, ...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
    }
  });
});

describe("pisess secrets: batches linted in a worker thread", () => {
  // The built worker (tsc's dist/reports/; the bundle's is dist/bundle/secrets-worker.js, checked by lazy-load).
  const url = new URL("../../dist/reports/secrets-worker.js", import.meta.url);

  it("a session of several batches: every planted value found, as one thread finds them", async () => {
    const big = join(dir, "big-planted.jsonl");
    const { text, planted } = bigSecretSession(4000);
    writeFileSync(big, text);
    const r = await runCli(["secrets", big, "--json", "--show-secret"]);
    expect(r.code, r.stderr).toBe(1);
    const data = JSON.parse(r.stdout) as { findings: Parameters<typeof foundFacts>[0] };
    expect(foundFacts(data.findings)).toEqual(plantedFacts(planted));
    // The compiled report, whose worker module is beside it, on one worker thread and on none: the same data.
    const dist = (await import("../../dist/reports/secrets.js")) as typeof import("../../src/reports/secrets.js");
    const { openFile } = (await import("../../dist/reports/open.js")) as typeof import("../../src/reports/open.js");
    const one = await dist.secretsReport({ inputs: [big], open: openFile, showSecret: true, threads: 1 });
    const none = await dist.secretsReport({ inputs: [big], open: openFile, showSecret: true, threads: 0 });
    expect(JSON.stringify(one.data)).toBe(JSON.stringify(none.data));
    expect(foundFacts(one.data.findings)).toEqual(plantedFacts(planted));
  });

  it("the worker answers as secretlint does here; it holds three batches at most, then the scanner lints itself", async () => {
    const linter = new WorkerLinter(url, 1, [{ name: "acme", regex: /acme_[0-9]{6}/ }]);
    try {
      const texts = [`x ${VALUES.github} acme_123456`, `${VALUES.npm}\n${VALUES.slack}`, "nothing", "more"];
      const answers = texts.map((t) => linter.offer(t.split("\n")));
      expect(answers.map((a) => a !== undefined)).toEqual([true, true, true, false]);
      const config = secretlintConfig([{ name: "acme", regex: /acme_[0-9]{6}/ }]);
      const here = await Promise.all(texts.slice(0, 3).map((t) => lintBatch(config, t.split("\n"))));
      expect(await Promise.all(answers.slice(0, 3))).toEqual(here);
      expect((here[1] as BatchHit[]).map((h) => [h.piece, h.start])).toEqual([
        [0, 0],
        [1, 0],
      ]);
      expect((here[0] as BatchHit[]).map((m) => m.ruleId).sort()).toEqual(["@secretlint/secretlint-rule-github", "pisess-pattern/acme"]);
      // Answered: room again.
      expect(await linter.offer(["again", `x ${VALUES.npm}`])).toEqual([
        { piece: 1, start: 2, end: 2 + VALUES.npm.length, ruleId: "@secretlint/secretlint-rule-npm", text: `x ${VALUES.npm}` },
      ]);
    } finally {
      await linter.close();
    }
  });

  it("a worker that fails (here: its module throws) fails the batches offered to it and those after", async () => {
    const linter = new WorkerLinter(new URL("data:text/javascript,throw new Error('no engine')"), 1, []);
    try {
      await expect(linter.offer(["x"])).rejects.toThrow("no engine");
      await expect(linter.offer(["y"])).rejects.toThrow("no engine");
    } finally {
      await linter.close();
    }
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";
import { type BatchHit, lintBatch, mayBeServiceAccount, SecretScanner, secretlintConfig } from "../../src/check/secrets.js";
import { openFile } from "../../src/reports/open.js";
import { type SecretFinding, secretsReport } from "../../src/reports/secrets.js";
import { bigSecretSession, foundFacts, plantedFacts, secretSession, VALUES } from "../support/secret-session.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-secrets-"));
function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

async function scan(path: string, extra: Partial<Parameters<typeof secretsReport>[0]> = {}) {
  return secretsReport({ inputs: [path], open: openFile, ...extra });
}

describe("secrets: every planted value is found, in its place", () => {
  const { text, planted } = secretSession();
  const file = write("planted.jsonl", text);

  it("one finding per planted value, with line, pointer, place, tool call and the requests that carried it", async () => {
    const r = await scan(file, { showSecret: true });
    const got = foundFacts(r.data.findings);
    expect(got).toEqual(plantedFacts(planted));
    // Every rule of the preset has a planted value, and each was found.
    expect(new Set(got.map((g) => g.rule))).toEqual(new Set(Object.keys(VALUES)));
    expect(Object.keys(VALUES).sort()).toEqual(
      presetRules
        .map((r) => r.meta.id.replace("@secretlint/secretlint-rule-", ""))
        .filter((id) => id !== "filter-comments")
        .sort(),
    );
    expect(r.exitCode).toBe(1);
  });

  it("the first and last request name the assistant turn's model, provider and time", async () => {
    const r = await scan(file);
    const aws = r.data.findings.find((f) => f.rule === "aws") as SecretFinding;
    expect(aws.first).toEqual({ line: 3, model: "claude-test", provider: "anthropic", time: "2026-11-30T10:00:03.000Z" });
    expect(aws.last?.line).toBe(24);
  });

  it("values are masked (first 4 characters and the length) unless --show-secret", async () => {
    const r = await scan(file);
    const json = JSON.stringify(r.data);
    for (const v of Object.values(VALUES)) expect(json).not.toContain(v);
    const gh = r.data.findings.find((f) => f.rule === "github") as SecretFinding;
    expect(gh).toMatchObject({ masked: VALUES.github.slice(0, 4), length: VALUES.github.length });
    expect(gh.value).toBeUndefined();
    const d = r.diagnostics.find((x) => x.args.rule === "github");
    expect(d?.args.value).toBeNull();
  });

  it("the same value in three places is one secret with three places", async () => {
    const r = await scan(file);
    const gh = r.data.secrets.find((s) => s.rule === "github");
    expect(gh?.places.map((i) => r.data.findings[i]?.line)).toEqual([4, 14, 16]);
    // One value per rule, the service account's key found by privatekey too, and the AWS rule's two other formats.
    expect(r.data.secrets).toHaveLength(Object.keys(VALUES).length + 3);
  });

  it("codes: secret-sent (error) for values in a request, secret-unsent (warning) for the rest; --fail-on error ignores the unsent", async () => {
    const r = await scan(file);
    const codes = r.diagnostics.map((d) => `${d.line}:${d.args.rule}:${d.code}`);
    expect(codes).toContain("13:privatekey:secret-unsent");
    expect(codes).toContain("2:aws:secret-sent");
    expect(r.diagnostics.find((d) => d.code === "secret-unsent")?.severity).toBe("warning");
    const onlyUnsent = write("unsent.jsonl", `${text.split("\n").slice(0, 2).join("\n")}\n`);
    expect((await scan(onlyUnsent)).exitCode).toBe(1);
    expect((await scan(onlyUnsent, { failOn: "error" })).exitCode).toBe(0);
  });

  it("--allow leaves known values out; --pattern adds a rule of the user's", async () => {
    const r = await scan(file, { allow: [/^gh/], patterns: [{ name: "acme", regex: /acme_[0-9]{6}/ }] });
    expect(r.data.findings.some((f) => f.rule === "github")).toBe(false);
    const own = write(
      "own.jsonl",
      `${text.split("\n")[0]}\n${JSON.stringify({ type: "message", id: "x", parentId: null, timestamp: "2026-11-30T10:00:00.000Z", message: { role: "user", content: "id acme_123456 ok", timestamp: 1 } })}\n`,
    );
    const o = await scan(own, { patterns: [{ name: "acme", regex: /acme_[0-9]{6}/ }] });
    expect(o.data.findings.filter((f) => f.rule === "acme").map((f) => [f.line, f.masked, f.length])).toEqual([[2, "acme", 11]]);
  });

  it("a !! bash command (excludeFromContext) reaches no request", async () => {
    const [header] = text.split("\n");
    const e = (id: string, parentId: string | null, message: object) =>
      JSON.stringify({ type: "message", id, parentId, timestamp: "2026-11-30T10:00:01.000Z", message: { ...message, timestamp: 1 } });
    const f = write(
      "bang.jsonl",
      `${[
        header,
        e("b1", null, {
          role: "bashExecution",
          command: `echo ${VALUES.npm}`,
          output: "x",
          exitCode: 0,
          cancelled: false,
          truncated: false,
          excludeFromContext: true,
        }),
        e("u1", "b1", { role: "user", content: "hi" }),
        e("a1", "u1", { role: "assistant", content: [{ type: "text", text: "ok" }], provider: "p", model: "m", stopReason: "stop" }),
      ].join("\n")}\n`,
    );
    const r = await scan(f);
    expect(r.data.findings.filter((x) => x.line === 2).map((x) => [x.place, x.requests])).toEqual([["bash-command", 0]]);
  });

  it("a line pi drops (not JSON) is scanned as text: found, in no request", async () => {
    const [header, u1] = text.split("\n");
    const f = write("malformed.jsonl", `${header}\n${u1}\n{"type":"message","id":"x", ${VALUES.github}\n`);
    const r = await scan(f);
    expect(r.data.findings.map((x) => [x.line, x.rule, x.place, x.entryType, x.requests])).toEqual([
      [1, "npm", "header", "header", 0],
      [2, "aws", "user-text", "message", 0],
      [3, "github", "unparsed-line", "line", 0],
    ]);
  });

  it("a file without secrets: no findings, exit 0", async () => {
    const clean = write("clean.jsonl", `${text.split("\n")[0]}\n`.replace(VALUES.npm, "project"));
    const r = await scan(clean);
    expect(r.data.findings).toEqual([]);
    expect(r.exitCode).toBe(0);
  });
});

describe("secrets: a session of several batches, in this thread", () => {
  it("every planted value found, as in the small session; the fillers' tokens on their lines", async () => {
    // From the sources, the worker module is not there: the report lints in this thread (test/cli runs the other).
    const { text, planted } = bigSecretSession(4000);
    expect(text.length).toBeGreaterThan(2.5 * (1 << 20));
    const r = await scan(write("big-planted.jsonl", text), { showSecret: true });
    expect(foundFacts(r.data.findings)).toEqual(plantedFacts(planted));
    expect(r.data.findings.filter((f) => f.line > 24)).toHaveLength(4);
  });
});

describe("secrets: the scanner", () => {
  it("the proofs that let strings skip rules are for the preset's version 12.0.0: re-read its rules when it changes", () => {
    // check/secrets.ts: AWS_WORDS (the AWS rule's words), CLEAN_CHARS (what a rule's match reads beside it),
    // mayBeServiceAccount (what the GCP rule parses).
    const pkg = JSON.parse(
      readFileSync(join("node_modules", "@secretlint", "secretlint-rule-preset-recommend", "package.json"), "utf8"),
    ) as { version: string };
    expect(pkg.version).toBe("12.0.0");
  });

  it("the AWS rule's three patterns, in a batch of other strings: each found (it sees the strings with its words)", async () => {
    const s = new SecretScanner();
    const secret = ["wJalrXUtnFEMI/K7MDENG", "/bPxRfiCYzzzzzzzzzzzzzzzzzz"].join("").slice(0, 40);
    const texts = [`aws_account_id = 1234-5678-9012`, `AWS_SECRET_ACCESS_KEY="${secret}"`, `key ${VALUES.aws}`, "Account: 1234"];
    for (let i = 0; i < 200; i++) s.add(i, { text: `filler ${i} words` });
    texts.forEach((t, i) => {
      s.add(1000 + i, { t });
    });
    const hits = await s.finish();
    expect(hits.map((h) => [h.owner, h.rule, h.value])).toEqual([
      [1000, "aws", "aws_account_id = 1234-5678-9012"],
      // The key itself (the rule's range, in secretlint 12.0.0, is the key's length from the variable's name).
      [1001, "aws", secret],
      [1002, "aws", VALUES.aws],
    ]);
  });
  it("a secretlint-disable comment in a session hides nothing", async () => {
    const s = new SecretScanner();
    s.add(0, { text: `// secretlint-disable\n${VALUES.github}` });
    expect((await s.finish()).map((h) => h.rule)).toEqual(["github"]);
  });

  it("a match across two strings is not one; each string is linted alone again", async () => {
    const s = new SecretScanner();
    const [head, tail] = [VALUES.privatekey.slice(0, 40), VALUES.privatekey.slice(40)];
    s.add(0, { a: `${head}`, b: `${tail}`, c: VALUES.privatekey });
    const hits = await s.finish();
    // Ordinals: a key, then its value: "c"'s value is the sixth string.
    expect(hits.map((h) => [h.rule, h.ordinal, h.value === VALUES.privatekey])).toEqual([["privatekey", 5, true]]);
  });

  it("strings of many entries batched into one source map back to their entry and offset", async () => {
    const s = new SecretScanner();
    for (let i = 0; i < 3000; i++)
      s.add(i, { text: i % 1000 === 7 ? `pad ${"x".repeat(i % 50)} ${VALUES.npm} end` : `filler ${"y".repeat(500)}` });
    const hits = await s.finish();
    expect(hits.map((h) => [h.owner, h.value, h.text.slice(h.start, h.end)])).toEqual(
      [7, 1007, 2007].map((o) => [o, VALUES.npm, VALUES.npm]),
    );
  });

  it("a 10 MB single-line tool result: found, in bounded time", async () => {
    const big = `${"log line without anything in it\n".repeat(320_000)}${VALUES.aws}\n`;
    const entry = {
      type: "message",
      id: "r",
      parentId: null,
      timestamp: "2026-11-30T10:00:00.000Z",
      message: {
        role: "toolResult",
        toolCallId: "c",
        toolName: "bash",
        content: [{ type: "text", text: big }],
        isError: false,
        timestamp: 1,
      },
    };
    const header = {
      type: "session",
      version: 3,
      id: "0198a7c0-0000-7000-8000-00000000a031",
      timestamp: "2026-11-30T10:00:00.000Z",
      cwd: "/w",
    };
    const path = write("big.jsonl", `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`);
    const t0 = performance.now();
    const r = await scan(path);
    const ms = performance.now() - t0;
    expect(r.data.findings.map((f) => [f.rule, f.line, f.pointer])).toEqual([["aws", 2, "/message/content/0/text"]]);
    expect(ms).toBeLessThan(10_000);
  });
});

describe("secrets: the GCP rule, on strings that are a service-account key file", () => {
  const key = JSON.parse(VALUES.gcp) as Record<string, string>;

  it("a key file written with \\u escapes in its keys is found (JSON.parse decodes them, and so does the rule)", async () => {
    const escaped = VALUES.gcp.replace('"private_key_id"', '"private\\u005fkey_id"');
    expect(JSON.parse(escaped)).toEqual(key);
    expect(mayBeServiceAccount(escaped)).toBe(true);
    const s = new SecretScanner();
    s.add(0, { text: `\ufeff \n${escaped}` });
    expect((await s.finish()).filter((h) => h.rule === "gcp").map((h) => h.start)).toEqual([0]);
  });

  it("what the rule cannot report is not linted as a key file: not an object, no key id, no PEM header", () => {
    expect(mayBeServiceAccount(VALUES.gcp)).toBe(true);
    expect(mayBeServiceAccount(`cat sa.json\n${VALUES.gcp}`)).toBe(false);
    expect(mayBeServiceAccount(`[${VALUES.gcp}]`)).toBe(false);
    expect(mayBeServiceAccount(VALUES.gcp.replace("private_key_id", "private_key_no"))).toBe(false);
    expect(mayBeServiceAccount(VALUES.gcp.replace(/PRIVATE KEY/g, "PUBLIC KEY"))).toBe(false);
  });

  it("a key file inside a longer text is not the rule's (it parses the whole source); its key is still privatekey's", async () => {
    const s = new SecretScanner();
    s.add(0, { text: `$ cat sa.json\n${VALUES.gcp}` });
    expect((await s.finish()).map((h) => h.rule)).toEqual(["privatekey"]);
  });
});

/** A worker that is always full: it counts the batches offered to it and takes none. */
function fullLinter(): { offered: number; offer(): undefined } {
  return {
    offered: 0,
    offer(): undefined {
      this.offered++;
      return undefined;
    },
  };
}

describe("secrets: batches linted elsewhere (another thread's linter)", () => {
  /** Enough strings for four full batches and a part, with the npm token in a few (owner 7, 1007, …). */
  function fill(s: SecretScanner): void {
    for (let i = 0; i < 9000; i++)
      s.add(i, { text: i % 1000 === 7 ? `pad ${VALUES.npm} end ${"z".repeat(400)}` : `filler ${"y".repeat(500)}` });
  }
  const want = [7, 1007, 2007, 3007, 4007, 5007, 6007, 7007, 8007].map((o) => [o, VALUES.npm]);

  it("a linter that answers later, out of order: the same hits, in the same order", async () => {
    const texts: string[] = [];
    const s = new SecretScanner({
      remote: {
        offer(parts: readonly string[]): Promise<BatchHit[]> {
          const text = parts.join("\n");
          texts.push(text);
          const delay = 30 - 5 * texts.length;
          return lintBatch(secretlintConfig(), parts).then((h) => new Promise((done) => setTimeout(() => done(h), delay)));
        },
      },
    });
    fill(s);
    const hits = await s.finish();
    expect(hits.map((h) => [h.owner, h.value])).toEqual(want);
    // Every batch went there, the last (partial) one too once a full one had.
    expect(texts.length).toBeGreaterThanOrEqual(5);
    expect(texts.slice(0, -1).every((t) => t.length >= 1 << 20)).toBe(true);
  });

  it("a linter that is full (answers undefined): the scanner lints those batches itself", async () => {
    const full = fullLinter();
    const s = new SecretScanner({ remote: full });
    fill(s);
    expect((await s.finish()).map((h) => [h.owner, h.value])).toEqual(want);
    expect(full.offered).toBeGreaterThanOrEqual(4);
  });

  it("a small scan offers nothing: its one batch is linted here", async () => {
    const full = fullLinter();
    const s = new SecretScanner({ remote: full });
    s.add(0, { text: VALUES.npm });
    expect((await s.finish()).map((h) => h.rule)).toEqual(["npm"]);
    expect(full.offered).toBe(0);
  });

  it("a short string remembered as clean is one without a hit: a token repeated in every batch is found every time", async () => {
    let keys = 0;
    const s = new SecretScanner({
      remote: {
        offer(parts: readonly string[]): Promise<BatchHit[]> {
          keys += parts.filter((p) => p === "timestamp").length;
          return lintBatch(secretlintConfig(), parts);
        },
      },
    });
    for (let i = 0; i < 9000; i++) {
      s.add(i, { timestamp: "2026-11-30T10:00:00.000Z", token: i % 1000 === 7 ? VALUES.npm : "no token", text: "y".repeat(500) });
      // As the loader does between chunks: the answers of the batches linted so far come in.
      if (i % 100 === 0) await new Promise((done) => setImmediate(done));
    }
    expect((await s.finish()).map((h) => [h.owner, h.value])).toEqual(want);
    // The key went in the first batch (and those filled before its answer), not in each of the nine thousand.
    expect(keys).toBeGreaterThan(0);
    expect(keys).toBeLessThan(3000);
  });

  it("a linter's failure fails the scan", async () => {
    const s = new SecretScanner({ remote: { offer: () => Promise.reject(new Error("worker gone")) } });
    fill(s);
    await expect(s.finish()).rejects.toThrow("worker gone");
  });
});

describe("secrets: the npm rule's file-only patterns, on strings that are an .npmrc or a package.json", () => {
  const legacy = "0f3c2a8e-1b4d-4c6f-9e2a-7d5b8c1e4f60";
  const found = async (...texts: string[]) => {
    const s = new SecretScanner();
    for (const [i, text] of texts.entries()) s.add(i, { text });
    return (await s.finish()).map((h) => [h.owner, h.rule, h.value]);
  };

  it("an .npmrc's _authToken (a legacy token no other pattern knows) is found, its value exactly", async () => {
    expect(await found(`//registry.npmjs.org/:_authToken=${legacy}\nalways-auth=true`)).toEqual([[0, "npm", legacy]]);
    // The rule's own allowance: a variable, not a token.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an .npmrc's own ${VAR} syntax, not a template.
    expect(await found("//registry.npmjs.org/:_authToken=${NPM_TOKEN}")).toEqual([]);
  });

  it("a package.json's x-oauth-basic user is found beside the URL's basic auth", async () => {
    const text = '{"repository": {"url": "https://someuser-abc123:x-oauth-basic@github.com/owner/repo.git"}}';
    expect(await found(text)).toEqual([
      [0, "basicauth", "https://someuser-abc123:x-oauth-basic@github.com"],
      [0, "npm", "someuser-abc123"],
    ]);
  });

  it("an npm_ token written as an _authToken is one finding, not one per pattern that sees it", async () => {
    const token = `npm_${"a1".repeat(18)}`;
    expect(await found(`//registry.npmjs.org/:_authToken=${token}`)).toEqual([[0, "npm", token]]);
  });
});

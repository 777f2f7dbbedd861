import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/helpers.js";
import { AWS_ACCOUNT, AWS_SECRET, GCP_KEY, secretSession, VALUES } from "../support/secret-session.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-redact-"));
const { text } = secretSession();
const file = join(dir, "planted.jsonl");
writeFileSync(file, text);
// Each rule's value, and the values found beside them (AWS's other formats, the key inside the service account).
const values: [string, string][] = [
  ...Object.entries(VALUES),
  ["aws secret", AWS_SECRET],
  ["aws account", AWS_ACCOUNT],
  ["gcp key", GCP_KEY],
];
type Json = Record<string, unknown>;

/** A value as it can stand in an output: itself, or JSON-escaped (the private key's newlines). */
function holds(out: string, v: string): boolean {
  return out.includes(v) || out.includes(JSON.stringify(v).slice(1, -1));
}

describe("export --redact: every finding of the same scan masked, in every format", () => {
  it("markdown: no planted value is left; each rule's mask is there; the facts say how many and by which rules", async () => {
    const r = await runCli(["export", file, "--redact", "--leaf", "@20"]);
    expect(r.code, r.stderr).toBe(0);
    for (const [rule, v] of values) expect(holds(r.stdout, v), rule).toBe(false);
    expect(r.stdout).toContain("here is my key [REDACTED:aws]");
    const row = r.stdout.split("\n").find((l) => l.startsWith("| redacted |"));
    expect(row).toMatch(/^\| redacted \| 2\d masked as \\\[REDACTED:rule\\\] \(aws ×3, github ×3, /);
  });

  it("html: nothing of the values in the page (entries, previews, labels, the session name)", async () => {
    const out = join(dir, "page.html");
    const r = await runCli(["export", file, "--redact", "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    const page = readFileSync(out, "utf8");
    for (const [rule, v] of values) expect(holds(page, v), rule).toBe(false);
    // Not a part of one either: the AWS rule's range for a secret access key starts at the variable's name.
    expect(page).not.toContain(AWS_SECRET.slice(20));
    expect(page).toContain("[REDACTED:databricks]");
    expect(page).toContain("[REDACTED:docker]");
  });

  it("jsonl: the same entries, ids, tree and usage; only strings masked; --redact-pattern masks more", async () => {
    const plain = await runCli(["export", file, "--format", "jsonl", "--leaf", "@20"]);
    const red = await runCli(["export", file, "--format", "jsonl", "--leaf", "@20", "--redact", "--redact-pattern", "noted|edited"]);
    expect(red.code, red.stderr).toBe(0);
    expect(red.stderr).toMatch(/redact-pattern ×2/);
    const a = plain.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    const b = red.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    // The header's id and time are the export's own (new each run); every entry's are the original's.
    const shape = (es: Json[]) => es.slice(1).map((e) => [e.type, e.id, e.parentId, e.timestamp]);
    expect(shape(b)).toEqual(shape(a));
    const usage = (es: Json[]) => es.map((e) => (e.message as Json | undefined)?.usage ?? null);
    expect(usage(b)).toEqual(usage(a));
    for (const [rule, v] of values) expect(holds(red.stdout, v), rule).toBe(false);
    expect(red.stdout).toContain("[REDACTED:redact-pattern]");
    // The export of the redacted copy holds no secret the scan finds.
    const copy = join(dir, "red.jsonl");
    writeFileSync(copy, red.stdout);
    const again = await runCli(["secrets", copy, "--json"]);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { findings: unknown[] }).findings).toEqual([]);
  });

  it("without --redact nothing is masked", async () => {
    const r = await runCli(["export", file, "--leaf", "@20"]);
    expect(holds(r.stdout, VALUES.shopify)).toBe(true);
    expect(r.stdout).not.toContain("| redacted |");
  });
});

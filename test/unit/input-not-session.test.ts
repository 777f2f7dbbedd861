import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { checkSession } from "../../src/check/validate.js";
import { runCli } from "../support/helpers.js";
import { NO_PI_ENV, oneTurnSession } from "../support/small-session.js";

/**
 * Issue 26 points 3 and 5, issue 27's file rule: one rule for which files pisess reads (model/readable.ts), and
 * validate telling what pi 1.6 (not 0.73) does with a file without a valid header.
 */
const env = NO_PI_ENV;
let tmp: string;
const T = "2025-01-01T09:00:00.000Z";
const session = (version: number, id: string): string => oneTurnSession(id, { version });

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "pisess-input-"));
  writeFileSync(join(tmp, "prose.txt"), "Meeting notes.\nNothing here is JSON.\n");
  writeFileSync(join(tmp, "binary.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0xff, 0xfe, 0x0a, 0x00, 0x01]));
  writeFileSync(join(tmp, "empty.jsonl"), "");
  mkdirSync(join(tmp, "fleet"));
  writeFileSync(join(tmp, "fleet", "ok.jsonl"), session(3, "0194aaaa-0000-7000-8000-000000000001"));
  writeFileSync(join(tmp, "fleet", "v4.jsonl"), session(4, "0194aaaa-0000-7000-8000-000000000002"));
  writeFileSync(
    join(tmp, "fleet", "foreign.jsonl"),
    `${JSON.stringify({ kind: "header", version: 4, id: "0194aaaa-0000-7000-8000-000000000003", createdAt: 1, cwd: "/x" })}\n`,
  );
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cli = (args: string[], input?: string) => runCli(args, { env, cwd: tmp, ...(input !== undefined ? { input } : {}) });

/** Every reading command over one file, with what it needs besides the file. */
const READERS: [string, string[]][] = [
  ["tree", []],
  ["tree", ["--json"]],
  ["path", []],
  ["context", []],
  ["info", []],
  ["leaves", []],
  ["labels", []],
  ["bloat", []],
  ["show", ["@1"]],
  ["compactions", []],
  ["export", ["--format", "markdown"]],
];

describe("input that is no session at all: exit 2, one line, for every reading command", () => {
  for (const name of ["prose.txt", "binary.bin", "empty.jsonl"]) {
    for (const [cmd, rest] of READERS) {
      it(`${cmd} ${rest.join(" ")} on ${name}`, async () => {
        const r = await cli([cmd, join(tmp, name), ...rest]);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stdout).toBe("");
        const lines = r.stderr.trimEnd().split("\n");
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/not a pi session file/);
      });
    }
  }
  it("tree - with empty stdin", async () => {
    const r = await cli(["tree", "-"], "");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^pisess: -: not a pi session file: it is empty\n$/);
  });
  it("validate reports it as a coded error (not-a-session)", async () => {
    const r = await cli(["validate", join(tmp, "prose.txt"), "--format", "ndjson"]);
    expect(r.code).toBe(1);
    const codes = r.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { code?: string }).code)
      .filter((c) => c !== undefined);
    expect(codes).toContain("not-a-session");
    expect(codes).toContain("pi-would-refuse");
    expect(codes).not.toContain("pi-would-overwrite");
  });
  it("a header-only session is still a session (exit 0)", async () => {
    const f = join(tmp, "header-only.jsonl");
    writeFileSync(
      f,
      `${JSON.stringify({ type: "session", version: 3, id: "0194aaaa-0000-7000-8000-00000000000a", timestamp: T, cwd: "/" })}\n`,
    );
    expect((await cli(["tree", f])).code).toBe(0);
  });
});

describe("validate says what pi 1.6 does with a file without a valid header (session-manager.js _setSessionFile)", () => {
  const codesOf = async (text: string): Promise<{ code: string; args: unknown }[]> => {
    const f = join(tmp, `v-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(f, text);
    const s = await loadSession({ kind: "file", path: f });
    try {
      return checkSession(s)
        .filter((d) => d.code.startsWith("pi-would"))
        .map((d) => ({ code: d.code, args: d.args }));
    } finally {
      s.store.close();
    }
  };
  it("non-empty, no header: pi refuses it and leaves it alone (throws 'not a valid pi session')", async () => {
    const entry = JSON.stringify({ type: "message", id: "a1", parentId: null, timestamp: T, message: { role: "user", content: "x" } });
    expect(await codesOf(`${entry}\n`)).toEqual([{ code: "pi-would-refuse", args: { reason: "no-header" } }]);
  });
  it("header without a string id: pi refuses it", async () => {
    expect(await codesOf(`${JSON.stringify({ type: "session", version: 3, id: 42, timestamp: T, cwd: "/" })}\n`)).toEqual([
      { code: "pi-would-refuse", args: { reason: "invalid-id" } },
    ]);
  });
  it("0 bytes: pi writes a fresh header into it", async () => {
    expect(await codesOf("")).toEqual([{ code: "pi-would-overwrite", args: { reason: "empty" } }]);
  });
});

describe("the same files read by tree, info, usage, tables and sql (a version-4 header, a foreign file)", () => {
  for (const name of ["v4.jsonl", "foreign.jsonl"]) {
    for (const cmd of ["tree", "info"]) {
      it(`${cmd} refuses ${name}`, async () => {
        const r = await cli([cmd, join(tmp, "fleet", name)]);
        expect(r.code).toBe(2);
        expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      });
    }
  }
  it("usage counts only ok.jsonl (cost 3), skipping the other two with a note", async () => {
    const r = await cli(["usage", join(tmp, "fleet"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { totals: { cost: number } }).totals.cost).toBe(3);
    expect(r.stderr).toMatch(/skipped 2 files/);
  });
  it("ls lists ok.jsonl only, skipping the other two with a note", async () => {
    const r = await cli(["ls", join(tmp, "fleet"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { sessions: { path: string }[] }).sessions.map((x) => x.path)).toEqual([
      join(tmp, "fleet", "ok.jsonl"),
    ]);
    expect(r.stderr).toMatch(/skipped 2 files/);
  });
  it("grep searches ok.jsonl only, saying why the other two are not searched", async () => {
    const r = await cli(["grep", "hi", join(tmp, "fleet")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("ok.jsonl");
    expect(r.stdout).not.toContain("v4.jsonl");
    expect(r.stderr).toMatch(/v4\.jsonl: pi session file of version 4.*; not searched/);
    expect(r.stderr).toMatch(/foreign\.jsonl: this is a pi agent-core session file.*; not searched/);
  });
  it("tables writes a sessions row for ok.jsonl only", async () => {
    const out = join(tmp, "tables-out");
    const r = await cli(["tables", join(tmp, "fleet"), "--out", out, "--format", "ndjson"]);
    expect(r.code, r.stderr).toBe(0);
    const sessionsFile = readdirSync(out).find((f) => f.startsWith("sessions"));
    expect(sessionsFile).toBeDefined();
    const rows = readFileSync(join(out, sessionsFile as string), "utf8")
      .trim()
      .split("\n");
    expect(rows.map((l) => (JSON.parse(l) as { file: string }).file)).toEqual([join(tmp, "fleet", "ok.jsonl")]);
  });
  it("sql sees ok.jsonl only", async () => {
    const r = await cli(["sql", "select file from sessions order by file", join(tmp, "fleet"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { rows: unknown[] }).rows).toEqual([{ file: join(tmp, "fleet", "ok.jsonl") }]);
  });
});

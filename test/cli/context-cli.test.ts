import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cwdFolderName } from "../../src/io/discover.js";
import { resolveSessionFile } from "../../src/reports/context.js";
import { fingerprint, fixture, runCli, type FileFingerprint, spawnCli } from "../support/helpers.js";
import { contextJsonOut } from "../support/inproc.js";

const ctxFixture = (name: string) => fixture("context", `${name}.jsonl`);
const IMAGES_ID = "01950000-0000-7000-8000-000000000004";
const ROLES_ID = "01950000-0000-7000-8000-000000000006";
const ORPHAN_ID = "01950000-0000-7000-8000-000000000002";

let base: string;
let project: string;
let other: string;
const prints: FileFingerprint[] = [];

/** Puts a copy of a fixture into `folder` with the given mtime (seconds since the epoch). */
function place(folder: string, name: string, source: string | Buffer, mtime: number): string {
  mkdirSync(folder, { recursive: true });
  const p = join(folder, name);
  if (typeof source === "string") copyFileSync(source, p);
  else writeFileSync(p, source);
  utimesSync(p, mtime, mtime);
  return p;
}

function fill(sessions: string): { older: string; newer: string; invalid: string; elsewhere: string } {
  const folder = join(sessions, cwdFolderName(project));
  const older = place(folder, "2025-03-01T10-00-00-000Z_images.jsonl", ctxFixture("images"), 1_700_000_000);
  const newer = place(folder, "2025-03-02T10-00-00-000Z_roles.jsonl", ctxFixture("roles"), 1_700_000_100);
  // Newest of all, but not a session: pi skips it.
  const invalid = place(folder, "2025-03-03T10-00-00-000Z_broken.jsonl", Buffer.from('{"type":"message","id":"x"}\n'), 1_700_000_200);
  const elsewhere = place(
    join(sessions, cwdFolderName(other)),
    "2025-03-04T10-00-00-000Z_orphan.jsonl",
    ctxFixture("orphan-tool-result"),
    1_700_000_300,
  );
  for (const p of [older, newer, invalid, elsewhere]) prints.push(fingerprint(p));
  return { older, newer, invalid, elsewhere };
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "pisess-context-")));
  project = join(base, "work", "app");
  other = join(base, "work", "other");
  mkdirSync(project, { recursive: true });
  mkdirSync(other, { recursive: true });
});

afterAll(() => {
  for (const p of prints) expect(fingerprint(p.path), p.path).toEqual(p);
  rmSync(base, { recursive: true, force: true });
});

const fileOf = (stdout: string): string => (JSON.parse(stdout) as { file: string }).file;

describe("pisess context without FILE: the most recent session of the current directory, as pi finds it", () => {
  it("PI_CODING_AGENT_DIR: newest valid file by mtime, an invalid newer one skipped", async () => {
    const agent = join(base, "agent1");
    const { newer } = fill(join(agent, "sessions"));
    const env = { PI_CODING_AGENT_DIR: agent, PI_CODING_AGENT_SESSION_DIR: undefined, HOME: base };
    const r = spawnCli(["context", "--json"], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    expect(fileOf(r.stdout)).toBe(newer);
    // The text header names it too.
    expect((await runCli(["context"], { cwd: project, env })).stdout).toContain(`file:       ${newer}`);
  });

  // The rest in process: the report's choice (resolveSessionFile), which the command passes its cwd and env.
  it("sessionDir in settings.json (relative to the agent dir)", async () => {
    const agent = join(base, "agent2");
    mkdirSync(agent, { recursive: true });
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ sessionDir: "my-sessions" }));
    const { newer } = fill(join(agent, "my-sessions"));
    expect(await resolveSessionFile({ cwd: project, env: { PI_CODING_AGENT_DIR: agent, HOME: base } })).toBe(newer);
  });

  it("PI_CODING_AGENT_SESSION_DIR wins over settings.json", async () => {
    const agent = join(base, "agent3");
    mkdirSync(agent, { recursive: true });
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ sessionDir: "unused" }));
    const sessions = join(base, "elsewhere-sessions");
    const { newer } = fill(sessions);
    const env = { PI_CODING_AGENT_DIR: agent, PI_CODING_AGENT_SESSION_DIR: sessions, HOME: base };
    const pick = (o: { session?: string; allProjects?: boolean } = {}) => resolveSessionFile({ ...o, cwd: project, env });
    expect(await pick()).toBe(newer);

    // --session picks by id prefix in this project's folder only, unless --all-projects.
    expect(await pick({ session: IMAGES_ID })).toContain("_images.jsonl");
    await expect(pick({ session: "01950000" })).rejects.toThrow(new RegExp(`ambiguous.*${ROLES_ID}`));
    await expect(pick({ session: ORPHAN_ID })).rejects.toThrow(/--all-projects/);
    expect(await pick({ session: ORPHAN_ID, allProjects: true })).toContain("_orphan.jsonl");
    // Through the CLI: --session reaches the report, and FILE with --session is refused.
    const all = await runCli(["context", "--session", ORPHAN_ID, "--all-projects", "--json"], { cwd: project, env });
    expect(all.code, all.stderr).toBe(0);
    expect(fileOf(all.stdout)).toContain("_orphan.jsonl");
    expect((await runCli(["context", ctxFixture("images"), "--session", "0195"], { cwd: project, env })).code).toBe(2);
  });

  it("no session for this directory: exit 2 with a clear message", async () => {
    const agent = join(base, "agent-empty");
    mkdirSync(agent, { recursive: true });
    await expect(resolveSessionFile({ cwd: project, env: { PI_CODING_AGENT_DIR: agent, HOME: base } })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining("no session for"),
    });
  });
});

describe("pisess context (the CLI)", () => {
  it("reads stdin with -", async () => {
    const input = readFileSync(ctxFixture("images"));
    const r = await runCli(["context", "-", "--json"], { input });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { file: string; messages: unknown[]; entries: { line: number; type: string; id: string }[] };
    expect(doc.file).toBe("-");
    expect(doc.entries.map((e) => e.line)).toEqual([2, 3, 4, 5]);
  });

  it("a parent cycle: exit 1 naming the cycle, nothing on stdout, the file untouched", async () => {
    const p = ctxFixture("cycle");
    const before = fingerprint(p);
    const r = await runCli(["context", p, "--leaf", "@5"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/:3: error parent-cycle: parent cycle through lines 3, 4;/);
    expect((await contextJsonOut(p, { leaf: "@2" })).code).toBe(0);
    expect(fingerprint(p)).toEqual(before);
  });

  it("message entries without message: context still built, each reported on stderr with its line", async () => {
    const p = ctxFixture("message-without-message");
    const before = fingerprint(p);
    const r = await runCli(["context", p, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { messages: { role: string }[]; entries: { line: number }[] };
    expect(doc.entries.map((e) => e.line)).toEqual([2, 3, 5, 7]);
    expect(r.stderr).toMatch(/message-without-message\.jsonl:4: error message-missing/);
    expect(r.stderr).toMatch(/message-without-message\.jsonl:6: error message-missing/);
    expect(fingerprint(p)).toEqual(before);
  });

  // In process, with the command's renderer: context-corpus.test.ts runs the CLI with --json, --llm --json and --llm --ndjson.
  it("--ndjson: one message per line; --llm maps entries to the converted messages", async () => {
    const p = ctxFixture("roles");
    const nd = (await contextJsonOut(p, { ndjson: true })).stdout.trim().split("\n");
    expect(nd).toHaveLength(11);
    const llm = JSON.parse((await contextJsonOut(p, { llm: true })).stdout) as {
      messages: { role: string }[];
      entries: { line: number; type: string }[];
    };
    expect(llm.messages).toHaveLength(9);
    // The !! command (line 5) and the unknown role (line 15) are not sent.
    expect(llm.entries.map((e) => e.line)).not.toContain(5);
    expect(llm.entries.map((e) => e.line)).not.toContain(15);
    expect(new Set(llm.messages.map((m) => m.role))).toEqual(new Set(["user", "assistant", "toolResult"]));
  });

  it("text and Markdown on the terminal path: flags work, colour off by NO_COLOR", async () => {
    const p = ctxFixture("compaction-kept");
    const t = await runCli(["context", p, "--no-thinking"]);
    expect(t.code).toBe(0);
    expect(t.stdout).not.toContain("Step three touches");
    expect(t.stdout).not.toContain("\u001b[");
    const m = await runCli(["context", p, "--format", "markdown", "--leaf", "label:none"]);
    expect(m.code).toBe(2);
    const md = await runCli(["context", p, "--format", "markdown"]);
    expect(md.stdout.startsWith("# Context at line 10")).toBe(true);
    expect((await runCli(["context", p, "--max-output", "-1"])).code).toBe(2);
    expect((await runCli(["context", p, "--json", "--ndjson"])).code).toBe(2);
  });
});

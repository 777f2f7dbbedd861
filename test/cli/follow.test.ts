import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, fixture, runCli } from "../support/helpers.js";
import { treeOut } from "../support/inproc.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-follow-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

/** What a follow run gets on top of the test's environment: polling every 20 ms. */
const FOLLOW_ENV = { NO_COLOR: "1", PISESS_FOLLOW_POLL_MS: "20" };

function run(cmd: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Proc {
  const child = spawn(process.execPath, cmd, {
    cwd: opts.cwd ?? dir,
    env: { ...process.env, ...FOLLOW_ENV, ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (b: Buffer) => {
    out += b.toString("utf8");
  });
  child.stderr?.on("data", (b: Buffer) => {
    err += b.toString("utf8");
  });
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function until(what: string, cond: () => boolean, ms = 15000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const count = (s: string) => s.split("\n").filter(Boolean).length;

/** Waits until follow has read the file as it was when it started (it says so on stderr): appends count as new. */
async function opened(p: Proc, file: string): Promise<void> {
  await until(`follow to open ${file}`, () => p.stderr().includes(`following ${file} (`));
}

/** tree --json of a file: every entry, in file order. */
async function fileEntries(file: string): Promise<{ id: string | null; line: number }[]> {
  return (JSON.parse((await treeOut(file, { output: "json" })).stdout) as { entries: { id: string | null; line: number }[] }).entries;
}

describe("follow --ndjson while a writer process appends, truncates and replaces the file", () => {
  it("prints every entry exactly once, in order, never a partial one, as tree --ndjson shows it", async () => {
    const d = join(dir, "writer");
    mkdirSync(d);
    const file = join(d, "s.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ type: "session", version: 3, id: "0195aaaa-0000-7000-8000-000000000001", timestamp: "2026-03-01T10:00:00.000Z", cwd: "/w" })}\n`,
    );
    const follow = run([BIN, "follow", file, "--ndjson", "--from-start", "--until-idle", "1"]);
    // Let follow open the file before the writer starts (it must see the first content to see the truncation).
    await opened(follow, file);
    const writer = run([fixture("follow", "writer.mjs"), file, d]);
    const states: string[] = [];
    for (const n of [1, 2, 3]) {
      await until(`writer phase ${n}`, () => writer.stdout().includes(`${n}\n`));
      const state = join(d, `state${n}.jsonl`);
      states.push(state);
      const want = (await Promise.all(states.map(fileEntries))).reduce((a, e) => a + e.length, 0);
      await until(`follow to catch up with phase ${n} (${want} entries)`, () => count(follow.stdout()) >= want);
      if (n < 3) writer.child.stdin?.write("go\n");
    }
    expect(await writer.exit).toBe(0);
    expect(await follow.exit, follow.stderr()).toBe(0);

    const printed = follow
      .stdout()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The expected sequence: each state's entries in file order (follow starts each new content from its start).
    const expected: { state: string; id: string | null; line: number }[] = [];
    for (const s of states) for (const e of await fileEntries(s)) expected.push({ state: s, id: e.id, line: e.line });
    expect(printed.map((o) => [o.id, o.line])).toEqual(expected.map((e) => [e.id, e.line]));
    // Whole entries, as in the file: never a half line, and the UTF-8 split between writes decoded right.
    for (const [i, o] of printed.entries()) {
      const e = expected[i] as (typeof expected)[number];
      const text = readFileSync(e.state, "utf8").split("\n")[e.line - 1] as string;
      expect(o.entry).toEqual(JSON.parse(text));
    }
    expect(JSON.stringify(printed)).toContain("héllo 🙂 wörld");
    // The fields tree --ndjson has, for the entries it shows (depth and parent as of the final file).
    for (const s of states) {
      const rows = (await treeOut(s, { output: "ndjson", filter: "all" })).stdout.split("\n").filter(Boolean);
      expect(rows.length).toBeGreaterThan(1);
      const mine = printed.filter((_, k) => (expected[k] as (typeof expected)[number]).state === s);
      for (const r of rows.map((x) => JSON.parse(x) as Record<string, unknown>)) {
        const o = mine.find((m) => m.line === r.line) as Record<string, unknown>;
        const pick = (x: Record<string, unknown>) => [x.id, x.line, x.parentId, x.depth, x.type, x.role, x.label];
        expect(pick(o)).toEqual(pick(r));
      }
    }
    expect(follow.stderr()).toMatch(/truncated or rewritten; following it from its start/);
    expect(follow.stderr()).toMatch(/replaced; following it from its start/);
  }, 60_000);
});

describe("follow (text)", () => {
  const head = readFileSync(fixture("tree", "branched.jsonl"), "utf8").split("\n").slice(0, 6).join("\n");

  it("starts at the end; announces branches, compactions, context edits and branch summaries; exits after --until-idle", async () => {
    const file = join(dir, "text.jsonl");
    writeFileSync(file, `${head}\n`);
    const follow = run([BIN, "follow", file, "--until-idle", "0.6"]);
    await opened(follow, file);
    const add = (o: object) => appendFileSync(file, `${JSON.stringify(o)}\n`);
    add({
      type: "message",
      id: "b0000006",
      parentId: "a0000001",
      timestamp: "2025-01-01T10:05:00.000Z",
      message: { role: "user", content: "another way" },
    });
    add({
      type: "compaction",
      id: "c0000007",
      parentId: "b0000006",
      timestamp: "2025-01-01T10:06:00.000Z",
      summary: "so far",
      firstKeptEntryId: "a0000003",
      tokensBefore: 45200,
    });
    add({
      type: "context_edit",
      id: "e0000008",
      parentId: "c0000007",
      timestamp: "2025-01-01T10:07:00.000Z",
      targetId: "b0000006",
      replacement: null,
    });
    add({
      type: "branch_summary",
      id: "s0000009",
      parentId: "a0000005",
      timestamp: "2025-01-01T10:08:00.000Z",
      fromId: "e0000008",
      summary: "tried another way",
    });
    expect(await follow.exit, follow.stderr()).toBe(0);
    expect(follow.stdout()).toBe(
      [
        "↳ /tree jump: branch from line 2 (a0000001)",
        "• b0000006 user: another way",
        "• c0000007 [compaction: 45.2k tokens] so far",
        // a0000003 is not on the path to the compaction (its parent b0000006 hangs off a0000001): as `context`
        // says, nothing is kept.
        "  ⤷ compaction: 45.2k tokens before; nothing kept",
        "• e0000008 [context omit: b0000006]",
        "  ⤷ context edit: removes the message at line 7 (b0000006)",
        "↳ /tree jump: branch from line 6 (a0000005)",
        "• s0000009 [branch summary] tried another way",
        "  ⤷ branch summary of the branch left at line 9 (e0000008)",
        "",
      ].join("\n"),
    );
  }, 30_000);

  // A file that does not change while it is followed: the CLI in process (the runs above and below, which change
  // the file while a follow process reads it, spawn the binary).
  it("the entry lines are the lines tree prints for them", async () => {
    const file = join(dir, "replay.jsonl");
    writeFileSync(file, readFileSync(fixture("tree", "branched.jsonl")));
    const follow = await runCli(["follow", file, "--from-start", "--until-idle", "0.3"], { env: FOLLOW_ENV });
    expect(follow.code).toBe(0);
    const mine = follow.stdout
      .split("\n")
      .filter((l) => l.startsWith("• "))
      .map((l) => l.slice(2));
    const tree = (await treeOut(file, { filter: "all" })).stdout
      .split("\n")
      .filter(Boolean)
      .map((l) =>
        l
          .replace(/^[\s│├└─]*[◆•]?\s*/, "")
          .replace("[leaf] ", "")
          .replace("[parser-done] ", ""),
      );
    expect(mine).toHaveLength(10);
    expect(tree.length).toBeGreaterThan(5);
    for (const l of tree) expect(mine).toContain(l);
  }, 30_000);

  it("reports a line that never completes when it ends", async () => {
    const file = join(dir, "partial.jsonl");
    writeFileSync(file, `${head}\n{"type":"message","id":"x`);
    const follow = await runCli(["follow", file, "--until-idle", "0.3"], { env: FOLLOW_ENV });
    expect(follow.code).toBe(0);
    expect(follow.stdout).toBe("");
    expect(follow.stderr).toMatch(/partial\.jsonl:7: info incomplete-last-line: .*\(25 bytes\)/);
  }, 30_000);

  it("exits 0 on Ctrl-C (SIGINT)", async () => {
    const file = join(dir, "sigint.jsonl");
    writeFileSync(file, `${head}\n`);
    const follow = run([BIN, "follow", file]);
    await opened(follow, file);
    follow.child.kill("SIGINT");
    expect(await follow.exit).toBe(0);
    expect(follow.stderr()).toBe(`pisess follow: following ${file} (5 entries before, not shown)\n`);
  }, 30_000);

  it("exits 2 when the file is deleted", async () => {
    const file = join(dir, "deleted.jsonl");
    writeFileSync(file, `${head}\n`);
    const follow = run([BIN, "follow", file]);
    await opened(follow, file);
    unlinkSync(file);
    expect(await follow.exit).toBe(2);
    expect(follow.stderr()).toMatch(/deleted\.jsonl: the file was deleted/);
  }, 30_000);

  it("a missing file: one line, exit 2", async () => {
    const follow = await runCli(["follow", join(dir, "nothere.jsonl")], { env: FOLLOW_ENV });
    expect(follow.code).toBe(2);
    expect(follow.stderr).toMatch(/nothere\.jsonl: no such file\n$/);
  });
});

describe("follow without FILE", () => {
  it("follows the newest session of the directory, and with --newest switches to a newer one (said on stderr)", async () => {
    const cwd = join(dir, "project");
    mkdirSync(cwd);
    const root = join(dir, "sessions");
    const folder = join(root, `--${cwd.slice(1).replace(/[/\\:]/g, "-")}--`);
    mkdirSync(folder, { recursive: true });
    const env = { PI_CODING_AGENT_DIR: join(dir, "agent"), PI_CODING_AGENT_SESSION_DIR: root };
    const hdr = (id: string) => `${JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-03-01T10:00:00.000Z", cwd })}\n`;
    const msg = (id: string, text: string) =>
      `${JSON.stringify({ type: "message", id, parentId: null, timestamp: "2026-03-01T10:01:00.000Z", message: { role: "user", content: text } })}\n`;
    writeFileSync(join(folder, "a.jsonl"), hdr("0195aaaa-0000-7000-8000-00000000000a"));
    const follow = run([BIN, "follow", "--newest", "--until-idle", "1"], { cwd, env });
    await opened(follow, join(folder, "a.jsonl"));
    appendFileSync(join(folder, "a.jsonl"), msg("aaaa0001", "in a"));
    await until("the entry of a", () => follow.stdout().includes("in a"));
    writeFileSync(join(folder, "b.jsonl"), hdr("0195bbbb-0000-7000-8000-00000000000b") + msg("bbbb0001", "in b"));
    expect(await follow.exit, follow.stderr()).toBe(0);
    expect(follow.stdout()).toBe("• aaaa0001 user: in a\n• bbbb0001 user: in b\n");
    expect(follow.stderr()).toMatch(/pi started a newer session; following .*b\.jsonl/);
  }, 30_000);
});

describe("follow (CLI): findings on stderr", () => {
  it("a malformed appended line: one coded line on stderr, the entries after it on stdout", async () => {
    const file = join(dir, "cli-problems.jsonl");
    const at = (s: number) => `2026-03-01T10:00:0${s}.000Z`;
    const user = (id: string, parentId: string | null, text: string, s: number) =>
      JSON.stringify({ type: "message", id, parentId, timestamp: at(s), message: { role: "user", content: [{ type: "text", text }] } });
    const head = JSON.stringify({ type: "session", version: 3, id: "0195aaaa-0000-7000-8000-000000000007", timestamp: at(0), cwd: "/w" });
    writeFileSync(file, `${head}\n${user("a0000001", null, "hi", 1)}\n`);
    const p = run([BIN, "follow", file, "--until-idle", "0.5"]);
    await until("the start line", () => p.stderr().includes("following"));
    appendFileSync(file, `{"type":"message",\n${user("a0000002", "a0000001", "after the bad line", 2)}\n`);
    expect(await p.exit).toBe(0);
    expect(p.stdout()).toBe("• a0000002 user: after the bad line\n");
    expect(p.stderr()).toMatch(
      new RegExp(`^pisess follow: following .*\\n${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: error malformed-json: `, "m"),
    );
  }, 30_000);
});

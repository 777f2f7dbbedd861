import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, spawnCli } from "../support/helpers.js";
import { tooLargeForParquet, turnUsage } from "../support/small-session.js";

/**
 * Issue 32.4: `sql` and `tables` stage copies of session data in temporary folders; a run ended by SIGINT or
 * SIGTERM left them behind, and an interrupted `tables --out D` left D half written. Runs of the built binary with
 * their own TMPDIR, signalled once their temporary folder exists.
 */

let base = "";
let fleet = "";
const usage = turnUsage({ total: 0.01 });

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "pisess-sql-cleanup-"));
  fleet = join(base, "fleet");
  mkdirSync(fleet);
  // 100 sessions of 600 entries: a few seconds of work, on worker threads (64 files and more).
  for (let f = 0; f < 100; f++) {
    const lines = [JSON.stringify({ type: "session", version: 3, id: `s${f}`, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" })];
    let parent: string | null = null;
    for (let i = 0; i < 300; i++) {
      const user = { role: "user", content: "q".repeat(200), timestamp: 1 };
      lines.push(JSON.stringify({ type: "message", id: `u${i}`, parentId: parent, timestamp: "2026-01-01T00:00:01.000Z", message: user }));
      const call = { type: "toolCall", id: `c${i}`, name: "bash", arguments: { command: "x".repeat(300) } };
      const answer = { role: "assistant", content: [call], provider: "p", model: "m", usage, stopReason: "toolUse", timestamp: 1 };
      lines.push(
        JSON.stringify({ type: "message", id: `a${i}`, parentId: `u${i}`, timestamp: "2026-01-01T00:00:02.000Z", message: answer }),
      );
      parent = `a${i}`;
    }
    writeFileSync(join(fleet, `f${f}.jsonl`), `${lines.join("\n")}\n`);
  }
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };

/**
 * Runs the binary with TMPDIR `tmp` and sends `signal` once a folder whose name starts with `prefix` appears in
 * `watch`. Resolves with how the process ended and whether the signal was sent.
 */
function interrupted(args: string[], tmp: string, watch: string, prefix: string, signal: NodeJS.Signals) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; sent: boolean; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env, TMPDIR: tmp, NO_COLOR: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    let sent = false;
    const poll = setInterval(() => {
      if (readdirSync(watch).some((n) => n.startsWith(prefix))) {
        clearInterval(poll);
        // A moment into the writing.
        setTimeout(() => {
          sent = child.kill(signal);
        }, 150);
      }
    }, 20);
    child.on("exit", (code, sig) => {
      clearInterval(poll);
      resolve({ code, signal: sig, sent, stderr });
    });
  });
}

describe("temporary data and --out after a signal (32.4)", () => {
  it("sql, SIGINT: its staging folder is gone", async () => {
    const tmp = mkdtempSync(join(base, "tmp-"));
    const r = await interrupted(["sql", "SELECT count(*) FROM entries", fleet], tmp, tmp, "pisess-sql-", "SIGINT");
    expect(r.sent).toBe(true);
    expect(r.signal).toBe("SIGINT");
    expect(readdirSync(tmp)).toEqual([]);
  }, 60_000);

  for (const [format, signal] of [
    ["parquet", "SIGTERM"],
    ["ndjson", "SIGINT"],
  ] as const)
    it(`tables --format ${format}, ${signal}: no --out, nothing beside it, nothing in TMPDIR`, async () => {
      const tmp = mkdtempSync(join(base, "tmp-"));
      const parent = mkdtempSync(join(base, "parent-"));
      const out = join(parent, "out");
      const r = await interrupted(["tables", fleet, "--out", out, "--format", format], tmp, parent, ".out.pisess-", signal);
      expect(r.sent).toBe(true);
      expect(r.signal).toBe(signal);
      expect(readdirSync(parent)).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    }, 60_000);

  it("tables into an existing empty folder, SIGTERM: the folder is left as it was (empty)", async () => {
    const tmp = mkdtempSync(join(base, "tmp-"));
    const parent = mkdtempSync(join(base, "parent-"));
    const out = join(parent, "out");
    mkdirSync(out);
    const r = await interrupted(["tables", fleet, "--out", out, "--format", "ndjson"], tmp, parent, ".out.pisess-", "SIGTERM");
    expect(r.sent).toBe(true);
    expect(readdirSync(parent)).toEqual(["out"]);
    expect(readdirSync(out)).toEqual([]);
  }, 60_000);
});

describe("tables --out (32.4)", () => {
  const small = () => join(fleet, "f0.jsonl");

  it("writes into a new folder beside which nothing is left", () => {
    const parent = mkdtempSync(join(base, "parent-"));
    const tmp = mkdtempSync(join(base, "tmp-"));
    const r = spawnCli(["tables", small(), "--out", join(parent, "t"), "--format", "parquet"], { env: { ...env, TMPDIR: tmp } });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(readdirSync(parent)).toEqual(["t"]);
    // The mode of any new folder (the umask's), not a temporary folder's 0700.
    mkdirSync(join(parent, "plain"));
    expect(statSync(join(parent, "t")).mode).toBe(statSync(join(parent, "plain")).mode);
    expect(readdirSync(join(parent, "t")).sort()).toEqual([
      "entries.parquet",
      "leaves.parquet",
      "messages.parquet",
      "sessions.parquet",
      "tool_calls.parquet",
      "usage.parquet",
    ]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("refuses a symbolic link, even to an empty folder, and writes nothing", () => {
    const parent = mkdtempSync(join(base, "parent-"));
    mkdirSync(join(parent, "empty"));
    symlinkSync(join(parent, "empty"), join(parent, "link"));
    const r = spawnCli(["tables", small(), "--out", join(parent, "link"), "--format", "ndjson"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("symbolic link");
    expect(readdirSync(parent).sort()).toEqual(["empty", "link"]);
    expect(readdirSync(join(parent, "empty"))).toEqual([]);
  });

  it("a run that fails partway (a number too large for its column) leaves no --out, nothing beside it, nothing in TMPDIR", () => {
    const parent = mkdtempSync(join(base, "parent-"));
    const tmp = mkdtempSync(join(base, "tmp-"));
    const big = join(base, "big.jsonl");
    writeFileSync(big, tooLargeForParquet());
    const r = spawnCli(["tables", big, "--out", join(parent, "t"), "--format", "parquet"], { env: { ...env, TMPDIR: tmp } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/(messages|leaves)\.parquet/);
    expect(readdirSync(parent)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

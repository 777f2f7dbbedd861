import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ROOT } from "../support/helpers.js";

/**
 * Issue 32 point 7: nothing that is not a regular file is ever opened for a blocking read. A FIFO would make the
 * open or the read wait for a writer forever; each run here must end on its own, well inside its time limit.
 */
const LIMIT_MS = 15_000;
let tmp: string;
const T = "2025-01-01T09:00:00.000Z";
const SESSION = `${[
  { type: "session", version: 3, id: "0194aaaa-0000-7000-8000-000000000001", timestamp: T, cwd: "/home/dev/app" },
  { type: "message", id: "a1", parentId: null, timestamp: T, message: { role: "user", content: "hello fifo", timestamp: 1 } },
]
  .map((o) => JSON.stringify(o))
  .join("\n")}\n`;

function mkfifo(p: string): void {
  const r = spawnSync("mkfifo", [p]);
  if (r.status !== 0) throw new Error(`mkfifo ${p} failed`);
}

let env: Record<string, string>;

function run(
  args: string[],
  extraEnv: Record<string, string> = {},
): { code: number | null; stderr: string; stdout: string; signal: string | null } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", ...env, ...extraEnv },
    timeout: LIMIT_MS,
    // The old follow ignored SIGTERM (spawnSync's default signal), and spawnSync waits for the exit.
    killSignal: "SIGKILL",
    encoding: "utf8",
    input: "",
  });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout, signal: r.signal };
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "pisess-fifo-"));
  mkfifo(join(tmp, "pipe.jsonl"));
  mkdirSync(join(tmp, "folder"));
  writeFileSync(join(tmp, "folder", "ok.jsonl"), SESSION);
  symlinkSync(join(tmp, "pipe.jsonl"), join(tmp, "folder", "linked.jsonl"));
  mkfifo(join(tmp, "folder", "direct.jsonl"));
  env = { HOME: join(tmp, "home"), PI_CODING_AGENT_DIR: join(tmp, "agent") };
  mkdirSync(join(tmp, "agent", "sessions", "--home-dev-app--"), { recursive: true });
  writeFileSync(join(tmp, "agent", "sessions", "--home-dev-app--", "s.jsonl"), SESSION);
  mkfifo(join(tmp, "agent", "settings.json"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("a FIFO named as the file: one line, exit 2, no wait", () => {
  for (const cmd of [
    "tree",
    "info",
    "validate",
    "context",
    "bloat",
    "path",
    "leaves",
    "labels",
    "compactions",
    "lineage",
    "export",
    "show",
    "diff",
  ]) {
    it(cmd, () => {
      const fifo = join(tmp, "pipe.jsonl");
      const extra = cmd === "show" ? ["@1"] : cmd === "diff" ? [fifo] : cmd === "export" ? ["--format", "markdown"] : [];
      const r = run([cmd, fifo, ...extra]);
      expect(r.signal, "timed out").toBeNull();
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/pipe\.jsonl: not a regular file \(a FIFO\)/);
      if (cmd !== "validate") expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    });
  }
});

describe("a FIFO (linked or not) named *.jsonl in a folder: a line for it, the rest read", () => {
  for (const [cmd, rest] of [
    ["validate", []],
    ["ls", []],
    ["grep", ["hello"]],
    ["usage", []],
  ] as const) {
    it(cmd, () => {
      const r = run(cmd === "grep" ? [cmd, ...rest, join(tmp, "folder")] : [cmd, join(tmp, "folder"), ...rest]);
      expect(r.signal, "timed out").toBeNull();
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/linked\.jsonl: not a regular file \(a FIFO\)/);
      expect(r.stderr).toMatch(/direct\.jsonl: not a regular file \(a FIFO\)/);
    });
  }
  it("grep still finds the match in the regular file", () => {
    const r = run(["grep", "hello fifo", join(tmp, "folder")]);
    expect(r.stdout).toMatch(/ok\.jsonl/);
  });
});

describe("settings.json a FIFO: read as an unreadable settings file (the default sessions folder), no wait", () => {
  it("context without FILE", () => {
    const r = run(["context"], {});
    expect(r.signal, "timed out").toBeNull();
    // cwd of the run is ROOT, whose folder has no session: the point is that it answers at all.
    expect([0, 2]).toContain(r.code);
  });
});

describe("follow is always stoppable", () => {
  it("follow FIFO --until-idle 2: exit 2 at once", () => {
    const r = run(["follow", join(tmp, "pipe.jsonl"), "--until-idle", "2"]);
    expect(r.signal, "timed out").toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a regular file \(a FIFO\)/);
  });
  it("a followed file replaced by a FIFO: exit 2 with its reason", async () => {
    const f = join(tmp, "live.jsonl");
    writeFileSync(f, SESSION);
    const child = spawn(process.execPath, [BIN, "follow", f, "--until-idle", "30"], {
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await new Promise((r) => setTimeout(r, 1500));
    const fifo = join(tmp, "live-fifo");
    mkfifo(fifo);
    renameSync(fifo, f);
    const timer = setTimeout(() => child.kill("SIGKILL"), LIMIT_MS);
    const code = await exited;
    clearTimeout(timer);
    expect(code, stderr).toBe(2);
    expect(stderr).toMatch(/not a regular file \(a FIFO\)/);
  }, 30_000);
});

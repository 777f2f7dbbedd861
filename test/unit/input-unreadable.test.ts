import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { discoverHook } from "../../src/io/discover.js";
import { runCli } from "../support/helpers.js";
import { NO_PI_ENV, oneTurnSession } from "../support/small-session.js";

/**
 * Issue 32 point 9: an unreadable folder below a scanned one is reported by every command that scans folders (a
 * stderr line, exit 2), never skipped silently; --allow-unreadable keeps the line and the exit status of the rest.
 * The tests run as root, which no mode keeps out of a folder: the folder's listing fails through discovery's one
 * readdir (discoverHook), as EACCES does for a user.
 */
const env = NO_PI_ENV;
const session = (id: string): string => oneTurnSession(id, { user: "needle" });

let tmp: string;
let root: string;
let locked: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "pisess-unreadable-"));
  root = join(tmp, "sessions");
  locked = join(root, "locked");
  mkdirSync(locked, { recursive: true });
  writeFileSync(join(root, "ok.jsonl"), session("0194aaaa-0000-7000-8000-000000000001"));
  writeFileSync(join(locked, "hidden.jsonl"), session("0194aaaa-0000-7000-8000-000000000002"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  discoverHook.readdir = null;
});

function lock(): void {
  discoverHook.readdir = async (d) => {
    if (d === locked) throw Object.assign(new Error(`EACCES: permission denied, scandir '${d}'`), { code: "EACCES" });
    return readdir(d, { withFileTypes: true });
  };
}

const COMMANDS: [string, string[], number][] = [
  ["ls", ["ls", "<root>"], 0],
  ["grep", ["grep", "needle", "<root>"], 0],
  ["usage", ["usage", "<root>"], 0],
  ["tables", ["tables", "<root>", "--out", "<out>", "--format", "ndjson"], 0],
  ["sql", ["sql", "select count(*) as n from sessions", "<root>"], 0],
  ["validate", ["validate", "<root>"], 0],
];

let outs = 0;
const argv = (a: string[]) => a.map((x) => (x === "<root>" ? root : x === "<out>" ? join(tmp, `out${outs++}`) : x));

describe("an unreadable subfolder: a stderr line naming it and exit 2, for every folder scan", () => {
  for (const [name, args] of COMMANDS) {
    it(name, async () => {
      lock();
      const r = await runCli(argv(args), { env, cwd: tmp });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${locked}: permission denied`);
    });
  }
  it("usage does not pass the undercount off as the total: exit 2 with the readable file's cost", async () => {
    lock();
    const r = await runCli(["usage", root, "--json"], { env, cwd: tmp });
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stdout) as { totals: { cost: number } }).totals.cost).toBe(3);
  });
});

describe("--allow-unreadable: the same line, the exit status of what could be read", () => {
  for (const [name, args, code] of COMMANDS) {
    it(name, async () => {
      lock();
      const r = await runCli([...argv(args), "--allow-unreadable"], { env, cwd: tmp });
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toContain(`${locked}: permission denied`);
    });
  }
});

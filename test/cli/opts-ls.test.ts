import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, fixture, piSessionFolder, ROOT, runCli } from "../support/helpers.js";

// Issue 26, item 11: `ls` ignored the terminal width (rows of 250 columns in a 120-column terminal). It fits the
// table as tree fits its lines: the file, fork-of, title and cwd columns give way (the file keeping its end), and
// what still does not fit is cut at the width. With no sessions for the current directory, it says how to list all.
const root = mkdtempSync(join(tmpdir(), "pisess-opts-ls-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const sessions = join(root, "sessions");
const here = join(root, "proj");
const mine = join(sessions, piSessionFolder(here));
mkdirSync(mine, { recursive: true });
mkdirSync(here);
const LONG = `2026-01-01T10-00-00-000Z_0194bbbb-0000-7000-8000-000000000001${"-x".repeat(60)}-end.jsonl`;
copyFileSync(fixture("opts", "labels.jsonl"), join(mine, LONG));
copyFileSync(fixture("tree", "branched.jsonl"), join(mine, "short.jsonl"));
const env = { PI_CODING_AGENT_SESSION_DIR: sessions, PI_CODING_AGENT_DIR: join(root, "agent") };

/** Columns of a line of plain text (the only wide character here is "…", one column). */
const cols = (l: string): number => [...l].length;

function onTerminal(args: string[], columns: number): { code: number; stdout: string } {
  const r = spawnSync(process.execPath, ["--import", join(ROOT, "test", "support", "fake-tty.mjs"), BIN, ...args], {
    cwd: here,
    env: { ...process.env, ...env, NO_COLOR: "1", PISESS_TEST_COLUMNS: String(columns) },
    encoding: "utf8",
  });
  return { code: r.status ?? -1, stdout: r.stdout };
}

describe("ls fits the terminal", () => {
  it("a 120-column terminal: every line fits, the file column keeps the end of the name", () => {
    const r = onTerminal(["ls"], 120);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(cols(l)).toBeLessThanOrEqual(120);
    expect(lines.some((l) => cols(l) === 120)).toBe(true);
    expect(r.stdout).toMatch(/…[-x]*-end\.jsonl\n/);
    expect(r.stdout).toContain("Fix the parser");
  });

  it("--width N does the same off a terminal; --width 0 and a pipe: no limit (the whole name)", async () => {
    const fit = await runCli(["ls", "--width", "100"], { cwd: here, env });
    for (const l of fit.stdout.trimEnd().split("\n")) expect(cols(l)).toBeLessThanOrEqual(100);
    const whole = await runCli(["ls"], { cwd: here, env });
    expect(whole.stdout).toContain(LONG);
    expect((await runCli(["ls", "--width", "0"], { cwd: here, env })).stdout).toBe(whole.stdout);
    expect((await runCli(["ls", "--width="], { cwd: here, env })).code).toBe(2);
  });

  it("a terminal wide enough: the table as it always was", () => {
    const wide = onTerminal(["ls"], 400);
    expect(wide.stdout).toContain(LONG);
  });
});

describe("ls with no sessions for the current directory", () => {
  it("no folder for it: the note says how to list every project", async () => {
    const elsewhere = join(root, "other");
    const r = await runCli(["ls"], { cwd: elsewhere, env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `pisess: no sessions folder ${join(sessions, piSessionFolder(elsewhere))} for ${elsewhere}; pisess ls -a lists every project\n`,
    );
  });

  it("an empty folder: the same", async () => {
    const empty = join(root, "empty");
    mkdirSync(join(sessions, piSessionFolder(empty)));
    const r = await runCli(["ls"], { cwd: empty, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `pisess: no sessions for ${empty} in ${join(sessions, piSessionFolder(empty))}; pisess ls -a lists every project\n`,
    );
  });
});

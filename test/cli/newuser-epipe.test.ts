import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openFile } from "../../src/reports/open.js";
import { validateReport } from "../../src/reports/validate.js";
import { BIN, ROOT, runCli } from "../support/helpers.js";

// Issue "What a new user hit", item 3: a reader that leaves early (`| head -1`) neither loses the exit status nor
// lets the run go on computing output nobody reads.

const hasBash = spawnSync("bash", ["-c", "true"]).status === 0;

/** Runs `pisess ARGS | head -1` in bash: pisess's own exit status (PIPESTATUS) and its stderr. */
function throughHead(args: string): { code: number; stderr: string } {
  const r = spawnSync("bash", ["-c", `"${process.execPath}" "${BIN}" ${args} 2>&3 | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    encoding: "utf8",
    // fd 3: pisess's stderr, apart from the status bash prints on stdout.
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  return { code: Number(r.stdout.trim()), stderr: String(r.output[3] ?? "") };
}

/**
 * A session whose `diff --leaves` writes close to a megabyte before its last comparison, which meets a parent cycle:
 * a root, `branches` branches of 20 messages, then two entries in a cycle with a leaf below them, then the active
 * leaf on a short trunk. The cycle is reported on stderr once every comparison is made, so a run that has stopped
 * at the closed pipe never reports it.
 */
function manyLeaves(branches: number): string {
  let t = Date.UTC(2025, 0, 1, 10);
  const msg = (id: string, parentId: string | null, role: string, text: string): string => {
    t += 1000;
    return JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: new Date(t).toISOString(),
      message: { role, content: role === "user" ? text : [{ type: "text", text }], timestamp: t },
    });
  };
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "0194dddd-0000-7000-8000-000000000001",
      timestamp: "2025-01-01T10:00:00.000Z",
      cwd: "/w",
    }),
  ];
  lines.push(msg("r0", null, "user", "start"));
  let p = "r0";
  for (let i = 0; i < 20; i++) {
    lines.push(msg(`t${i}`, p, i % 2 ? "assistant" : "user", `trunk step ${i}`));
    p = `t${i}`;
  }
  for (let b = 0; b < branches; b++) {
    let q = "r0";
    for (let i = 0; i < 20; i++) {
      lines.push(msg(`b${b}_${i}`, q, i % 2 ? "assistant" : "user", `branch ${b} step ${i}`));
      q = `b${b}_${i}`;
    }
  }
  lines.push(msg("c1", "c2", "user", "in a cycle"), msg("c2", "c1", "assistant", "also in the cycle"));
  lines.push(msg("c3", "c2", "user", "below the cycle"), msg("tend", p, "assistant", "the active leaf"));
  return `${lines.join("\n")}\n`;
}

// 2,000 malformed lines: far more output than a pipe holds, so `head` leaves while pisess is still writing.
const FAULTS = "fixtures/newuser/many-faults.jsonl";

describe.skipIf(!hasBash)("closed stdout (EPIPE)", () => {
  // What a whole run exits with is the report's status (the same in every format); each format must keep it.
  it("validate: the whole run's exit status is 1", async () => {
    expect((await validateReport({ inputs: [FAULTS], open: openFile })).exitCode).toBe(1);
  });
  for (const format of ["text", "ndjson", "github", "json"]) {
    it(`validate --format ${format} | head -1 keeps exit 1`, () => {
      expect(throughHead(`validate ${FAULTS} --format ${format}`).code).toBe(1);
    });
  }

  it("diff FILE A B | head -1 keeps exit 1", () => {
    expect(throughHead("diff fixtures/diff/branches.jsonl label:try-a leaf").code).toBe(1);
  });

  it("diff --leaves | head -1 keeps exit 1 and stops at once: the last comparison is never made", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pisess-epipe-"));
    try {
      const file = join(dir, "many-leaves.jsonl");
      writeFileSync(file, manyLeaves(300));
      // --all-entries: every comparison lists its whole side, as the cap would otherwise keep the output small.
      // Read to the end, the run makes the last comparison and reports its cycle on stderr, after close to a megabyte of stdout
      // (far more than a pipe holds, so `head` leaves while pisess still has most of it to write).
      const full = await runCli(["diff", file, "--leaves", "--all-entries"]);
      expect(full.code).toBe(1);
      expect(full.stdout.length).toBeGreaterThan(512 << 10);
      expect(full.stderr).toMatch(/^.*:\d+: error parent-cycle: /m);
      const early = throughHead(`diff ${file} --leaves --all-entries`);
      expect(early.code).toBe(1);
      expect(early.stderr).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

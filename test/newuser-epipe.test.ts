import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openFile } from "../src/reports/open.js";
import { validateReport } from "../src/reports/validate.js";
import { BIN, ROOT } from "./helpers.js";

// Issue "What a new user hit", item 3: a reader that leaves early (`| head -1`) neither loses the exit status nor
// lets the run go on computing output nobody reads.

const hasBash = spawnSync("bash", ["-c", "true"]).status === 0;

/** Runs `pisess ARGS | head -1` in bash; pisess's own exit status (PIPESTATUS) and the seconds the pipeline took. */
function throughHead(args: string): { code: number; seconds: number } {
  const t = process.hrtime.bigint();
  const r = spawnSync("bash", ["-c", `"${process.execPath}" "${BIN}" ${args} | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    encoding: "utf8",
  });
  return { code: Number(r.stdout.trim()), seconds: Number(process.hrtime.bigint() - t) / 1e9 };
}

function fullRun(args: string): { code: number; seconds: number } {
  const t = process.hrtime.bigint();
  const r = spawnSync("bash", ["-c", `"${process.execPath}" "${BIN}" ${args} >/dev/null`], { cwd: ROOT, encoding: "utf8" });
  return { code: r.status ?? -1, seconds: Number(process.hrtime.bigint() - t) / 1e9 };
}

/** A session: a root, `branches` branches of 20 messages below it, then a trunk of `trunk` messages (the active path). */
function manyLeaves(branches: number, trunk: number): string {
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
  for (let b = 0; b < branches; b++) {
    let p = "r0";
    for (let i = 0; i < 20; i++) {
      lines.push(msg(`b${b}_${i}`, p, i % 2 ? "assistant" : "user", `branch ${b} step ${i}`));
      p = `b${b}_${i}`;
    }
  }
  let p = "r0";
  for (let i = 0; i < trunk; i++) {
    lines.push(msg(`t${i}`, p, i % 2 ? "assistant" : "user", `trunk step ${i} `.repeat(5)));
    p = `t${i}`;
  }
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

  it("diff --leaves | head -1 keeps exit 1 and stops at once", () => {
    const dir = mkdtempSync(join(tmpdir(), "pisess-epipe-"));
    try {
      // 400 short branches off a 6,000-entry trunk: with --all-entries every comparison lists the whole trunk, the
      // first comes at once (the whole run takes about five times as long as one that stops after the first; re-reads
      // in file order got cheaper, so the trunk is longer than the 2,500 it was, to keep start-up a small part of the
      // whole). Without --all-entries each side lists 10 entries, and the whole run is mostly start-up.
      const file = join(dir, "many-leaves.jsonl");
      writeFileSync(file, manyLeaves(400, 6000));
      const full = fullRun(`diff ${file} --leaves --all-entries`);
      expect(full.code).toBe(1);
      const early = throughHead(`diff ${file} --leaves --all-entries`);
      expect(early.code).toBe(1);
      // The whole run compares every leaf; one that stops after the first comparison takes a fraction of it.
      expect(early.seconds).toBeLessThan(full.seconds * 0.4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

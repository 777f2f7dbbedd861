import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
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

// 2,000 malformed lines: far more output than a pipe holds, so `head` leaves while pisess is still writing.
const FAULTS = "fixtures/newuser/many-faults.jsonl";

describe.skipIf(!hasBash)("closed stdout (EPIPE)", () => {
  for (const format of ["text", "ndjson", "github", "json"]) {
    it(`validate --format ${format} | head -1 keeps exit 1`, () => {
      expect(fullRun(`validate ${FAULTS} --format ${format}`).code).toBe(1);
      expect(throughHead(`validate ${FAULTS} --format ${format}`).code).toBe(1);
    });
  }

  it("diff FILE A B | head -1 keeps exit 1", () => {
    expect(throughHead("diff fixtures/diff/branches.jsonl label:try-a leaf").code).toBe(1);
  });

  it("diff --leaves | head -1 keeps exit 1 and stops at once", () => {
    const file = "fixtures/corpus/gen-v3-long.jsonl";
    const full = fullRun(`diff ${file} --leaves`);
    expect(full.code).toBe(1);
    const early = throughHead(`diff ${file} --leaves`);
    expect(early.code).toBe(1);
    // The whole run compares every leaf; one that stops after the first comparison takes a fraction of it.
    expect(early.seconds).toBeLessThan(full.seconds * 0.6);
  });
});

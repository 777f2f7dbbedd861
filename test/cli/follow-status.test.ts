import { spawn } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, fixture, runCli } from "../support/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "pisess-follow-status-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// util-linux `script` gives the binary a terminal (the status line is drawn only on one).
const SCRIPT = "/usr/bin/script";
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

describe("follow's status line on a terminal", () => {
  it.skipIf(!existsSync(SCRIPT))(
    "after a burst of entries it shows the context size after the last one (a trailing update)",
    async () => {
      const file = join(dir, "s.jsonl");
      copyFileSync(fixture("follow", "spend.jsonl"), file);
      const cmd = `stty cols 400; exec ${quote(process.execPath)} ${quote(BIN)} follow ${quote(file)} --until-idle 3.5`;
      const child = spawn(SCRIPT, ["-qfec", cmd, "/dev/null"], { env: { ...process.env, NO_COLOR: "1", PISESS_FOLLOW_POLL_MS: "20" } });
      let out = "";
      child.stdout.on("data", (b: Buffer) => {
        out += b.toString("utf8");
      });
      const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
      const end = Date.now() + 15000;
      while (!out.includes("following ")) {
        if (Date.now() > end) throw new Error(`follow did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      // Two entries within the 2 s between rebuilds: the second moves the context size to the new usage.
      const add = (o: object) => appendFileSync(file, `${JSON.stringify(o)}\n`);
      add({
        type: "message",
        id: "u0000007",
        parentId: "k0000006",
        timestamp: "2025-06-01T10:07:00.000Z",
        message: { role: "user", content: [{ type: "text", text: "more" }], timestamp: 0 },
      });
      await new Promise((r) => setTimeout(r, 200));
      add({
        type: "message",
        id: "a0000008",
        parentId: "u0000007",
        timestamp: "2025-06-01T10:08:00.000Z",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "big" }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: { input: 50000, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 50100, cost: { total: 0.5 } },
          stopReason: "stop",
          timestamp: 0,
        },
      });
      expect(await exit).toBe(0);
      const ctx = await runCli(["context", file]);
      const want = /size: +≈ (\S+) tokens/.exec(ctx.stdout)?.[1];
      expect(want).toBe("50.1k");
      const shown = [...out.matchAll(/context ≈ (\S+) tokens/g)].map((m) => m[1]);
      expect(shown.at(-1), out).toBe(want);
    },
    30_000,
  );
});

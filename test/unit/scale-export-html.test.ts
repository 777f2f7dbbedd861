import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/helpers.js";
import { turnUsage } from "../support/small-session.js";

// #32.15: the HTML page embeds every entry's line; a session of huge tool outputs made a page larger than the
// input and several times that in memory. Strings longer than --body-limit KiB (default 256) are cut, with a note.

const dir = mkdtempSync(join(tmpdir(), "pisess-scale-html-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2025, 5, 1, 12);
const ts = (i: number) => new Date(T0 + 1000 * i).toISOString();
const USAGE = turnUsage({ total: 0 }, { input: 1, output: 1 });
const PNG = "iVBORw0KGgo".padEnd(400_000, "A"); // image data longer than the limit: never cut

/** Four turns, each reading a file of 1 MB (a tool result of one long string), the last with a large image. */
function session(): string {
  const lines: unknown[] = [{ type: "session", version: 3, id: "s", timestamp: ts(0), cwd: "/" }];
  let parent: string | null = null;
  let n = 0;
  const push = (e: Record<string, unknown>) => {
    const id = `e${++n}`;
    lines.push({ ...e, id, parentId: parent, timestamp: ts(n) });
    parent = id;
  };
  for (let t = 0; t < 4; t++) {
    push({ type: "message", message: { role: "user", content: `read file ${t}`, timestamp: T0 + n * 1000 } });
    push({
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "toolCall", id: `c${t}`, name: "read", arguments: { path: `/f${t}` } }],
        provider: "p",
        model: "m",
        api: "a",
        usage: USAGE,
        stopReason: "toolUse",
        timestamp: T0 + n * 1000,
      },
    });
    const content: unknown[] = [{ type: "text", text: `start of file ${t}\n${"x".repeat(1_000_000)}\nend of file ${t}` }];
    if (t === 3) content.push({ type: "image", mimeType: "image/png", data: PNG });
    push({
      type: "message",
      message: { role: "toolResult", toolCallId: `c${t}`, toolName: "read", content, isError: false, timestamp: T0 + n * 1000 },
    });
  }
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

describe("export --format html: a size cap on embedded bodies (#32.15)", () => {
  const file = join(dir, "big.jsonl");
  writeFileSync(file, session());

  it("cuts strings over 256 KiB by default and says so on the page; the page is smaller than the input", async () => {
    const out = join(dir, "big.html");
    const r = await runCli(["export", file, "-o", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const page = readFileSync(out, "utf8");
    expect(statSync(out).size).toBeLessThan(statSync(file).size / 2);
    expect(page).toContain("start of file 3");
    expect(page).not.toContain("end of file 3");
    // In the embedded line (JSON inside JSON): the cut's note, how many characters it left out.
    expect(page).toContain(
      `… [${1_000_000 + "\nend of file 3".length + "start of file 3\n".length - 256 * 1024} more characters not embedded: pisess export --body-limit 0 embeds all]`,
    );
    expect(page).toContain(PNG);
    expect(page).toContain(
      '"not embedded","strings over 256 KiB cut to 256 KiB (in up to 4 entries); pisess export --body-limit 0 embeds everything',
    );
  }, 60_000);

  it("--body-limit 0 embeds everything, and no note", async () => {
    const out = join(dir, "all.html");
    const r = await runCli(["export", file, "-o", out, "--body-limit", "0"]);
    expect(r.code).toBe(0);
    const page = readFileSync(out, "utf8");
    for (let t = 0; t < 4; t++) expect(page).toContain(`end of file ${t}`);
    expect(page).not.toContain("not embedded");
  }, 60_000);

  it("--body-limit takes a whole number of KiB", async () => {
    const r = await runCli(["export", file, "-o", join(dir, "x.html"), "--body-limit", "-1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--body-limit takes a whole number ≥ 0");
  });
});

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportOut } from "../support/export-inproc.js";
import { fixture, runCli } from "../support/helpers.js";

/**
 * The HTML export's budget panel shows what `pisess budget` says for the selected entry: the same total, the same
 * largest parts, the same bill (in Chromium, as test/cli/export-html-ui.test.ts; skipped without one).
 */
const CANDIDATES = [process.env.PISESS_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
const EXECUTABLE = CANDIDATES.find((p): p is string => typeof p === "string" && p !== "" && existsSync(p));
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-dev-shm-usage"];
type Json = Record<string, any>;

describe.skipIf(!EXECUTABLE)("export --format html: the budget panel", () => {
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), "pisess-html-budget-"));
  const file = fixture("readme", "session.jsonl");
  let url = "";

  beforeAll(async () => {
    const launched = chromium.launch({ executablePath: EXECUTABLE, args: ARGS });
    const r = await exportOut(relative(process.cwd(), file), { format: "html" });
    expect(r.code).toBe(0);
    const out = join(dir, "page.html");
    writeFileSync(out, r.stdout);
    url = pathToFileURL(out).href;
    browser = await launched;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function panel(hash: string): Promise<{ summary: string; rows: string[][] }> {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await page.goto(url + hash);
    await page.waitForSelector("body[data-ready='1']");
    return page.evaluate(() => {
      const box = document.querySelector("details.budget") as HTMLElement;
      const rows = [...box.querySelectorAll("tr")].map((tr) =>
        [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent ?? ""),
      );
      return { summary: box.querySelector("summary")?.textContent ?? "", rows };
    });
  }

  it("at an entry a billed turn follows: pisess budget's total, parts and bill", async () => {
    const cli = JSON.parse((await runCli(["budget", file, "--leaf", "e0000129", "--json", "--keep-recent", "1"])).stdout) as Json;
    const p = await panel("#leaf=e0000129");
    expect(p.summary).toBe(
      `Budget: ≈ ${cli.total} tokens by pi's estimate · billed 1.0k by the turn at line ${cli.billed.turn.line} (2.48×)`,
    );
    expect(p.rows).toEqual([
      ["user text", String(cli.parts[0].tokens), "66.3%"],
      ["assistant text", String(cli.parts[1].tokens), "30.7%"],
      ["compaction summary", String(cli.parts[2].tokens), "3.0%"],
    ]);
  }, 60_000);

  it("at the last entry, nothing billed after it", async () => {
    const cli = JSON.parse((await runCli(["budget", file, "--json", "--keep-recent", "1"])).stdout) as Json;
    const p = await panel("");
    expect(p.summary).toBe(`Budget: ≈ ${cli.total} tokens by pi's estimate`);
  }, 60_000);
});

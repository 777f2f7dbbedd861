import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportOut } from "../support/export-inproc.js";
import { fixture } from "../support/helpers.js";

/**
 * The HTML export's page layout and the parts of a message it draws, in Chromium (as test/export-browser.test.ts:
 * the system's binary, skipped without one). fixtures/export/ui.jsonl (make-ui.mjs): line 2 a system message whose
 * prompt is in `sections`, lines 3-4 a user and an assistant, line 5 a compaction with a Markdown summary, then 40
 * branch points b<k> (line 6 + 3k) with an abandoned x<k> (7 + 3k) and l<k> (8 + 3k), the way on; z at line 126.
 */
const CANDIDATES = [process.env.PISESS_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
const EXECUTABLE = CANDIDATES.find((p): p is string => typeof p === "string" && p !== "" && existsSync(p));
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-dev-shm-usage",
];

describe.skipIf(!EXECUTABLE)("export --format html: what the page shows and how it is laid out", () => {
  let browser: Browser;
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), "pisess-html-ui-"));
  let url = "";

  beforeAll(async () => {
    const launched = chromium.launch({ executablePath: EXECUTABLE, args: ARGS });
    const r = await exportOut(relative(process.cwd(), fixture("export", "ui.jsonl")), { format: "html" });
    expect(r.code).toBe(0);
    const out = join(dir, "ui.html");
    writeFileSync(out, r.stdout);
    url = pathToFileURL(out).href;
    browser = await launched;
    page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(hash = "", width = 1400): Promise<void> {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("about:blank");
    await page.goto(url + hash);
    await page.waitForSelector("body[data-ready='1']");
  }

  /** The gutter and connector text of the tree row of a line (every entry shown; the pane scrolled to it). */
  async function prefixAt(line: number): Promise<string | null> {
    await page.selectOption("#filter", "all");
    return page.evaluate(async (want) => {
      const pane = document.getElementById("tree") as HTMLElement;
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
      for (let top = 0; top <= pane.scrollHeight; top += 200) {
        pane.scrollTop = top;
        await frame();
        const hit = pane.querySelector(`.row[data-line="${want}"] .prefix`);
        if (hit) return hit.textContent;
      }
      return null;
    }, line);
  }

  it("LLM view: a system message shows its sections and the tools it adds", async () => {
    // At a0000002 (line 4) the context is the system message, the user and the assistant: no compaction yet.
    await open("#leaf=a0000002");
    await page.check("#llm");
    const sys = page.locator("#context section.msg.llm[data-role='system']");
    await expect(sys.count()).resolves.toBe(1);
    const text = (await sys.textContent()) ?? "";
    expect(text).toContain("section preamble");
    expect(text).toContain("You are a coding assistant running inside pi.");
    expect(text).toContain("section tools");
    expect(text).toContain("Use read before edit.");
    expect(text).toContain("tools added: read");
    // The section's text is Markdown, as every other message text.
    await expect(sys.locator("strong").first().textContent()).resolves.toBe("coding assistant");
  }, 60_000);

  it("a compaction summary is Markdown all through, in both views", async () => {
    await open();
    const framed = page.locator("#context section.msg[data-role='compactionSummary'] .framed");
    await expect(framed.locator("h2").allTextContents()).resolves.toEqual(["Goal", "Progress"]);
    await page.check("#llm");
    // convertToLlm wraps it: prefix, <summary> on its own line, the summary, </summary>.
    const llm = page.locator("#context section.msg.llm").first();
    await expect(llm.locator("h2").allTextContents()).resolves.toEqual(["Goal", "Progress"]);
    await expect(llm.locator("strong").allTextContents()).resolves.toEqual(["Fix"]);
    await expect(llm.locator("li").allTextContents()).resolves.toEqual(["done parse", "open stream"]);
    const text = (await llm.textContent()) ?? "";
    expect(text).not.toContain("## Goal");
    expect(text).not.toContain("**Fix**");
    expect(text).toContain("<summary>");
    expect(text).toContain("</summary>");
  }, 60_000);

  it("tree rows past 32 branch levels start with their level count and draw the innermost 32; up to 32 in full", async () => {
    await open();
    // Written out from the layout rules: l<k> is k+1 levels deep at indent 2k+1 (each branch point's first
    // generation is indented once more); its gutters stand at the even columns 0…2k-2, its connector at 2k.
    const pair = "│     ";
    expect(await prefixAt(65)).toBe(`${pair.repeat(19)}├─ `); // l19: 20 levels
    expect(await prefixAt(101)).toBe(`${pair.repeat(31)}├─ `); // l31: 32 levels, not folded
    // l32: 33 levels; the outermost one (column 0) is left out: columns 2…64 drawn.
    expect(await prefixAt(104)).toBe(`33⋯ ${pair.repeat(31)}├─ `);
    // l39, x39: 40 levels, columns 16…78.
    expect(await prefixAt(125)).toBe(`40⋯ ${pair.repeat(31)}├─ `);
    expect(await prefixAt(124)).toBe(`40⋯ ${pair.repeat(31)}└─ `);
    // b39: 39 levels (no connector of its own), columns 14…77; z: 40 levels, columns 16…79.
    expect(await prefixAt(123)).toBe(`39⋯ ${pair.repeat(32)}`);
    expect(await prefixAt(126)).toBe(`40⋯ ${pair.repeat(32)}`);
  }, 60_000);

  it("the tree pane scrolls sideways so the selected deep row's text is in sight", async () => {
    await open();
    const r = await page.evaluate(() => {
      const pane = (document.getElementById("tree") as HTMLElement).getBoundingClientRect();
      const text = (document.querySelector("#tree .row.selected .preview") as HTMLElement).getBoundingClientRect();
      return { paneLeft: pane.left, paneRight: pane.right, textLeft: text.left };
    });
    expect(r.textLeft).toBeGreaterThanOrEqual(r.paneLeft);
    expect(r.textLeft).toBeLessThan(r.paneRight - 50);
  }, 60_000);

  it("the facts header is folded beyond a few key facts and leaves most of the screen to the session", async () => {
    await open();
    const visible = await page.$$eval("#facts tr", (trs) =>
      trs.filter((tr) => tr.checkVisibility()).map((tr) => tr.querySelector("th")?.textContent),
    );
    expect(visible).toEqual(["name", "models", "cost", "leaves", "problems"]);
    const more = page.locator("#facts details");
    await expect(more.getAttribute("open")).resolves.toBeNull();
    await expect(more.locator("tr").count()).resolves.toBeGreaterThan(5);
    const h = await page.$eval("header.top", (e) => e.getBoundingClientRect().height);
    expect(h).toBeLessThan(900 * 0.25);
  }, 60_000);

  it("at 420 px the title, facts and charts do not overlap and nothing is wider than the screen", async () => {
    await open("", 420);
    const box = (sel: string) =>
      page.$eval(sel, (e) => {
        const r = e.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      });
    type Box = Awaited<ReturnType<typeof box>>;
    const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const title = await box("#title");
    const facts = await box("#facts");
    for (const sel of ["#chart-context", "#chart-leaves"]) {
      const chart = await box(sel);
      expect(overlap(title, chart), `#title and ${sel}`).toBe(false);
      expect(overlap(facts, chart), `#facts and ${sel}`).toBe(false);
      expect(chart.right).toBeLessThanOrEqual(420);
    }
    expect(title.right).toBeLessThanOrEqual(420);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
  }, 60_000);
});

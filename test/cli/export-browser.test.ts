import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportOut } from "../support/export-inproc.js";
import { corpus, fixture, ROOT, expectedOf } from "../support/helpers.js";
import { contextJsonOut } from "../support/inproc.js";
import { expectEqual } from "../support/expect-fast.js";

/**
 * The HTML export in a real browser: Chromium from the system (Debian's `chromium`; PISESS_CHROMIUM names another),
 * driven by playwright-core, never downloaded. Without a binary the tests are skipped with a message; .ci/run
 * installs it, so CI runs them.
 */
const CANDIDATES = [process.env.PISESS_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
const EXECUTABLE = CANDIDATES.find((p): p is string => typeof p === "string" && p !== "" && existsSync(p));
if (!EXECUTABLE) console.warn("export-browser tests skipped: no chromium binary (apt-get install -y chromium, or set PISESS_CHROMIUM)");

/**
 * No sandbox (tests run as root here), and none of the browser's own background work: it has no network to reach,
 * and its tries (updates, sync, GPU probing) only cost CPU beside the test.
 */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
  "--disable-dev-shm-usage",
];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Control characters as the page shows them (visible \xNN / \uNNNN escapes), the bidi controls included. */
const shown = (s: string) =>
  s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
  });
/**
 * Letters and digits only: Markdown rendering changes markup and spacing, never the words. Fence lines (with their
 * language) and ordered-list numbers are Markdown syntax too; they go before comparing.
 */
const words = (s: string) =>
  shown(s)
    .replace(/^[ \t]*(`{3,}|~{3,}).*$/gm, "")
    .replace(/(^|\s)\d+[.)](?=\s|$)/g, "$1")
    .replace(/[^\p{L}\p{N}]+/gu, "");

function textBlocks(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is Obj => isObj(b) && b.type === "text")
    .map((b) => String(b.text ?? ""))
    .join("\n");
}

/** What the page must show as a message's text, from `pisess context --json` (pi's message shapes). */
function expectedText(m: Obj): string {
  switch (m.role) {
    case "assistant":
      return textBlocks(m.content) + (typeof m.errorMessage === "string" ? `\nerror ${m.errorMessage}` : "");
    case "compactionSummary":
    case "branchSummary":
      return String(m.summary ?? "");
    case "bashExecution":
      return `${String(m.command ?? "")}${String(m.output ?? "")}`;
    case "system":
      return (
        textBlocks(m.content) +
        (isObj(m.sections)
          ? Object.entries(m.sections)
              .map(([k, v]) => `section ${k} ${v === null ? "removed" : String(v)}`)
              .join("")
          : "")
      );
    default:
      return textBlocks(m.content);
  }
}

interface Shown {
  index: number;
  role: string;
  text: string;
}

/** Loads every lazily rendered chunk, then reads each message the model saw: its role and its own text parts. */
async function renderedMessages(page: Page): Promise<Shown[]> {
  await page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
    for (;;) {
      const more = document.querySelector("#context > .more");
      if (!more) return;
      more.scrollIntoView();
      // The page replaces the sentinel when it appends the next chunk: wait for that, not for a fixed time.
      while (more.isConnected) await frame();
    }
  });
  const got = await page.$$eval("#context section.msg[data-index]", (els) =>
    els.map((e) => ({
      index: Number((e as HTMLElement).dataset.index),
      role: String((e as HTMLElement).dataset.role),
      text: Array.from(e.querySelectorAll(":scope > .body > .text"))
        .map((t) => t.textContent ?? "")
        .join("\n"),
    })),
  );
  return got.sort((a, b) => a.index - b.index);
}

/** What `pisess context FILE --json --leaf LEAF [--llm]` prints, in-process (test/inproc.ts). */
async function contextJson(file: string, leaf: string, llm = false): Promise<Obj[]> {
  const r = await contextJsonOut(file, { leaf, llm });
  expect([0, 1]).toContain(r.code);
  return (JSON.parse(r.stdout) as { messages: Obj[] }).messages;
}

function compare(got: Shown[], want: Obj[], where: string): void {
  expectEqual(
    got.map((m) => m.index),
    want.map((_, i) => i),
    where,
  );
  expectEqual(
    got.map((m) => m.role),
    want.map((m) => String(m.role)),
    where,
  );
  for (const [i, m] of want.entries()) expect(words((got[i] as Shown).text), `${where} #${i + 1}`).toBe(words(expectedText(m)));
}

/** The file the README's screenshot shows. */
const SHOT_FILE = "gen16-branchy.jsonl";
const FILES = ["gen16-branchy.jsonl", "gen16-edits.jsonl", "gen16-faults.jsonl", "pi16-written.jsonl", "real-v1-before-compaction.jsonl"];

describe.skipIf(!EXECUTABLE)("export --format html in Chromium", () => {
  let browser: Browser;
  /**
   * One page for every load, each file opened by navigating it: a new page cost Chromium ~2 CPU-s (a renderer
   * process started, and one more kept), a navigation of the same page ~0.6. Each load is a new document: the
   * page script keeps nothing that one load could leave to the next (no storage, no cookies).
   */
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), "pisess-html-"));
  const pages = new Map<string, string>();
  /** The file the page shows: its requests and errors are reported under that name. */
  let showing: { f: string; url: string } | undefined;
  const requests: string[] = [];
  const problems: string[] = [];
  let shotTaken = false;

  beforeAll(async () => {
    const launched = chromium.launch({ executablePath: EXECUTABLE, args: CHROMIUM_ARGS });
    // Exported in-process while the browser starts; the CLI's export is tested by spawning in export.test.ts.
    for (const f of [...FILES, "hostile"]) {
      const src = f === "hostile" ? fixture("export", "hostile.jsonl") : corpus(f);
      const out = join(dir, `${f}.html`);
      // Relative to the project, as a user would name it (the page shows the name).
      const r = await exportOut(relative(process.cwd(), src), { format: "html" });
      expect(r.code).toBe(0);
      writeFileSync(out, r.stdout);
      pages.set(f, out);
    }
    browser = await launched;
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on("request", (r) => {
      if (r.url().split("#")[0] !== showing?.url) requests.push(`${showing?.f}: ${r.url()}`);
    });
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`${showing?.f}: console: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`${showing?.f}: page error: ${e.message}`));
    page.on("dialog", (d) => {
      problems.push(`${showing?.f}: dialog: ${d.message()}`);
      void d.dismiss();
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The page as the last test left it when it shows the file, else the file opened. */
  async function shared(f: string): Promise<Page> {
    return showing?.f === f ? page : open(f);
  }

  /** The file opened anew, as a new load of its own document (never a jump within the one shown). */
  async function open(f: string, hash = ""): Promise<Page> {
    const url = pathToFileURL(pages.get(f) as string).href;
    // A URL differing only in its hash would move within the document instead of loading it.
    if (showing?.url === url) await page.goto("about:blank");
    showing = { f, url };
    await page.goto(url + hash);
    await page.waitForSelector("body[data-ready='1']");
    return page;
  }

  /** The README's picture of a page as opened (docs/export-html.png with PISESS_SCREENSHOT=1, else thrown away). */
  async function screenshot(page: Page): Promise<void> {
    const shot = process.env.PISESS_SCREENSHOT === "1" ? join(ROOT, "docs", "export-html.png") : join(dir, "export-html.png");
    mkdirSync(join(shot, ".."), { recursive: true });
    await page.screenshot({ path: shot });
    shotTaken = true;
  }

  /** Clicks the tree row of a line: every entry shown (filter "all"), the pane scrolled until the row is drawn. */
  async function clickRow(page: Page, line: number): Promise<void> {
    await page.selectOption("#filter", "all");
    // Scrolls in the page, a frame at a time, so the virtual list has drawn before each look (load-independent).
    const found = await page.evaluate(async (want) => {
      const pane = document.getElementById("tree") as HTMLElement;
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
      pane.scrollTop = 0;
      await frame();
      for (let i = 0; i < 5000; i++) {
        const hit = pane.querySelector(`.row[data-line="${want}"]`) as HTMLElement | null;
        if (hit) {
          // Clicked in the same task that found it: a redraw of the virtual list cannot swap the row away first.
          hit.click();
          return true;
        }
        if (pane.scrollTop + pane.clientHeight >= pane.scrollHeight) return false;
        // To the last row drawn (the list draws some rows beyond those in sight): the next draw starts at or above
        // it, so no row is stepped over.
        const drawn = pane.querySelectorAll<HTMLElement>(".row");
        const last = drawn.length > 0 ? Number.parseFloat((drawn[drawn.length - 1] as HTMLElement).style.top) : Number.NaN;
        pane.scrollTop = last > pane.scrollTop ? last : pane.scrollTop + pane.clientHeight;
        await frame();
      }
      return false;
    }, line);
    expect(found, `row of line ${line}`).toBe(true);
  }

  it.each(FILES)(
    "%s: leaves clicked in the tree show what `pisess context --json` says the model saw",
    async (f) => {
      const exp = expectedOf(f) as {
        leaves: { line: number; id?: string; error?: string; contextError?: unknown }[];
      };
      const ok = exp.leaves.filter((l) => l.error === undefined && l.contextError === undefined);
      // The first leaf and one from the middle: two branches apart, whatever the default leaf is.
      const leaves = [...new Set([ok[0], ok[Math.floor(ok.length / 2)]])].filter((l) => l !== undefined);
      expect(leaves.length).toBeGreaterThan(0);
      const page = await shared(f);
      // The README's screenshot shows this file as opened: taken from this load, before anything is clicked.
      if (f === SHOT_FILE && !shotTaken) await screenshot(page);
      // The default leaf first, as opened.
      compare(await renderedMessages(page), await contextJson(corpus(f), "leaf"), `${f} default leaf`);
      for (const l of leaves) {
        await clickRow(page, l.line);
        await page.waitForFunction((line) => document.querySelector("#context-head h2")?.textContent?.includes(`line ${line}`), l.line);
        expect(page.url()).toContain("#leaf=");
        compare(await renderedMessages(page), await contextJson(corpus(f), `@${l.line}`), `${f}:${l.line} (clicked)`);
      }
    },
    120_000,
  );

  it("a leaf named in the URL (#leaf=<id>) is selected on open; the LLM view matches `context --llm --json`", async () => {
    const f = "gen16-branchy.jsonl";
    const exp = expectedOf(f) as {
      leaves: { line: number; id: string; error?: string }[];
    };
    const l = exp.leaves.filter((x) => x.error === undefined && x.id)[2] as { line: number; id: string };
    const page = await open(f, `#leaf=${l.id}`);
    compare(await renderedMessages(page), await contextJson(corpus(f), l.id), `${f} #leaf=${l.id}`);
    await page.check("#llm");
    const llm = await renderedMessages(page);
    const want = await contextJson(corpus(f), l.id, true);
    expectEqual(
      llm.map((m) => m.role),
      want.map((m) => m.role),
    );
  }, 60_000);

  it("hostile session content stays text: no dialog, no script, no navigation, no request", async () => {
    const page = await shared("hostile");
    const url = page.url();
    for (const d of await page.locator("details").all()) await d.locator("summary").click();
    await page.check("#llm");
    await page.uncheck("#llm");
    await page.fill("#search", "script");
    // The tree pane names the search it last drew (the page waits for typing to pause before drawing).
    await page.waitForSelector("#tree[data-search='script']");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(page.url()).toBe(url);
    const bad = await page.$$eval("#context *, #tree *, #facts *", (els) =>
      els.flatMap((e) => {
        const out: string[] = [];
        if (["SCRIPT", "IFRAME", "STYLE", "OBJECT", "EMBED"].includes(e.tagName)) out.push(e.tagName);
        for (const a of e.getAttributeNames()) if (a.startsWith("on")) out.push(`${e.tagName}[${a}]`);
        const href = e.getAttribute("href") ?? e.getAttribute("src") ?? "";
        if (/^\s*(javascript|data:text|vbscript)/i.test(href)) out.push(`${e.tagName} ${href}`);
        if (e.tagName === "IMG" && !href.startsWith("data:image/png")) out.push(`IMG ${href.slice(0, 30)}`);
        return out;
      }),
    );
    expectEqual(bad, []);
    const text = (await page.locator("#context").textContent()) ?? "";
    expect(text).toContain("<script>window.__pwned=1;alert('x')</script>");
    expect(text).toContain("\\u202e");
    expect(text).not.toContain("\u202e");
  }, 60_000);

  it("no page made a request or logged an error; a screenshot for the README", async () => {
    // Taken when the leaves test opened the file; opened anew only when that test did not run (-t).
    if (!shotTaken) await screenshot(await open(SHOT_FILE));
    expectEqual(requests, []);
    expectEqual(problems, []);
  }, 60_000);
});

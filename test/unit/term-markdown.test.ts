import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { marked } from "marked";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cell, htmlText, inlineCode } from "../../src/render/markdown.js";
import { runCli } from "../support/helpers.js";
import { hostileFiles } from "../support/term-hostile.js";

// HTML, a link, an image, emphasis, a table pipe, a heading mark and an entity in every string of the session (and
// its file name, so no "/"): rendered, none of it may become markup.
const PAYLOAD = "<img src=x onerror=alert(1)>|*b*_i_[l](javascript:alert(2))![m](x)#&amp;<script>alert(3)<\\script>";

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pisess-term-md-"));
  ({ file } = hostileFiles(dir, PAYLOAD));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The markup a Markdown renderer made of the document that session text asked for: elements pisess never writes,
 * and the payload's own emphasis (pisess's emphasis is its own words: "*[image …]*", "**→ name**").
 */
function injected(markdown: string): string[] {
  const html = marked.parse(markdown, { async: false });
  return [...html.matchAll(/<(?:img|script|a|svg|iframe|del)\b[^>]*>|<em>[bi]<\/em>/gi)].map((m) => m[0]);
}

describe("Markdown outputs keep hostile session text inert (#32.3)", () => {
  const runs: [string, () => string[]][] = [
    ["context --format markdown", () => ["context", file, "--format", "markdown"]],
    ["context --format markdown, other leaf", () => ["context", file, "--format", "markdown", "--leaf", "@26"]],
    ["context --format markdown --show-edits", () => ["context", file, "--format", "markdown", "--show-edits"]],
    ["export --format markdown", () => ["export", file, "--format", "markdown"]],
  ];
  for (const [name, args] of runs) {
    it(name, async () => {
      const r = await runCli(args());
      expect(r.code, r.stderr).not.toBe(2);
      expect(r.stdout).toContain("onerror");
      expect(injected(r.stdout)).toEqual([]);
    });
  }

  it("the helpers: a cell, a code span and HTML-block text", () => {
    expect(cell("<img src=x>|*a*")).toBe("\\<img src=x\\>\\|\\*a\\*");
    expect(htmlText(`<b a="1">&'`)).toBe("&lt;b a=&quot;1&quot;&gt;&amp;&#39;");
    expect(inlineCode("a`b")).toBe("`` a`b ``");
    expect(injected(`| ${cell(PAYLOAD)} |`)).toEqual([]);
    expect(injected(`<details><summary>${htmlText(PAYLOAD)}</summary>\n\nx\n\n</details>`)).toEqual([]);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/helpers.js";
import { hostileFiles, MARK } from "../support/term-hostile.js";

// What session content must never put on a terminal: ESC, BEL (OSC's end), any other C0 control but tab and
// newline, DEL, C1, and the bidirectional controls and marks.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// The colour sequences pisess's own style writes (chalk, level 1): the only escapes a coloured run may hold.
const OUR_SGR = /\u001b\[(?:1|2|22|3[1-6]|39|90)m/g;

let dir: string;
let file: string;
let other: string;
let folder: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pisess-term-"));
  ({ file, other, folder } = hostileFiles(dir));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every text output of every command on the hostile files (run lazily: the paths exist only once written). */
function textRuns(): [string, () => string[]][] {
  const lines = Array.from({ length: 26 }, (_, i) => i + 1);
  return [
    ["tree", () => ["tree", file]],
    ["tree --filter all", () => ["tree", file, "--filter", "all"]],
    ["tree --width 40", () => ["tree", file, "--filter", "all", "--width", "40"]],
    ["path", () => ["path", file]],
    ["path other leaf", () => ["path", file, "--leaf", "@26"]],
    ...lines.map((n): [string, () => string[]] => [`show @${n}`, () => ["show", file, `@${n}`]]),
    ["leaves", () => ["leaves", file]],
    ["info", () => ["info", file]],
    ["bloat", () => ["bloat", file]],
    ["context", () => ["context", file]],
    ["context other leaf", () => ["context", file, "--leaf", "@26"]],
    ["context --format markdown", () => ["context", file, "--format", "markdown"]],
    ["validate", () => ["validate", file]],
    ["validate --format github", () => ["validate", file, "--format", "github"]],
    ["validate folder", () => ["validate", folder]],
    ["diff leaves", () => ["diff", file, "@25", "@26"]],
    ["diff --leaves", () => ["diff", file, "--leaves"]],
    ["diff --side-by-side", () => ["diff", file, "@25", "@26", "--side-by-side", "--width", "100"]],
    ["diff two files", () => ["diff", file, other]],
    ["diff --context", () => ["diff", file, "@25", "@26", "--context"]],
    ["grep", () => ["grep", "PWNED", folder]],
    ["grep one file", () => ["grep", "hi", file, "--context", "2"]],
    ["labels", () => ["labels", file]],
    ["labels --history", () => ["labels", file, "--history"]],
    ["lineage", () => ["lineage", file]],
    ["compactions", () => ["compactions", file]],
    ["export markdown", () => ["export", file, "--format", "markdown"]],
    ["ls", () => ["ls", folder]],
    ["usage", () => ["usage", folder]],
    ["follow", () => ["follow", file, "--from-start", "--until-idle", "0.2"]],
    ["missing ref", () => ["show", file, `nope${MARK}`]],
  ];
}

describe("no escape sequence from session content reaches a terminal (#32.2)", () => {
  for (const [name, args] of textRuns()) {
    it(`${name}: plain`, async () => {
      const r = await runCli(args());
      expect(r.code, r.stderr).not.toBe(-1);
      const both = r.stdout + r.stderr;
      expect(both.length).toBeGreaterThan(0);
      const at = both.search(RAW);
      expect(at, JSON.stringify(both.slice(Math.max(0, at - 60), at + 20))).toBe(-1);
    });
    it(`${name}: coloured`, async () => {
      const r = await runCli([...args(), "--color", "always"]);
      const both = (r.stdout + r.stderr).replace(OUR_SGR, "");
      const at = both.search(RAW);
      expect(at, JSON.stringify(both.slice(Math.max(0, at - 60), at + 20))).toBe(-1);
    });
  }

  it("the marker is shown as visible escapes, not dropped", async () => {
    const r = await runCli(["show", file, "@4"]);
    expect(r.stdout).toContain("\\x1b]52;c;PWNED\\x07\\u200f");
  });

  it("a coloured run keeps pisess's own colours", async () => {
    const r = await runCli(["tree", file, "--color", "always"]);
    expect(r.stdout).toMatch(OUR_SGR);
  });
});

/** Every JSON output on the hostile file: parsed, content kept as it was (the marker whole), no raw control. */
function jsonRuns(): [string, () => string[], "json" | "ndjson"][] {
  return [
    ["tree --json", () => ["tree", file, "--json"], "json"],
    ["tree --ndjson", () => ["tree", file, "--ndjson"], "ndjson"],
    ["path --json", () => ["path", file, "--json"], "json"],
    ["path --ndjson", () => ["path", file, "--ndjson"], "ndjson"],
    ["show --json", () => ["show", file, "@5", "--json"], "json"],
    ["leaves --json", () => ["leaves", file, "--json"], "json"],
    ["info --json", () => ["info", file, "--json"], "json"],
    ["bloat --json", () => ["bloat", file, "--json"], "json"],
    ["context --json", () => ["context", file, "--json"], "json"],
    ["context --llm --ndjson", () => ["context", file, "--llm", "--ndjson"], "ndjson"],
    ["validate --format json", () => ["validate", file, "--format", "json"], "json"],
    ["diff --json", () => ["diff", file, "@25", "@26", "--json"], "json"],
    ["grep --json", () => ["grep", "PWNED", file, "--json"], "json"],
    ["labels --json", () => ["labels", file, "--json"], "json"],
    ["ls --json", () => ["ls", folder, "--json"], "json"],
    ["export jsonl", () => ["export", file, "--format", "jsonl"], "ndjson"],
  ];
}

describe("JSON outputs keep the content's value (#32.2: the filter does not mangle JSON)", () => {
  for (const [name, args, kind] of jsonRuns()) {
    it(name, async () => {
      const r = await runCli(args());
      expect(r.stdout.search(RAW)).toBe(-1);
      const docs = kind === "json" ? [r.stdout] : r.stdout.split("\n").filter((l) => l !== "");
      const values = docs.map((d) => JSON.parse(d) as unknown);
      if (name !== "ls --json") expect(JSON.stringify(values)).toContain(JSON.stringify(MARK).slice(1, -1));
    });
  }
});

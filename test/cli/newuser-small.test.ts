import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli.js";
import { sessionsDir } from "../../src/io/discover.js";
import { ROOT, fixture, once, runCli, spawnCli } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

// Issue "What a new user hit", item 9: the smaller ones.
const N = (name: string) => `fixtures/newuser/${name}`;

// Through the CLI in process (arguments, output, exit status) where a process adds nothing; the binary where the
// output goes into a pipe (show --raw) or yargs ends the process (--help).
describe("parentId of the wrong type or empty", () => {
  const run = once(() => cliOut(["validate", N("parent-ids.jsonl"), "--format", "json"]));
  const diagnostics = async () =>
    (JSON.parse((await run()).stdout).files[0].diagnostics as { code: string; line: number; message: string }[]) ?? [];
  const at = async (line: number) => (await diagnostics()).filter((d) => d.line === line).map((d) => d.code);

  it("5 and {}: a schema violation as well as the dangling parent", async () => {
    expect(await at(3)).toEqual(expect.arrayContaining(["schema-violation", "dangling-parent"]));
    expect(await at(4)).toEqual(expect.arrayContaining(["schema-violation", "dangling-parent"]));
  });

  it('"": no usable parent, never "parent  does not exist"', async () => {
    const d = (await diagnostics()).find((x) => x.line === 5 && x.code === "dangling-parent");
    expect(d?.message).toBe("entry has no usable parentId; pi treats it as a root");
    expect((await run()).stdout).not.toContain("parent  does");
  });
});

describe("diff --width cuts the summary table too", () => {
  it("no line wider than 60 columns", async () => {
    const r = await cliOut(["diff", fixture("diff", "branches.jsonl"), "label:try-a", "leaf", "--width", "60"]);
    expect(r.code).toBe(1);
    for (const line of r.stdout.split("\n")) expect([...line].length).toBeLessThanOrEqual(60);
  });
});

describe("info on a file without entries", () => {
  it("no 'max depth -1'; maxDepth null in JSON", async () => {
    const text = (await cliOut(["info", N("header-only.jsonl")])).stdout;
    expect(text).not.toMatch(/max depth\s+-1/);
    expect(JSON.parse((await cliOut(["info", N("header-only.jsonl"), "--json"])).stdout).maxDepth).toBeNull();
  });
});

describe("headerless files: one rule", () => {
  it("entries with ids are read as version 3, and docs/diagnostics.md says so", async () => {
    expect(JSON.parse((await cliOut(["tree", fixture("tree", "no-header.jsonl"), "--json"])).stdout).version).toBe(3);
    const docs = readFileSync(join(ROOT, "docs", "diagnostics.md"), "utf8");
    const section = docs.slice(docs.indexOf("### header-missing"), docs.indexOf("### header-not-first"));
    expect(section).toContain("as the current version (3) when the first entry has a string `id`, else as version 1");
  });
});

describe("show --raw: raw into a pipe, escaped on a terminal", () => {
  const raw = readFileSync(fixture("newuser", "controls.jsonl"), "utf8").split("\n")[1] as string;
  afterEach(() => vi.restoreAllMocks());

  it("piped: the exact line", async () => {
    expect(spawnCli(["show", N("controls.jsonl"), "@2", "--raw"]).stdout).toBe(`${raw}\n`);
  });

  it("on a TTY: no raw bidi, C1 or DEL", async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    const tty = Object.getOwnPropertyDescriptor(process.stdout, "isTTY");
    Object.defineProperty(process.stdout, "isTTY", { value: true, configurable: true });
    try {
      expect(await main(["show", fixture("newuser", "controls.jsonl"), "@2", "--raw"])).toBe(0);
    } finally {
      if (tty) Object.defineProperty(process.stdout, "isTTY", tty);
      else delete (process.stdout as { isTTY?: boolean }).isTTY;
    }
    const text = out.join("");
    expect(text).not.toMatch(/[\u202e\u009b\u007f]/);
    expect(text).toContain("\\u202e");
    expect(text).toContain("\\x9b");
    expect(text).toContain("\\x7f");
  });
});

describe("show @N on a line that is not an entry", () => {
  it("shows the line and its diagnostic (exit 1), not 'no entry matches'", async () => {
    const r = await runCli(["show", N("malformed-line.jsonl"), "@3"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${readFileSync(fixture("newuser", "malformed-line.jsonl"), "utf8").split("\n")[2]}\n`);
    expect(r.stderr).toContain(`${N("malformed-line.jsonl")}:3: error malformed-json:`);
    expect(r.stderr).not.toContain("no entry matches");
  });
});

describe("completion --help", () => {
  it("prints help, not the script", async () => {
    const r = await runCli(["completion", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("pisess completion >> ~/.bashrc");
    expect(r.stdout).not.toContain("###-begin-pisess-completions-###");
  });
});

describe("the library", () => {
  it('require("pisess") works', () => {
    const dir = mkdtempSync(join(tmpdir(), "pisess-require-"));
    try {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(ROOT, join(dir, "node_modules", "pisess"), "dir");
      const r = spawnSync(process.execPath, ["-e", 'const p = require("pisess"); process.stdout.write(typeof p.openSession)'], {
        cwd: dir,
        encoding: "utf8",
      });
      expect(r.stderr).not.toContain("ERR_");
      expect(r.stdout).toBe("function");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sessionsDir() without an argument reads the process environment", async () => {
    const saved = process.env.PI_CODING_AGENT_SESSION_DIR;
    process.env.PI_CODING_AGENT_SESSION_DIR = "/tmp/pisess-sessions-here";
    try {
      expect(await sessionsDir()).toBe("/tmp/pisess-sessions-here");
    } finally {
      if (saved === undefined) delete process.env.PI_CODING_AGENT_SESSION_DIR;
      else process.env.PI_CODING_AGENT_SESSION_DIR = saved;
    }
  });
});

describe("README", () => {
  it("holds no leftover HTML comment (nor do the reference pages)", () => {
    const pages = ["README.md", "docs/README.md", "docs/conventions.md", "docs/library.md"];
    for (const page of pages) expect(readFileSync(join(ROOT, page), "utf8"), page).not.toContain("<!--");
  });

  it("documents that a label name on several entries is ambiguous, and its labels example survives it", async () => {
    const readme = readFileSync(join(ROOT, "docs", "conventions.md"), "utf8");
    expect(readme).toContain("a name that labels several entries is an error listing them");
    expect((await cliOut(["show", N("label-twice.jsonl"), "label:good"])).code).toBe(2);
  });
});

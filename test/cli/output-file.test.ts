import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkOutput, OutputRefused, writeOutput } from "../../src/io/output-file.js";
import { BIN, corpus, fingerprint, ROOT, runCli } from "../support/helpers.js";

// `export -o OUT` is the one file pisess writes (io/output-file.ts): a new file beside OUT renamed into place, and
// never a symlink, an input (device + inode) or a session file. Literal cases: the hard link and symlink of the
// issues, a session under another name, a reader of the old OUT, a run stopped by a signal.

const root = mkdtempSync(join(tmpdir(), "pisess-output-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** A fresh folder holding s.jsonl (a copy of a small pi session). */
function folder(): { dir: string; src: string } {
  const dir = join(root, String(n++));
  mkdirSync(dir);
  const src = join(dir, "s.jsonl");
  copyFileSync(corpus("gen-v2.jsonl"), src);
  return { dir, src };
}

function oneLine(stderr: string, re: RegExp): void {
  expect(stderr).toMatch(re);
  expect(stderr.trimEnd().split("\n")).toHaveLength(1);
}

describe("export -o: never onto an input, through a symlink, or over a session file (exit 2, one line)", () => {
  it("a hard link to the input (issue 26.1): refused, the session intact, still two links", async () => {
    const { dir, src } = folder();
    const report = join(dir, "report.html");
    linkSync(src, report);
    const before = fingerprint(src);
    const r = await runCli(["export", src, "-o", report, "--force"]);
    expect(r.code).toBe(2);
    oneLine(r.stderr, /report\.html: is the input file .*s\.jsonl \(the same file\)/);
    expect(fingerprint(src)).toEqual(before);
    expect(statSync(src).nlink).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(["report.html", "s.jsonl"]);
  });

  it("a symlink as OUT (issue 32.1): refused, the file it names intact, the link left as it was", async () => {
    const { dir, src } = folder();
    const other = join(dir, "other.jsonl");
    copyFileSync(corpus("gen-v3-branchy.jsonl"), other);
    const before = fingerprint(other);
    const link = join(dir, "out.html");
    symlinkSync("other.jsonl", link);
    const r = await runCli(["export", src, "-o", link, "--force"]);
    expect(r.code).toBe(2);
    oneLine(r.stderr, /out\.html: is a symbolic link; pisess never writes through one/);
    expect(fingerprint(other)).toEqual(before);
    expect(readlinkSync(link)).toBe("other.jsonl");
    // A dangling link too: writing through it would create the file it names.
    const dangling = join(dir, "gone.md");
    symlinkSync("made-through-link.md", dangling);
    expect((await runCli(["export", src, "-o", dangling, "--force"])).code).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(["gone.md", "other.jsonl", "out.html", "s.jsonl"]);
  });

  it("a file holding a pi session header, whatever its name (BOM and CRLF too): refused with --force", async () => {
    const { dir, src } = folder();
    const header = '{"type":"session","version":3,"id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';
    for (const [name, text] of [
      ["copy.txt", readFileSync(corpus("gen-v3-branchy.jsonl"), "utf8")],
      ["bom.html", `\ufeff${header}\r\n`],
      ["header-only.md", header],
    ] as const) {
      const p = join(dir, name);
      writeFileSync(p, text);
      const before = fingerprint(p);
      const r = await runCli(["export", src, "-o", p, "--force"]);
      expect(r.code, name).toBe(2);
      oneLine(r.stderr, /holds a pi session \(its first line is a session header\)/);
      expect(fingerprint(p), name).toEqual(before);
    }
  });

  it("the input named on stdin (`- < OUT`, the binary): refused", () => {
    const { dir } = folder();
    const page = join(dir, "page.html");
    writeFileSync(page, "old page\n");
    const fd = openSync(page, "r");
    try {
      const r = spawnSync(process.execPath, [BIN, "export", "-", "-o", page, "--force"], { stdio: [fd, "pipe", "pipe"], encoding: "utf8" });
      expect(r.status).toBe(2);
      oneLine(r.stderr, /page\.html: is the file on stdin/);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(page, "utf8")).toBe("old page\n");
  });

  it("a missing folder, a directory, or an existing file without --force: refused; a plain file with --force: replaced", async () => {
    const { dir, src } = folder();
    oneLine((await runCli(["export", src, "-o", join(dir, "no", "x.md")])).stderr, /x\.md: its folder: no such file/);
    oneLine((await runCli(["export", src, "-o", dir, "--force"])).stderr, /is a directory/);
    const md = join(dir, "x.md");
    writeFileSync(md, "keep\n");
    oneLine((await runCli(["export", src, "-o", md])).stderr, /x\.md: exists \(use --force to overwrite\)/);
    expect(readFileSync(md, "utf8")).toBe("keep\n");
    expect((await runCli(["export", src, "-o", md, "--force"])).code).toBe(0);
    expect(readFileSync(md, "utf8")).toMatch(/^# Session/);
    expect(readdirSync(dir).sort()).toEqual(["s.jsonl", "x.md"]);
  });
});

describe("export -o: a new file renamed into place", () => {
  it("never truncates the old OUT: a reader holding it keeps its bytes; the new OUT has a new file's mode", async () => {
    const { dir, src } = folder();
    const page = join(dir, "page.html");
    writeFileSync(page, "old page\n");
    const reference = join(dir, "reference");
    writeFileSync(reference, "");
    const ino = statSync(page).ino;
    const fd = openSync(page, "r");
    try {
      expect((await runCli(["export", src, "-o", page, "--force"])).code).toBe(0);
      const buf = Buffer.alloc(64);
      expect(buf.subarray(0, readSync(fd, buf, 0, 64, 0)).toString()).toBe("old page\n");
    } finally {
      closeSync(fd);
    }
    expect(statSync(page).ino).not.toBe(ino);
    expect(readFileSync(page, "utf8")).toMatch(/^<!doctype html>/);
    expect(statSync(page).mode & 0o777).toBe(statSync(reference).mode & 0o777);
    expect(readdirSync(dir).sort()).toEqual(["page.html", "reference", "s.jsonl"]);
  });

  it("a write that fails part-way leaves neither OUT nor the temporary file", async () => {
    const { dir, src } = folder();
    const out = join(dir, "x.md");
    const t = checkOutput(out, [src], false);
    function* failing(): Generator<string> {
      for (let i = 0; i < 3; i++) yield "x".repeat(1 << 20);
      throw new Error("renderer failed");
    }
    await expect(writeOutput(t, failing())).rejects.toThrow("renderer failed");
    expect(readdirSync(dir)).toEqual(["s.jsonl"]);
    // A file that appeared at OUT while the bytes were made (no --force) is not replaced.
    const late = checkOutput(out, [src], false);
    async function* slow(): AsyncGenerator<string> {
      yield "new\n";
      writeFileSync(out, "appeared\n");
    }
    await expect(writeOutput(late, slow())).rejects.toThrow(OutputRefused);
    expect(readFileSync(out, "utf8")).toBe("appeared\n");
    expect(readdirSync(dir).sort()).toEqual(["s.jsonl", "x.md"]);
  });

  /** A session big enough that its page takes a while to write: 3,000 turns of 10 KB. */
  function bigSession(path: string): void {
    const fd = openSync(path, "w");
    writeSync(
      fd,
      `${JSON.stringify({ type: "session", version: 3, id: "01942b8c-a709-7f0e-8230-f7af37508100", timestamp: "2025-01-03T09:43:45.673Z", cwd: "/x" })}\n`,
    );
    const text = "lorem ipsum dolor sit amet ".repeat(400);
    let parent: string | null = null;
    for (let i = 0; i < 3000; i++) {
      const id = i.toString(16).padStart(8, "0");
      writeSync(
        fd,
        `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2025-01-03T09:44:06.752Z", message: { role: "user", content: text, timestamp: 1 } })}\n`,
      );
      parent = id;
    }
    closeSync(fd);
  }

  for (const [signal, old] of [
    ["SIGTERM", undefined],
    ["SIGINT", undefined],
    ["SIGTERM", "old page\n"],
  ] as const) {
    const what = old === undefined ? "neither OUT nor the" : "the old OUT (--force) as it was and no";
    it(`a run stopped by ${signal} while writing leaves ${what} temporary file`, async () => {
      const { dir } = folder();
      const big = join(dir, "big.jsonl");
      bigSession(big);
      const out = join(dir, "big.html");
      const initial = ["big.jsonl", "s.jsonl"];
      if (old !== undefined) {
        writeFileSync(out, old);
        initial.unshift("big.html");
      }
      const args = ["export", big, "-o", out, ...(old === undefined ? [] : ["--force"])];
      const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
        child.on("exit", (code, sig) => res({ code, signal: sig })),
      );
      let seen = false;
      // As soon as the write starts (a temporary file appears; before the fix, OUT itself appeared or was
      // truncated), stop the run.
      for (let i = 0; i < 20_000 && !seen; i++) {
        seen = readdirSync(dir).some((f) => !initial.includes(f)) || (old !== undefined && readFileSync(out, "utf8") !== old);
        if (!seen) await new Promise((r) => setTimeout(r, 1));
      }
      expect(seen).toBe(true);
      child.kill(signal);
      const end = await ended;
      expect(end.signal, "stopped while writing, not finished").toBe(signal);
      expect(readdirSync(dir).sort()).toEqual(initial.sort());
      if (old !== undefined) expect(readFileSync(out, "utf8")).toBe(old);
    }, 60_000);
  }
});

describe("export's format: --format, else OUT's extension, else Markdown; never from whether stdout is a TTY", () => {
  it("-o x.md, x.html, x.jsonl, x.txt", async () => {
    const { dir, src } = folder();
    const starts: Record<string, RegExp> = {
      "x.md": /^# Session/,
      "x.html": /^<!doctype html>/,
      "x.jsonl": /^\{"type":"session"/,
      "x.txt": /^# Session/,
    };
    for (const [name, re] of Object.entries(starts)) {
      expect((await runCli(["export", src, "-o", join(dir, name)])).code, name).toBe(0);
      expect(readFileSync(join(dir, name), "utf8"), name).toMatch(re);
    }
    expect((await runCli(["export", src, "--format", "html", "-o", join(dir, "y.md")])).code).toBe(0);
    expect(readFileSync(join(dir, "y.md"), "utf8")).toMatch(/^<!doctype html>/);
  });

  it("stdout a file (`> out.md`, issue 26.16), a pipe, or a terminal: Markdown, the same bytes", () => {
    const { dir, src } = folder();
    const md = join(dir, "out.md");
    const fd = openSync(md, "w");
    try {
      const r = spawnSync(process.execPath, [BIN, "export", src], { stdio: ["ignore", fd, "pipe"], encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    } finally {
      closeSync(fd);
    }
    const file = readFileSync(md, "utf8");
    expect(file).toMatch(/^# Session/);
    const pipe = spawnSync(process.execPath, [BIN, "export", src], { encoding: "utf8" });
    expect(pipe.stdout).toBe(file);
    const tty = spawnSync(process.execPath, ["--import", join(ROOT, "test", "support", "fake-tty.mjs"), BIN, "export", src], {
      encoding: "utf8",
      env: { ...process.env, PISESS_TEST_COLUMNS: "100" },
    });
    expect(tty.stdout).toBe(file);
    expect(lstatSync(md).isFile()).toBe(true);
  });
});

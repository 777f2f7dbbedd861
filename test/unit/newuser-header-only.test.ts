import { describe, expect, it } from "vitest";
import { runCli } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

// Issue "What a new user hit", item 10: a session with a header and no entries. pi builds an empty context
// (thinkingLevel "off", model null, no messages) and an empty path there; pisess follows (exit 0) with a note.
const F = "fixtures/newuser/header-only.jsonl";
const note = (what: string) => `${F}: note: the session has no entries; the ${what} is empty, as pi's\n`;

describe("header-only session", () => {
  // The whole CLI in process (arguments, stdout, stderr and exit status).
  it("context --json: pi's empty context, exit 0, a note on stderr", async () => {
    const r = await runCli(["context", F, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ file: F, leaf: null, thinkingLevel: "off", model: null, messages: [], entries: [] });
    expect(r.stderr).toBe(note("context"));
  });

  it("context --ndjson and text: nothing on stdout, exit 0", async () => {
    for (const extra of [["--ndjson"], [], ["--llm", "--ndjson"]]) {
      const r = await cliOut(["context", F, ...extra]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(note("context"));
    }
  });

  it("path --json: an empty path, exit 0, a note on stderr", async () => {
    const r = await cliOut(["path", F, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ file: F, leaf: null, entries: [] });
    expect(r.stderr).toBe(note("path"));
  });

  it("path text and --ndjson: nothing on stdout, exit 0", async () => {
    for (const extra of [["--ndjson"], []]) {
      const r = await cliOut(["path", F, ...extra]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
    }
  });

  it("an explicit reference still has nothing to match (exit 2)", async () => {
    const r = await cliOut(["path", F, "--leaf", "@2"]);
    expect(r.code).toBe(2);
  });
});

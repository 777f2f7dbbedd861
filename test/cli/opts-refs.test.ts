import { describe, expect, it } from "vitest";
import { fixture, spawnCli } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

// Issue 26, item 13: `show FILE label:NAME` for a cleared label and `@999` past the end said only "no entry
// matches"; now the message says which. Issue 32, item 16: `@0x10` was read as line 16 (Number()); only decimal
// digits are a line now. labels.jsonl (10 lines): the header; c0000001; label "start" on it (line 3), then "old"
// (line 4); a blank line 5; the label cleared (line 6); "ghost" on an id the file lacks (line 7); a line of prose
// (8); c0000008 (9) and "now" on it (10).
const F = fixture("opts", "labels.jsonl");
const P = `pisess: ${F}: `;

const CASES: [ref: string, message: string][] = [
  ["label:old", 'label "old" was cleared at line 6 (set at line 4)'],
  ["label:start", 'label "start" (set at line 3) was replaced at line 4 by "old"'],
  ["label:ghost", 'label "ghost" (line 7) names entry zzzz9999, which is not in the file'],
  ["label:nope", 'no label "nope" in the file (pisess labels lists them)'],
  ["@999", "line 999 is past the end (the file has 10 lines)"],
  ["@11", "line 11 is past the end (the file has 10 lines)"],
  ["@1", "line 1 holds no entry (it is the session header)"],
  ["@5", "line 5 holds no entry (it is blank)"],
  ["@0x10", '"@0x10" is not a line reference (use @LINE with a line number ≥ 1)'],
  ["@1e1", '"@1e1" is not a line reference (use @LINE with a line number ≥ 1)'],
  ["@+2", '"@+2" is not a line reference (use @LINE with a line number ≥ 1)'],
  ["@ 2", '"@ 2" is not a line reference (use @LINE with a line number ≥ 1)'],
];

describe("a reference that matches nothing says why", () => {
  for (const [ref, message] of CASES)
    it(`show ${ref}`, async () => {
      const r = ref === "label:old" ? spawnCli(["show", F, ref]) : await cliOut(["show", F, ref]);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`${P}${message}\n`);
      expect(r.code).toBe(2);
    });

  it("every command that takes a reference says the same (path --leaf @8: a line that is not JSON)", async () => {
    const r = await cliOut(["path", F, "--leaf", "@8"]);
    expect(r.stderr).toBe(`${P}line 8 holds no entry (it is not valid JSON)\n`);
    expect(r.code).toBe(2);
    const t = await cliOut(["tree", F, "--leaf", "label:old"]);
    expect(t.stderr).toBe(`${P}label "old" was cleared at line 6 (set at line 4)\n`);
  });

  it("references that match still resolve: label:now, @9, @09", async () => {
    for (const ref of ["label:now", "@9", "@09"]) {
      const r = await cliOut(["show", F, ref, "--json"]);
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as { id: string }).id).toBe("c0000008");
    }
  });
});

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectGolden, UPDATE } from "../support/golden.js";
import { ROOT } from "../support/helpers.js";
import { formatScenario, parseScenario, type Scenario, scenarioName } from "../support/snapshot-file.js";

describe.skipIf(UPDATE)("golden files and snapshots are written only by npm run test:update", () => {
  it("a missing golden file fails, and is not written", () => {
    const name = "no-such-golden-file.txt";
    expect(() => expectGolden(name, "output\n")).toThrow(/no-such-golden-file\.txt is missing: npm run test:update writes it/);
    expect(existsSync(join(ROOT, "test", "golden", name))).toBe(false);
  });

  it("a golden file that differs fails", () => {
    expect(() => expectGolden("validate-clean.txt", "not what validate wrote\n")).toThrow();
  });
});

describe("snapshot scenario files (test/support/snapshot-file.ts)", () => {
  const cases: Scenario[] = [
    { command: "pisess tree s.jsonl", from: ["README.md"], stdout: "a\nb\n", stderr: "", exitCode: 0 },
    { command: "pisess x | jq -r '.a\n  | .b'", from: ["README.md", "docs/x.md"], stdout: "no end", stderr: "w\n", exitCode: 1 },
    { command: "pisess export s.jsonl", from: [], stdout: "```md\n````\n", stderr: "\n\n", exitCode: null },
    { command: "pisess schema", from: ["docs/schema.md"], stdout: "", stderr: "(no newline at end)", exitCode: 2 },
  ];
  it.each(cases.map((c) => [c.command, c] as const))("reads back what it writes: %s", (_name, c) => {
    expect(parseScenario(formatScenario(c))).toStrictEqual(c);
  });

  it("holds the command as typed, the output, and the exit code in Markdown", () => {
    expect(formatScenario({ command: "pisess ls", from: ["README.md"], stdout: "x\n", stderr: "", exitCode: 0 })).toBe(
      "# pisess ls\n\nFrom: README.md\n\n```sh\n$ pisess ls\n```\n\nstdout:\n\n```\nx\n```\n\nstderr:\n\n```\n```\n\nExit code: 0\n",
    );
  });

  it("names a scenario after its command, and two commands apart", () => {
    expect(scenarioName("pisess tree session.jsonl --json | jq .leaf   # the leaf")).toMatch(
      /^tree-session-jsonl-json-jq-leaf-[0-9a-f]{6}\.md$/,
    );
    expect(scenarioName("pisess info a.jsonl")).not.toBe(scenarioName("pisess info a.jsonl --json"));
  });

  it("refuses a file that is not a scenario", () => {
    expect(() => parseScenario("# nothing here\n")).toThrow(/not a snapshot scenario/);
  });
});

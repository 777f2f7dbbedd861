import { describe, expect, it } from "vitest";
import { spawnCli } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

// Issue 26, item 12: `pisess` alone printed two lines that said the same thing ("Name a command; see pisess --help"
// and "Run pisess --help for usage."). Now one line: the commands to choose from and where they are described.
describe("pisess with no command", () => {
  it("one line naming the commands, exit 2", () => {
    const r = spawnCli([]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "pisess: no command given; one of: tree, path, context, export, diff, follow, ls, info, leaves, show, labels, " +
        "lineage, grep, bloat, budget, compactions, validate, secrets, schema, usage, tables, sql, index (pisess --help describes each)\n",
    );
    expect(r.code).toBe(2);
  });

  it("with only global options, the same line", async () => {
    const r = await cliOut(["--color", "never"]);
    expect(r.stderr.split("\n")).toHaveLength(2);
    expect(r.stderr).toMatch(/^pisess: no command given; one of: tree, /);
    expect(r.code).toBe(2);
  });

  it("other usage errors keep their pointer to the help", async () => {
    const r = await cliOut(["nosuchcommand"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\nRun pisess --help for usage\.\n$/);
  });
});

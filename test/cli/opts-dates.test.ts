import { describe, expect, it } from "vitest";
import { fixture, spawnCli } from "../support/helpers.js";
import { cliOut } from "../support/inproc.js";

// Issue 26, item 7, and issue 32, item 16: `usage --since/--until` took an impossible date (2025-13-45 rolled over
// to 2026-02-14 and a total was printed), a range ending before it starts (an empty table, without a word), and
// 20261121 though the message asks for YYYY-MM-DD. Each is exit 2 with one line. usage is the one command with
// --since/--until.
const F = fixture("tree", "branched.jsonl");

const BAD: [args: string[], line: string][] = [
  [["--since", "2025-13-45"], 'pisess: --since: "2025-13-45" is not a date on the calendar\n'],
  [["--until", "2025-02-29"], 'pisess: --until: "2025-02-29" is not a date on the calendar\n'],
  [["--since", "2025-04-31"], 'pisess: --since: "2025-04-31" is not a date on the calendar\n'],
  [["--since", "2025-00-10"], 'pisess: --since: "2025-00-10" is not a date on the calendar\n'],
  [["--since", "0000-00-00"], 'pisess: --since: "0000-00-00" is not a date on the calendar\n'],
  [["--since", "20261121"], 'pisess: --since wants a date YYYY-MM-DD, not "20261121"\n'],
  [["--until", "2026-1121"], 'pisess: --until wants a date YYYY-MM-DD, not "2026-1121"\n'],
  [["--until", "2026-11-1"], 'pisess: --until wants a date YYYY-MM-DD, not "2026-11-1"\n'],
  [["--since", "2025-02-01", "--until", "2025-01-31"], "pisess: --since 2025-02-01 is after --until 2025-01-31: no day is in that range\n"],
];

describe("usage --since/--until", () => {
  for (const [args, line] of BAD)
    it(`${args.join(" ")}: exit 2, one line`, async () => {
      const r = args === BAD[0]?.[0] ? spawnCli(["usage", F, ...args]) : await cliOut(["usage", F, ...args]);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(line);
      expect(r.code).toBe(2);
    });

  it("real dates still work: a leap day, one day as the whole range", async () => {
    // The fixture's turns are all on 2025-01-01.
    const leap = await cliOut(["usage", F, "--since", "2024-02-29", "--json"]);
    expect(leap.code).toBe(0);
    expect((JSON.parse(leap.stdout) as { totals: { turns: number } }).totals.turns).toBe(3);
    const one = await cliOut(["usage", F, "--since", "2025-01-01", "--until", "2025-01-01", "--json"]);
    expect((JSON.parse(one.stdout) as { totals: { turns: number } }).totals.turns).toBe(3);
  });
});

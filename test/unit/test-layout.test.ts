import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/helpers.js";

/** Every file under test/, as a path relative to it. */
function testTree(): string[] {
  return readdirSync(join(ROOT, "test"), { recursive: true, encoding: "utf8" }).map((f) => f.split("\\").join("/"));
}

describe("test/ is sorted by kind (test/README.md)", () => {
  it("every test file is in unit/, cli/, equivalence/ or snapshots/", () => {
    const misplaced = testTree().filter((f) => f.endsWith(".test.ts") && !/^(unit|cli|equivalence|snapshots)\//.test(f));
    expect(misplaced).toEqual([]);
  });

  it("helpers are in support/, not beside the tests", () => {
    const loose = testTree().filter((f) => /\.(ts|mjs|js)$/.test(f) && !f.endsWith(".test.ts") && !f.startsWith("support/"));
    expect(loose).toEqual([]);
  });
});

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { ROOT } from "./helpers.js";

/**
 * Compares output with test/golden/NAME. Golden files are reviewed by hand when created or changed:
 * run with UPDATE_GOLDEN=1 to (re)write them, then read the diff before committing.
 */
export function expectGolden(name: string, actual: string): void {
  const path = join(ROOT, "test", "golden", name);
  if (process.env.UPDATE_GOLDEN === "1" || !existsSync(path)) {
    if (process.env.CI) throw new Error(`golden file ${name} is missing (CI never writes golden files)`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual).toBe(readFileSync(path, "utf8"));
}

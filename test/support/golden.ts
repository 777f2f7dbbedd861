import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { ROOT } from "./helpers.js";

/** Set by `npm run test:update` (scripts/test-update.mjs); UPDATE_GOLDEN=1 is the older name. */
export const UPDATE = process.env.PISESS_UPDATE_SNAPSHOTS === "1" || process.env.UPDATE_GOLDEN === "1";

/**
 * Compares output with test/golden/NAME. A missing golden file fails, as a different one does: golden files are
 * written only by `npm run test:update` (then read the diff before committing).
 */
export function expectGolden(name: string, actual: string): void {
  const path = join(ROOT, "test", "golden", name);
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  expect(existsSync(path), `test/golden/${name} is missing: npm run test:update writes it`).toBe(true);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

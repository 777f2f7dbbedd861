import { isDeepStrictEqual } from "node:util";
import { describe, expect, it, vi } from "vitest";
import type { EntryRec } from "../../src/model/detail.js";
import { skeletonFieldsOf } from "../../src/model/fields.js";
import { sessionFiles, sessionView } from "../support/helpers.js";

// Without WebAssembly (a runtime that lacks it or its SIMD) the byte scanner is unavailable: every line takes the
// ordinary path (JSON.parse), with the same records. The modules are loaded afresh for each phase (vi.resetModules),
// so the scanner of the first never sees WebAssembly and that of the second does.
// The ordinary path may fill more than a skeleton load promises; the skeleton's fields are compared.
const view = (rec: EntryRec): unknown => {
  const r = rec as Record<string, unknown>;
  return Object.fromEntries(
    skeletonFieldsOf(rec.type)
      .filter((f) => r[f] !== undefined)
      .map((f) => [f, r[f]]),
  );
};

describe("a load without WebAssembly", () => {
  it("gives the records a load with it gives, for every fixture", async () => {
    vi.resetModules();
    const saved = globalThis.WebAssembly;
    (globalThis as { WebAssembly?: unknown }).WebAssembly = undefined;
    const without = await import("../../src/model/load.js");
    const { isStringifyFormBytes } = await import("../../src/io/scan/form.js");
    const plain = Buffer.from('{"a":1}');
    // Nothing is known to be in JSON.stringify's form without the scanner.
    expect(isStringifyFormBytes(plain, 0, plain.length)).toBe(false);
    const files = sessionFiles();
    const loadedWithout = [];
    for (const f of files) loadedWithout.push(await without.loadSession({ kind: "file", path: f }, { detail: "skeleton" }));
    globalThis.WebAssembly = saved;
    vi.resetModules();
    const withWasm = await import("../../src/model/load.js");
    const form = await import("../../src/io/scan/form.js");
    // The scanner of this phase has WebAssembly (its modules are not the first phase's).
    expect(form.isStringifyFormBytes(plain, 0, plain.length)).toBe(true);
    let compared = 0;
    for (let i = 0; i < files.length; i++) {
      const a = loadedWithout[i];
      const b = await withWasm.loadSession({ kind: "file", path: files[i] as string }, { detail: "skeleton" });
      const va = sessionView(a as never, view);
      const vb = sessionView(b, view);
      if (!isDeepStrictEqual(va, vb)) expect(va, files[i]).toEqual(vb);
      compared++;
    }
    expect(compared).toBeGreaterThan(50);
  });
});

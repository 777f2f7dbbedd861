import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import { describe, expect, it, vi } from "vitest";
import * as generated from "../../src/check/schema-validators.generated.js";
import { sessionFiles } from "../support/helpers.js";
import { expectEqual } from "../support/expect-fast.js";

// The validators `validate` runs are generated at build time (scripts/gen-validators.mjs). These tests hold them to
// what ajv compiles from the shipped schemas/ at run time, so the two cannot drift apart.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const schemaDir = join(root, "schemas");

function runtimeCatalogue(): { header: ValidateFunction; entry: ValidateFunction } {
  const index = JSON.parse(readFileSync(join(schemaDir, "index.json"), "utf8")) as { baseUri: string; schemas: { file: string }[] };
  // The options scripts/gen-validators.mjs generates with (minus code generation).
  const ajv = new Ajv({ allErrors: true });
  for (const item of index.schemas) ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, item.file), "utf8")) as object);
  const get = (name: string): ValidateFunction => {
    const v = ajv.getSchema(`${index.baseUri}${name}.json`);
    if (!v) throw new Error(`schema ${name} missing`);
    return v;
  };
  return { header: get("header"), entry: get("entry") };
}

/** Every JSON value on a line of a fixture, plus a few broken copies of each object so invalid data is covered. */
function* samples(): Generator<[string, unknown]> {
  for (const file of sessionFiles(join(root, "fixtures"))) {
    const lines = readFileSync(file, "utf8").split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i]!.replace(/^\uFEFF/, "");
      if (text.trim() === "") continue;
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        continue;
      }
      const where = `${file.slice(root.length + 1)}:${i + 1}`;
      yield [where, v];
      if (v === null || typeof v !== "object" || Array.isArray(v)) continue;
      const o = v as Record<string, unknown>;
      yield [`${where} (no type)`, { ...o, type: undefined }];
      yield [`${where} (numeric id)`, { ...o, id: 7, parentId: 8, timestamp: 9 }];
      if (o.message && typeof o.message === "object") {
        yield [`${where} (message content number)`, { ...o, message: { ...(o.message as object), content: 5, role: 1 } }];
      }
    }
  }
}

describe("generated schema validators", () => {
  it("are what scripts/gen-validators.mjs makes of schemas/ today", async () => {
    // The script's generate() in this worker, compared as its --check does: no process to start, ajv already loaded.
    // Anything ajv would print (strict-mode warnings go to the console) is caught: its --check run printed nothing.
    const script = join(root, "scripts", "gen-validators.mjs");
    const { generate } = (await import(script)) as { generate: () => string };
    const said: unknown[][] = [];
    const spies = (["warn", "error", "log"] as const).map((m) => vi.spyOn(console, m).mockImplementation((...a) => void said.push(a)));
    let text: string;
    try {
      text = generate();
    } finally {
      for (const s of spies) s.mockRestore();
    }
    expectEqual(said, []);
    expect(
      text === readFileSync(join(root, "src", "check", "schema-validators.generated.ts"), "utf8"),
      "the generated file is out of date with schemas/; run npm run build",
    ).toBe(true);
  });

  it("agree with ajv's run-time compilation on every fixture line, valid and invalid, errors included", () => {
    const runtime = runtimeCatalogue();
    const gen = { header: generated.header as unknown as ValidateFunction, entry: generated.entry as unknown as ValidateFunction };
    const counts = { valid: 0, invalid: 0 };
    for (const [where, value] of samples()) {
      for (const kind of ["header", "entry"] as const) {
        const want = runtime[kind](value);
        const got = gen[kind](value);
        if (got !== want || JSON.stringify(gen[kind].errors ?? null) !== JSON.stringify(runtime[kind].errors ?? null)) {
          expectEqual({ where, kind, valid: got, errors: gen[kind].errors }, { where, kind, valid: want, errors: runtime[kind].errors });
        }
        counts[want ? "valid" : "invalid"]++;
      }
    }
    // Both outcomes are exercised, many times over.
    expect(counts.valid).toBeGreaterThan(1000);
    expect(counts.invalid).toBeGreaterThan(1000);
  });
});

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";

// The layers, lowest first. A module may import from its own layer and the ones before it, never after.
const LAYERS = ["io", "model", "ops", "check", "render", "commands"] as const;
const SRC = join(ROOT, "src");

function modules(): { layer: string; file: string; text: string }[] {
  const out: { layer: string; file: string; text: string }[] = [];
  for (const layer of LAYERS) {
    for (const f of readdirSync(join(SRC, layer))) {
      if (f.endsWith(".ts")) out.push({ layer, file: `${layer}/${f}`, text: readFileSync(join(SRC, layer, f), "utf8") });
    }
  }
  return out;
}

function imports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) found.push(m[1] as string);
  return found;
}

describe("layers point one way", () => {
  it("no module imports from a later layer", () => {
    const bad: string[] = [];
    for (const { layer, file, text } of modules()) {
      for (const spec of imports(text)) {
        const m = /^\.\.\/(\w+)\//.exec(spec);
        if (!m) continue;
        const target = m[1] as (typeof LAYERS)[number];
        if (LAYERS.indexOf(target) > LAYERS.indexOf(layer as (typeof LAYERS)[number])) bad.push(`${file} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("model and ops never touch process, chalk or yargs", () => {
    const bad: string[] = [];
    for (const { layer, file, text } of modules()) {
      if (layer !== "model" && layer !== "ops") continue;
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      if (/\bprocess\./.test(code)) bad.push(`${file}: process`);
      for (const spec of imports(text)) if (/^(chalk|yargs)/.test(spec)) bad.push(`${file}: ${spec}`);
    }
    expect(bad).toEqual([]);
  });
});

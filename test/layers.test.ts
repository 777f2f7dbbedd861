import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";

// The layers, lowest first. A module may import from its own layer and the ones before it, never after.
const LAYERS = ["io", "model", "ops", "check", "render", "reports", "commands"] as const;
const SRC = join(ROOT, "src");

function modules(): { layer: string; file: string; text: string }[] {
  const out: { layer: string; file: string; text: string }[] = [];
  for (const layer of LAYERS) {
    // Sub-folders (io/scan) belong to their layer.
    for (const f of readdirSync(join(SRC, layer), { recursive: true, encoding: "utf8" })) {
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
        if (!spec.startsWith(".")) continue;
        // The layer of the imported file: the first folder of its path under src/.
        const target = posix.join(dirname(file), spec).split("/")[0] as (typeof LAYERS)[number];
        if (LAYERS.indexOf(target) > LAYERS.indexOf(layer as (typeof LAYERS)[number])) bad.push(`${file} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("the byte scanners and JSON lexers (src/io/scan) are reached only through the loader and the store", () => {
    // io/scan is the one place for routines that read raw bytes or lex JSON text; above io only the model's loader
    // and store modules reach it, and ops, check, reports, render, web and commands import none of it.
    const GATES = new Set(["model/load.ts", "model/skeleton.ts", "model/store-text.ts", "model/bloat-bytes.ts", "model/types.ts"]);
    const bad: string[] = [];
    const files = [...modules()];
    for (const f of readdirSync(join(SRC, "web"), { recursive: true, encoding: "utf8" }))
      if (f.endsWith(".ts")) files.push({ layer: "web", file: `web/${f}`, text: readFileSync(join(SRC, "web", f), "utf8") });
    for (const { layer, file, text } of files) {
      if (layer === "io") continue;
      for (const spec of imports(text)) {
        if (!spec.startsWith(".")) continue;
        const target = posix.join(dirname(file), spec);
        if (target.startsWith("io/scan/") && !GATES.has(file)) bad.push(`${file} → ${spec}`);
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

  it("reports never touch process, chalk or yargs (the library runs them without a CLI)", () => {
    const bad: string[] = [];
    for (const { layer, file, text } of modules()) {
      if (layer !== "reports") continue;
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      if (/\bprocess\b/.test(code)) bad.push(`${file}: process`);
      for (const spec of imports(text)) if (/^(chalk|yargs)/.test(spec)) bad.push(`${file}: ${spec}`);
    }
    expect(bad).toEqual([]);
  });

  it("no command module computes: no node:fs, no process.exitCode, no helper another command imports", () => {
    const bad: string[] = [];
    for (const { layer, file, text } of modules()) {
      if (layer !== "commands") continue;
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      for (const spec of imports(text)) {
        // common.ts is the CLI's input plumbing (stdin, the progress bar's file size); command modules read nothing.
        if (/^(node:)?fs(\/promises)?$/.test(spec) && file !== "commands/common.ts") bad.push(`${file}: imports ${spec}`);
        // Commands share only common.ts (I/O plumbing), run-state.ts (what cli.ts needs) and index.ts (the list); a helper in a command is a rule
        // that belongs in a report or below.
        const m = /^\.\/(\w[\w-]*)\.js$/.exec(spec);
        if (m && m[1] !== "common" && m[1] !== "run-state" && file !== "commands/index.ts") bad.push(`${file}: imports ./${m[1]}.js`);
      }
      if (/process\.exitCode/.test(code)) bad.push(`${file}: sets process.exitCode`);
    }
    expect(bad).toEqual([]);
  });

  it("every command has a report, and the library exports it", () => {
    const commands = readdirSync(join(SRC, "commands")).filter(
      (f) => f.endsWith(".ts") && !["common.ts", "index.ts", "run-state.ts"].includes(f),
    );
    const reports = new Set(readdirSync(join(SRC, "reports")));
    const index = readFileSync(join(SRC, "index.ts"), "utf8");
    for (const c of commands) {
      expect(reports.has(c), c).toBe(true);
      expect(index, c).toContain(`./reports/${c.replace(/\.ts$/, ".js")}`);
    }
  });

  it("cli.ts alone sets the process's exit status", () => {
    const bad: string[] = [];
    for (const { file, text } of modules()) if (/process\.exitCode\s*=/.test(text)) bad.push(file);
    expect(bad).toEqual([]);
  });
});

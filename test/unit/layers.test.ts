import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/helpers.js";

const SRC = join(ROOT, "src");

/**
 * The layers, lowest first, as docs/ARCHITECTURE.md states them (its "Layers, one direction:" paragraph, the one
 * place the order is written): the `src/<folder>` names in order, leaving out those in parentheses (examples) and
 * files (`src/cli.ts`). A module may import from its own layer and the ones before it, never after.
 */
function architectureLayers(doc: string): string[] {
  const start = doc.indexOf("Layers, one direction:");
  if (start < 0) return [];
  const end = doc.indexOf("\n\n", start);
  const paragraph = doc.slice(start, end < 0 ? undefined : end).replace(/\([^)]*\)/g, "");
  return [...paragraph.matchAll(/`src\/([\w-]+)`/g)].map((m) => m[1] as string);
}

const LAYERS = architectureLayers(readFileSync(join(ROOT, "docs", "ARCHITECTURE.md"), "utf8"));

// Imports from a later layer that other helpers of #27 remove (keyed `file → specifier`); the list empties then.
const UPWARD_ALLOWED = new Set<string>([]);

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

/** A module's text without its comments (a comment may name what the code must not use). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
}

/** The modules of `layers` whose code matches `processUse` or that import chalk or yargs, with what they use. */
function processOrCliUses(layers: readonly string[], processUse: RegExp): string[] {
  const bad: string[] = [];
  for (const { layer, file, text } of modules()) {
    if (!layers.includes(layer)) continue;
    if (processUse.test(withoutComments(text))) bad.push(`${file}: process`);
    for (const spec of imports(text)) if (/^(chalk|yargs)/.test(spec)) bad.push(`${file}: ${spec}`);
  }
  return bad;
}

describe("layers point one way", () => {
  it("the order is the one docs/ARCHITECTURE.md states, and names every folder of src/", () => {
    expect(LAYERS).toEqual(["io", "model", "ops", "check", "reports", "render", "commands"]);
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    // web/ is the export page's bundle, built apart from the CLI (scripts/build-web.mjs): not a layer of it.
    expect(folders.filter((f) => f !== "web" && !LAYERS.includes(f))).toEqual([]);
  });

  it("reads the order from the paragraph, leaving out examples in parentheses", () => {
    const doc = "# t\n\nLayers, one direction: `src/a` (see `src/a/x`) → `src/b` → `src/cli.ts`. Done.\n\n`src/c`";
    expect(architectureLayers(doc)).toEqual(["a", "b"]);
  });

  it("reports import nothing from render (render shows a report's data; the data's types live in the report)", () => {
    const bad: string[] = [];
    for (const { layer, file, text } of modules()) {
      if (layer !== "reports") continue;
      for (const spec of imports(text)) {
        if (posix.join(dirname(file), spec).startsWith("render/") && !UPWARD_ALLOWED.has(`${file} → ${spec}`))
          bad.push(`${file} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("no module imports from a later layer", () => {
    const bad: string[] = [];
    for (const { layer, file, text } of modules()) {
      for (const spec of imports(text)) {
        if (!spec.startsWith(".")) continue;
        // The layer of the imported file: the first folder of its path under src/.
        const target = posix.join(dirname(file), spec).split("/")[0] as string;
        if (LAYERS.indexOf(target) > LAYERS.indexOf(layer) && !UPWARD_ALLOWED.has(`${file} → ${spec}`)) bad.push(`${file} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("the byte scanners and JSON lexers (src/io/scan) are reached only through the loader and the store", () => {
    // io/scan is the one place for routines that read raw bytes or lex JSON text (the fleet tables' CSV byte writer
    // among them); outside it only the model's loader and store modules reach it, and ops, check, reports, render,
    // web, commands and the library's entry (src/index.ts) import none of it. In io itself only the follow tailer
    // does (it cuts what was appended with the line splitter; io cannot reach the model).
    const GATES = new Set([
      "model/load.ts",
      "model/skeleton.ts",
      "model/store-text.ts",
      "model/bloat-bytes.ts",
      "model/row-bytes.ts",
      "model/types.ts",
      "io/tail.ts",
      // The store's read-ahead window is the scanner's read region where it is free.
      "io/store.ts",
    ]);
    const files: { file: string; text: string }[] = [];
    for (const f of readdirSync(SRC, { recursive: true, encoding: "utf8" }))
      if (f.endsWith(".ts")) files.push({ file: f.split(sep).join("/"), text: readFileSync(join(SRC, f), "utf8") });
    expect(files.length).toBeGreaterThan(100);
    // A gate that no longer exists is a stale name (a new one must be listed here on purpose).
    expect([...GATES].filter((g) => !files.some((f) => f.file === g))).toEqual([]);
    const bad: string[] = [];
    for (const { file, text } of files) {
      if (file.startsWith("io/scan/")) continue;
      for (const spec of imports(text)) {
        if (!spec.startsWith(".")) continue;
        const target = posix.join(posix.dirname(file), spec);
        if (target.startsWith("io/scan/") && !GATES.has(file)) bad.push(`${file} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("model and ops never touch process, chalk or yargs", () => {
    expect(processOrCliUses(["model", "ops"], /\bprocess\./)).toEqual([]);
  });

  it("reports never touch process, chalk or yargs (the library runs them without a CLI)", () => {
    expect(processOrCliUses(["reports"], /\bprocess\b/)).toEqual([]);
  });

  it("no command module computes: no node:fs, no process.exitCode, no helper another command imports", () => {
    const bad: string[] = [];
    for (const { layer, file, text } of modules()) {
      if (layer !== "commands") continue;
      const code = withoutComments(text);
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

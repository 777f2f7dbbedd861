import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { ROOT } from "./helpers.js";

/**
 * The output schemas (schemas/output/) for tests: which schema a command line's stdout is described by
 * (`outputSchemaFor`), and a check of that stdout against it (`checkOutput`), so any test that runs a command with a
 * JSON output (snapshots included) can hold its output to the contract.
 */

const OUT = join(ROOT, "schemas", "output");

export interface OutputSchemaItem {
  name: string;
  file: string;
  $id: string;
  output: string;
  kind: "document" | "line";
}

export const OUTPUT_SCHEMAS = (JSON.parse(readFileSync(join(OUT, "index.json"), "utf8")) as { schemas: OutputSchemaItem[] }).schemas;

let validators: Map<string, ValidateFunction> | null = null;

/** Every output schema compiled in one ajv (with the input schemas export's lines refer to), strict. */
export function outputValidators(): Map<string, ValidateFunction> {
  if (validators) return validators;
  // strict: a schema with an unknown keyword or a mistake ajv can see fails to compile, not to check.
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  const input = JSON.parse(readFileSync(join(ROOT, "schemas", "index.json"), "utf8")) as { schemas: { file: string }[] };
  for (const s of input.schemas) ajv.addSchema(JSON.parse(readFileSync(join(ROOT, "schemas", s.file), "utf8")));
  for (const s of OUTPUT_SCHEMAS) ajv.addSchema(JSON.parse(readFileSync(join(OUT, s.file), "utf8")));
  validators = new Map(OUTPUT_SCHEMAS.map((s) => [s.name, ajv.getSchema(s.$id) as ValidateFunction]));
  return validators;
}

/** The value of an option in argv (`--format X`, `--format=X`, `-f X`), or undefined. */
function optionValue(args: readonly string[], long: string, short?: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === `--${long}` || (short !== undefined && a === `-${short}`)) return args[i + 1];
    if (a.startsWith(`--${long}=`)) return a.slice(long.length + 3);
  }
  return undefined;
}

/**
 * The output schema of `pisess ARGS`' stdout, or null when it prints no JSON (text, or a file). ARGS as given to the
 * CLI, command first.
 */
export function outputSchemaFor(args: readonly string[]): string | null {
  const command = args[0];
  const has = (flag: string) => args.includes(flag);
  const json = has("--json");
  const ndjson = has("--ndjson");
  const line = (name: string) => (json ? name : ndjson ? `${name}.ndjson-line` : null);
  switch (command) {
    case "tree":
    case "path":
    case "context":
    case "ls":
    case "leaves":
    case "lineage":
    case "grep":
    case "usage":
    case "sql":
      return line(command);
    case "labels":
      return line(has("--history") ? "labels-history" : "labels");
    case "diff":
      return json ? (has("--leaves") ? "diff-leaves" : "diff") : null;
    case "info":
    case "show":
    case "bloat":
    case "compactions":
    case "budget":
      return json && !has("--raw") ? command : null;
    case "follow":
      return ndjson ? "follow.ndjson-line" : null;
    case "index":
      return json ? "index-update" : null;
    case "validate": {
      const format = optionValue(args, "format", "f");
      return format === "json" ? "validate" : format === "ndjson" ? "validate.ndjson-line" : format === "sarif" ? "validate.sarif" : null;
    }
    case "secrets": {
      const format = json ? "json" : optionValue(args, "format", "f");
      return format === "json" ? "secrets" : format === "ndjson" ? "secrets.ndjson-line" : format === "sarif" ? "secrets.sarif" : null;
    }
    case "export": {
      const out = optionValue(args, "output", "o");
      const toStdout = out === undefined || out === "-";
      return toStdout && optionValue(args, "format") === "jsonl" ? "export.jsonl-line" : null;
    }
    default:
      return null;
  }
}

/**
 * Checks stdout against the schema `name`: one JSON document, or (a line schema) every non-empty line. Returns the
 * number of documents or lines checked; throws with ajv's first errors (instance paths) when one is not valid.
 */
export function checkOutput(name: string, stdout: string, where = name): number {
  const item = OUTPUT_SCHEMAS.find((s) => s.name === name);
  const v = outputValidators().get(name);
  if (!item || !v) throw new Error(`no output schema ${name}`);
  const values = item.kind === "document" ? [stdout] : stdout.split("\n").filter((l) => l !== "");
  values.forEach((text, i) => {
    const at = item.kind === "document" ? where : `${where} line ${i + 1}`;
    if (!v(JSON.parse(text))) {
      const errors = (v.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
      throw new Error(`${at}: not valid against schemas/output/${item.file}:\n  ${errors.join("\n  ")}`);
    }
  });
  return values.length;
}

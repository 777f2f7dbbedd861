import { existsSync, readFileSync } from "node:fs";
import type { ErrorObject } from "ajv";
import * as generated from "./schema-validators.generated.js";

/**
 * The JSON Schema catalogue shipped in `schemas/` (package export `pisess/schemas/*`). The validators are compiled
 * from it at build time (scripts/gen-validators.mjs, ajv standalone code), so a run neither loads ajv nor compiles
 * anything; test/equivalence/schema-validators.test.ts holds them to what ajv compiles from the schemas at run time.
 */

/** A validator as ajv generates it: true when valid; otherwise `errors` holds why. */
export interface ValidateFunction {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

interface IndexItem {
  name: string;
  file: string;
  $id: string;
  kind: string;
}
interface SchemaIndex {
  baseUri: string;
  schemas: IndexItem[];
  knownKeys: string;
}

/** The schemas/ folder: two levels up from src/check or dist/check. */
function schemaDir(): URL {
  const here = new URL("../../schemas/", import.meta.url);
  if (existsSync(new URL("index.json", here))) return here;
  throw new Error("pisess: schemas/ folder not found next to the package");
}

let indexCache: SchemaIndex | null = null;
function schemaIndex(): SchemaIndex {
  indexCache ??= JSON.parse(readFileSync(new URL("index.json", schemaDir()), "utf8")) as SchemaIndex;
  return indexCache;
}

/** The output schemas (schemas/output/index.json: one per --json document or --ndjson line), named output/NAME. */
const OUTPUT = "output/";
let outputCache: IndexItem[] | null = null;
function outputSchemas(): IndexItem[] {
  outputCache ??= (JSON.parse(readFileSync(new URL(`${OUTPUT}index.json`, schemaDir()), "utf8")) as { schemas: IndexItem[] }).schemas;
  return outputCache;
}

/** Every schema name, in catalogue order (index.json), then the output schemas as output/NAME. */
export function schemaNames(): string[] {
  return [...schemaIndex().schemas.map((s) => s.name), ...outputSchemas().map((s) => OUTPUT + s.name)];
}

/** The file text of one schema, by name ("header", "output/tree") or file name ("header.json"); undefined when unknown. */
export function schemaText(name: string): string | undefined {
  const bare = name.endsWith(".json") ? name.slice(0, -5) : name;
  const output = bare.startsWith(OUTPUT);
  const items = output ? outputSchemas() : schemaIndex().schemas;
  const item = items.find((s) => s.name === (output ? bare.slice(OUTPUT.length) : bare));
  if (!item) return undefined;
  return readFileSync(new URL((output ? OUTPUT : "") + item.file, schemaDir()), "utf8");
}

export interface Catalogue {
  header: ValidateFunction;
  entry: ValidateFunction;
  /** Property names each object schema knows (known-keys.json), by schema name. */
  knownKeys: ReadonlyMap<string, ReadonlySet<string>>;
}

let catalogue: Catalogue | null = null;

/** The compiled validators; compiled once per process. */
export function loadCatalogue(): Catalogue {
  if (catalogue) return catalogue;
  const dir = schemaDir();
  const index = schemaIndex();
  const rawKeys = JSON.parse(readFileSync(new URL(index.knownKeys, dir), "utf8")) as Record<string, string[]>;
  const knownKeys = new Map<string, ReadonlySet<string>>();
  for (const [k, v] of Object.entries(rawKeys)) knownKeys.set(k, new Set(v));
  catalogue = {
    header: generated.header as unknown as ValidateFunction,
    entry: generated.entry as unknown as ValidateFunction,
    knownKeys,
  };
  return catalogue;
}

export interface SchemaError {
  /** JSON pointer of the offending value ("" for the whole line). */
  path: string;
  keyword: string;
  message: string;
  /** For `required`: the missing property. */
  missing?: string;
}

/**
 * Ajv's errors, minus the noise of the if/then dispatch ("must match then schema" repeats the real error) and
 * duplicates.
 */
export function schemaErrors(errors: ErrorObject[] | null | undefined): SchemaError[] {
  const out: SchemaError[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    if (e.keyword === "if") continue;
    const message = e.message ?? e.keyword;
    const key = `${e.instancePath}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const err: SchemaError = { path: e.instancePath, keyword: e.keyword, message };
    const missing = (e.params as { missingProperty?: unknown }).missingProperty;
    if (e.keyword === "required" && typeof missing === "string") err.missing = missing;
    out.push(err);
  }
  return out;
}

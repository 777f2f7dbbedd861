#!/usr/bin/env node
// Generates schemas/output/ (one JSON Schema, draft-07 like schemas/, per --json document or --ndjson line, plus
// index.json and README.md) from the wire types named in src/render/wire.ts, with ts-json-schema-generator.
// TypeScript 7 has no compiler API; the generator brings its own TypeScript 5 (a devDependency of its own),
// which only parses the types here: the project is still compiled by TypeScript 7.
//
//   node scripts/gen-output-schemas.mjs           write the files (npm run schemas:output)
//   node scripts/gen-output-schemas.mjs --check   exit 1 if a file is missing, stale or extra (test/cli/output-schemas.test.ts)
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "schemas", "output");
const BASE = "https://pisess.dev/schemas/output/";

/**
 * Every output shape: the schema's name, the command and flags that print it, whether it is one document or one
 * line of a stream, and the wire type it is generated from (or, for export's lines, the input schemas it reuses).
 */
export const SHAPES = [
  { name: "tree", output: "tree --json", kind: "document", type: "TreeJsonDocument" },
  { name: "tree.ndjson-line", output: "tree --ndjson", kind: "line", type: "TreeNdjsonLine" },
  { name: "path", output: "path --json", kind: "document", type: "PathJson" },
  { name: "path.ndjson-line", output: "path --ndjson", kind: "line", type: "PathItemJson" },
  { name: "context", output: "context --json", also: "also with --llm", kind: "document", type: "ContextJson" },
  { name: "context.ndjson-line", output: "context --ndjson", also: "also with --llm", kind: "line", type: "ContextNdjsonLine" },
  { name: "diff", output: "diff --json", also: "paths, or contexts with --context", kind: "document", type: "DiffJson" },
  { name: "diff-leaves", output: "diff --leaves --json", kind: "document", type: "DiffLeavesJson" },
  { name: "ls", output: "ls --json", kind: "document", type: "LsJson" },
  { name: "ls.ndjson-line", output: "ls --ndjson", kind: "line", type: "LsRow" },
  { name: "info", output: "info --json", kind: "document", type: "InfoReport" },
  { name: "leaves", output: "leaves --json", kind: "document", type: "LeavesJson" },
  { name: "leaves.ndjson-line", output: "leaves --ndjson", kind: "line", type: "LeafRow" },
  { name: "show", output: "show --json", also: "an entry, or a line the loader skipped", kind: "document", type: "ShowJson" },
  { name: "labels", output: "labels --json", kind: "document", type: "LabelsJson" },
  { name: "labels.ndjson-line", output: "labels --ndjson", kind: "line", type: "LabelRow" },
  { name: "labels-history", output: "labels --history --json", kind: "document", type: "LabelsHistoryJson" },
  { name: "labels-history.ndjson-line", output: "labels --history --ndjson", kind: "line", type: "LabelChange" },
  { name: "lineage", output: "lineage --json", kind: "document", type: "LineageReport" },
  { name: "lineage.ndjson-line", output: "lineage --ndjson", kind: "line", type: "LineageNdjsonLine" },
  { name: "grep", output: "grep --json", kind: "document", type: "GrepJson" },
  { name: "grep.ndjson-line", output: "grep --ndjson", kind: "line", type: "GrepHitJson" },
  { name: "validate", output: "validate --format json", kind: "document", type: "ValidateJson" },
  { name: "validate.ndjson-line", output: "validate --format ndjson", kind: "line", type: "ValidateNdjsonLine" },
  { name: "validate.sarif", output: "validate --format sarif", kind: "document", type: "SarifLog" },
  { name: "secrets", output: "secrets --format json", also: "also --json", kind: "document", type: "SecretsJson" },
  { name: "secrets.ndjson-line", output: "secrets --format ndjson", kind: "line", type: "ValidateNdjsonLine" },
  { name: "secrets.sarif", output: "secrets --format sarif", kind: "document", type: "SarifLog" },
  { name: "bloat", output: "bloat --json", kind: "document", type: "BloatData" },
  { name: "compactions", output: "compactions --json", kind: "document", type: "CompactionsData" },
  { name: "budget", output: "budget --json", also: "also with --path", kind: "document", type: "BudgetReport" },
  { name: "usage", output: "usage --json", kind: "document", type: "UsageJson" },
  { name: "usage.ndjson-line", output: "usage --ndjson", kind: "line", type: "UsageRowJson" },
  { name: "sql", output: "sql --json", kind: "document", type: "SqlJson" },
  { name: "sql.ndjson-line", output: "sql --ndjson", kind: "line", type: "SqlRowJson" },
  { name: "index-update", output: "index --json", kind: "document", type: "IndexJson" },
  { name: "follow.ndjson-line", output: "follow --ndjson", kind: "line", type: "FollowNdjsonLine" },
  { name: "export.jsonl-line", output: "export --format jsonl", kind: "line", type: null },
];

/** export --format jsonl writes a session file: its lines are the input schemas' header and entries. */
const EXPORT_LINE = {
  anyOf: [{ $ref: "../header.json" }, { $ref: "../entry.json" }],
};

async function generateSchemas() {
  const { createGenerator } = await import("ts-json-schema-generator");
  const generator = createGenerator({
    path: join(ROOT, "src", "render", "wire.ts"),
    tsconfig: join(ROOT, "tsconfig.json"),
    type: "*",
    expose: "export",
    topRef: false,
    jsDoc: "extended",
    // Closed objects: a key a renderer adds without a type change fails the tests.
    additionalProperties: false,
    skipTypeCheck: true,
    sortProps: false,
  });
  const files = new Map();
  for (const shape of SHAPES) {
    const made = shape.type === null ? EXPORT_LINE : generator.createSchema(shape.type);
    const { $schema: _drop, description, definitions, ...rest } = made;
    const what = shape.kind === "line" ? "one line of" : "the document of";
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      $id: `${BASE}${shape.name}.json`,
      title: `pisess ${shape.output}${shape.also ? ` (${shape.also})` : ""}`,
      description: `${description ? `${description} ` : ""}(Schema of ${what} \`pisess ${shape.output}\`${shape.type ? `, generated from src/render/wire.ts ${shape.type}` : ""}.)`,
      ...rest,
      ...(definitions && Object.keys(definitions).length > 0 ? { definitions } : {}),
    };
    files.set(`${shape.name}.json`, `${JSON.stringify(schema, null, 2)}\n`);
  }
  const index = {
    $comment:
      "Output schemas of pisess: one per --json document or --ndjson line. Generated by scripts/gen-output-schemas.mjs from src/render/wire.ts; do not edit.",
    baseUri: BASE,
    schemas: SHAPES.map((s) => ({ name: s.name, file: `${s.name}.json`, $id: `${BASE}${s.name}.json`, output: s.output, kind: s.kind })),
  };
  files.set("index.json", `${JSON.stringify(index, null, 2)}\n`);
  files.set("README.md", readme());
  return files;
}

function readme() {
  const rows = SHAPES.map(
    (s) =>
      `| \`pisess ${s.output}\`${s.also ? ` (${s.also})` : ""} | ${s.kind === "line" ? "each line" : "the document"} | [${s.name}.json](${s.name}.json) |`,
  );
  return `# Output schemas

JSON Schemas (draft-07, like the input schemas in \`schemas/\`) of every \`--json\` document and \`--ndjson\` line pisess
prints. Generated from the wire types in \`src/render/wire.ts\` by \`npm run schemas:output\`; do not edit by hand.
\`test/cli/output-schemas.test.ts\` runs every command over the fixtures and validates its output against these schemas
(objects are closed: a key not in the schema fails), and fails when a command gains a JSON output without one.

Each schema's \`$id\` is \`${BASE}NAME.json\`; \`export.jsonl-line.json\` refers to the input schemas
\`../header.json\` and \`../entry.json\`, so load those too (see \`schemas/index.json\`). The rows \`tables --format ndjson\`
writes are described by \`schemas/tables/\`. \`pisess schema output/NAME\` prints one (\`pisess schema\` lists them).
Numbers are JSON numbers: the schemas do not tell integers (lines, counts) from other numbers.

| Output | Validates | Schema |
| --- | --- | --- |
${rows.join("\n")}
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = await generateSchemas();
  if (process.argv.includes("--check")) {
    const stale = [];
    for (const [name, text] of files) {
      let now = "";
      try {
        now = readFileSync(join(OUT, name), "utf8");
      } catch {}
      if (now !== text) stale.push(name);
    }
    for (const name of readdirSync(OUT)) if (!files.has(name)) stale.push(`${name} (not generated)`);
    if (stale.length > 0) {
      console.error(`gen-output-schemas: schemas/output is out of date (${stale.join(", ")}); run npm run schemas:output`);
      process.exit(1);
    }
  } else {
    for (const [name, text] of files) writeFileSync(join(OUT, name), text);
  }
}

import type { Argv, CommandModule } from "yargs";
import type { GlobalArgs } from "./common.js";

interface SchemaArgs extends GlobalArgs {
  name?: string;
}

export const schemaCommand: CommandModule<object, SchemaArgs> = {
  command: "schema [name]",
  describe: "Print one of the JSON Schemas validate uses (no name: list them)",
  builder: (y: Argv) =>
    y
      .positional("name", {
        describe: "Schema name, e.g. header, entry, message-assistant, output/tree (the output schemas)",
        type: "string",
      })
      .example("$0 schema", "the schema names, one per line")
      .example("$0 schema entry-compaction", "the schema of compaction entries (draft-07)")
      .example("$0 schema output/tree.ndjson-line", "the schema of one line of tree --ndjson") as unknown as Argv<SchemaArgs>,
  handler: async (args) => {
    const [{ schemaReport }, { writeOut, requestExit }] = await Promise.all([import("../reports/schema.js"), import("./common.js")]);
    const r = await schemaReport(args.name !== undefined ? { name: args.name } : {});
    const d = r.data;
    requestExit(r.exitCode);
    if (d.names !== undefined) await writeOut([`${d.names.join("\n")}\n`]);
    else await writeOut([d.text.endsWith("\n") ? d.text : `${d.text}\n`], "json");
  },
};

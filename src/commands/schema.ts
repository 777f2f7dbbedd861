import type { Argv, CommandModule } from "yargs";
import { CliError, type GlobalArgs } from "./common.js";

interface SchemaArgs extends GlobalArgs {
  name?: string;
}

export const schemaCommand: CommandModule<object, SchemaArgs> = {
  command: "schema [name]",
  describe: "Print one of the JSON Schemas validate uses (no name: list them)",
  builder: (y: Argv) =>
    y
      .positional("name", { describe: "Schema name, e.g. header, entry, message-assistant", type: "string" })
      .example("$0 schema", "the schema names, one per line")
      .example("$0 schema entry-compaction", "the schema of compaction entries (draft-07)") as unknown as Argv<SchemaArgs>,
  handler: async (args) => {
    const { schemaNames, schemaText } = await import("../check/schemas.js");
    const { writeOut } = await import("./common.js");
    if (args.name === undefined) {
      await writeOut([schemaNames().join("\n") + "\n"]);
      return;
    }
    const text = schemaText(args.name);
    if (text === undefined) throw new CliError(`no schema named "${args.name}"; run pisess schema to list them`);
    await writeOut([text.endsWith("\n") ? text : text + "\n"]);
  },
};

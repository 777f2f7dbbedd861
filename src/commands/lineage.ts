import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { sanitizeLine } from "../render/sanitize.js";
import { lineageJson, lineageNdjson, lineageText } from "../render/lineage.js";
import { lineageReport } from "../reports/lineage.js";
import { requestExit, styleFor, writeOut, type GlobalArgs, repeatableArg, writeErr } from "./common.js";

interface LineageArgs extends GlobalArgs {
  file: string;
  forksIn?: string[];
  json?: boolean;
  ndjson?: boolean;
}

export const lineageCommand: CommandModule<object, LineageArgs> = {
  command: "lineage <file>",
  describe: "Show a session's fork ancestry (parentSession, legacy branchedFrom) and its forks",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file", type: "string", demandOption: true })
      .option("forks-in", {
        describe: "A folder to search for forks, repeatable (default: the whole sessions dir)",
        ...repeatableArg,
      })
      .option("json", { describe: 'One document {"file","id","ancestors","forks","missing","cycle","searched"}', type: "boolean" })
      .option("ndjson", { describe: 'One object per ancestor and fork, with "relation"', type: "boolean" })
      .conflicts("json", "ndjson")
      .example("$0 lineage fork.jsonl", "parents up to the original, and forks of this file")
      .example("$0 lineage fork.jsonl --json | jq -r '.ancestors[-1].path'", "the original session") as unknown as Argv<LineageArgs>,
  handler: async (args) => {
    const r = await lineageReport({ file: args.file, ...(args.forksIn !== undefined ? { forksIn: args.forksIn } : {}), env: runIo().env });
    for (const u of r.data.unsearched)
      writeErr(`pisess: warning: --forks-in ${sanitizeLine(u.path)}: ${u.reason}; no forks searched there\n`);
    requestExit(r.exitCode);
    if (args.json) await writeOut([lineageJson(r.data)], "json");
    else if (args.ndjson) await writeOut([lineageNdjson(r.data)], "json");
    else await writeOut([lineageText(r.data, styleFor(args))]);
  },
};

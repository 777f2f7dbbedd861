import type { Argv, CommandModule } from "yargs";
import { bloatText } from "../render/bloat.js";
import { bloatReport } from "../reports/bloat.js";
import { openInput, problemSummary, requestExit, styleFor, writeOut, type GlobalArgs } from "./common.js";
import { numberArg, wholeNumbers } from "./common.js";

interface BloatArgs extends GlobalArgs {
  file: string;
  leaf: string;
  top: number;
  json?: boolean;
}

export const bloatCommand: CommandModule<object, BloatArgs> = {
  command: "bloat <file>",
  describe: "Where the bytes of a session file go: by kind, entry type, place; the largest entries and blocks",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (read twice: not stdin)", type: "string", demandOption: true })
      .option("leaf", { describe: "Leaf of the active path: id, id prefix, @LINE, label:NAME or leaf", type: "string", default: "leaf" })
      .option("top", { describe: "List the N largest entries and blocks", ...numberArg, default: 10 })
      .option("json", { describe: 'One document {"file","bytes","byType","byKind","byPlace","top",…}', type: "boolean" })
      .check(wholeNumbers({ top: { min: 0 } }))
      .example("$0 bloat session.jsonl", "what fills the file, with bars")
      .example(
        "$0 bloat session.jsonl --json | jq '.byKind'",
        "bytes per content kind, adding up to the file size",
      ) as unknown as Argv<BloatArgs>,
  handler: async (args) => {
    const session = await openInput(args.file, { detail: "skeleton" });
    try {
      const r = await bloatReport(session, { leaf: args.leaf, top: args.top });
      await writeOut([args.json ? `${JSON.stringify(r.data, null, 2)}\n` : bloatText(r.data, styleFor(args))], args.json ? "json" : "text");
      problemSummary(session.file, r.diagnostics);
      requestExit(r.exitCode);
    } finally {
      session.store.close();
    }
  },
};

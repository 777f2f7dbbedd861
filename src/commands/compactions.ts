import type { Argv, CommandModule } from "yargs";
import { compactionsText } from "../render/compactions.js";
import { compactionsReport } from "../reports/compactions.js";
import { openInput, problemSummary, requestExit, styleFor, writeOut, type GlobalArgs } from "./common.js";

interface CompactionsArgs extends GlobalArgs {
  file: string;
  leaf: string;
  all?: boolean;
  json?: boolean;
}

export const compactionsCommand: CommandModule<object, CompactionsArgs> = {
  command: "compactions <file>",
  describe: "What each compaction on the path kept and took out of the model's view",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .option("leaf", { describe: "Leaf: id, id prefix, @LINE, label:NAME or leaf", type: "string", default: "leaf" })
      .option("all", { describe: "Also every compaction off the path (each judged at itself)", type: "boolean" })
      .option("json", { describe: 'One document {"file","leaf","compactions":[…]}', type: "boolean" })
      .example("$0 compactions session.jsonl", "one block per compaction on the active path")
      .example(
        "$0 compactions session.jsonl --json | jq '.compactions[].dropped.lines'",
        "the lines each compaction summarised away",
      ) as unknown as Argv<CompactionsArgs>,
  handler: async (args) => {
    const session = await openInput(args.file, { detail: "skeleton" });
    try {
      const r = compactionsReport(session, { leaf: args.leaf, all: args.all === true });
      await writeOut(
        [args.json ? `${JSON.stringify(r.data, null, 2)}\n` : compactionsText(r.data, styleFor(args))],
        args.json ? "json" : "text",
      );
      problemSummary(session.file, r.diagnostics);
      requestExit(r.exitCode);
    } finally {
      session.store.close();
    }
  },
};

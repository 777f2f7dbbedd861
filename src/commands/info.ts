import type { Argv, CommandModule } from "yargs";
import { infoJson, infoText } from "../render/info.js";
import { infoReport } from "../reports/info.js";
import { openInput, problemSummary, requestExit, styleFor, writeOut, type GlobalArgs } from "./common.js";

interface InfoArgs extends GlobalArgs {
  file: string;
  includeCopied?: boolean;
  json?: boolean;
}

export const infoCommand: CommandModule<object, InfoArgs> = {
  command: "info <file>",
  describe: "Summarise a session: header, shape, labels, models, tokens and cost (per model and per leaf)",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .option("include-copied", { describe: "Count entries a fork copied from its parent file in the totals", type: "boolean" })
      .option("json", { describe: "One JSON document (see docs/commands/info.md)", type: "boolean" })
      .example("$0 info session.jsonl", "the summary")
      .example("$0 info session.jsonl --json | jq .totals.cost", "the session's cost, fork copies left out")
      .example("$0 info session.jsonl --json | jq '.leaves[].ownTotals.cost'", "each leaf's own cost") as unknown as Argv<InfoArgs>,
  handler: async (args) => {
    // Header, shape, labels, models and spend: all in a spend load's fields (info shows no message text).
    const session = await openInput(args.file, { detail: "spend" });
    try {
      const r = await infoReport(session, { includeCopied: args.includeCopied === true });
      requestExit(r.exitCode);
      await writeOut([args.json ? infoJson(r.data) : infoText(r.data, styleFor(args))], args.json ? "json" : "text");
      problemSummary(session.file, r.diagnostics);
    } finally {
      session.store.close();
    }
  },
};

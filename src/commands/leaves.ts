import type { Argv, CommandModule } from "yargs";
import { leavesJson, leavesNdjson, leavesText } from "../render/leaves.js";
import { leavesReport } from "../reports/leaves.js";
import { openInput, problemSummary, requestExit, styleFor, writeOut, type GlobalArgs } from "./common.js";

interface LeavesArgs extends GlobalArgs {
  file: string;
  includeCopied?: boolean;
  json?: boolean;
  ndjson?: boolean;
}

export const leavesCommand: CommandModule<object, LeavesArgs> = {
  command: "leaves <file>",
  describe: "List every leaf: depth, last activity, last prompt, labels, own tokens and cost",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .option("include-copied", { describe: "Count entries a fork copied from its parent file", type: "boolean" })
      .option("json", { describe: 'One document {"file","leaves":[…]}', type: "boolean" })
      .option("ndjson", { describe: "One leaf object per line, file order", type: "boolean" })
      .conflicts("json", "ndjson")
      .example("$0 leaves session.jsonl", "every leaf, the default one marked ◆")
      .example(
        "$0 leaves session.jsonl --ndjson | jq -r 'select(.ownTotals.cost > 0.5) | .id'",
        "leaves whose own part cost more than $0.50",
      ) as unknown as Argv<LeavesArgs>,
  handler: async (args) => {
    // Shape and spend: the fields of a spend load (no previews; each leaf's last prompt is re-read).
    const session = await openInput(args.file, { detail: "spend" });
    try {
      const r = await leavesReport(session, { includeCopied: args.includeCopied === true });
      requestExit(r.exitCode);
      if (args.json) await writeOut([leavesJson(r.data.file, r.data.leaves)], "json");
      else if (args.ndjson) await writeOut([leavesNdjson(r.data.leaves)], "json");
      else await writeOut([leavesText(r.data.leaves, styleFor(args))]);
      problemSummary(session.file, r.diagnostics);
    } finally {
      session.store.close();
    }
  },
};

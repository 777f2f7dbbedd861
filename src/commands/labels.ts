import type { Argv, CommandModule } from "yargs";
import { labelHistoryText, labelsJson, labelsNdjson, labelsText } from "../render/labels.js";
import { labelsReport } from "../reports/labels.js";
import { openInput, problemSummary, requestExit, styleFor, writeOut, type GlobalArgs } from "./common.js";

interface LabelsArgs extends GlobalArgs {
  file: string;
  history?: boolean;
  json?: boolean;
  ndjson?: boolean;
}

export const labelsCommand: CommandModule<object, LabelsArgs> = {
  command: "labels <file>",
  describe: "List the labels as pi resolves them (or, with --history, every label change)",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .option("history", { describe: "Every label entry in file order, clears included", type: "boolean" })
      .option("json", { describe: 'One document {"file","labels":[…]} (or "history")', type: "boolean" })
      .option("ndjson", { describe: "One label (or change) per line", type: "boolean" })
      .conflicts("json", "ndjson")
      .example("$0 labels session.jsonl", "current labels and their targets")
      .example(
        "$0 labels session.jsonl --history --ndjson | jq -r 'select(.label == null) | .line'",
        "lines that clear a label",
      ) as unknown as Argv<LabelsArgs>,
  handler: async (args) => {
    // Labels, their entries and targets: all in the skeleton's fields.
    const session = await openInput(args.file, { detail: "skeleton" });
    try {
      const r = labelsReport(session, { history: args.history === true });
      const d = r.data;
      const style = styleFor(args);
      requestExit(r.exitCode);
      if (d.history !== undefined) {
        if (args.json) await writeOut([labelsJson(d.file, "history", d.history)], "json");
        else if (args.ndjson) await writeOut([labelsNdjson(d.history)], "json");
        else await writeOut([labelHistoryText(d.history, style)]);
      } else {
        if (args.json) await writeOut([labelsJson(d.file, "labels", d.labels)], "json");
        else if (args.ndjson) await writeOut([labelsNdjson(d.labels)], "json");
        else await writeOut([labelsText(d.labels, style)]);
      }
      problemSummary(session.file, r.diagnostics);
    } finally {
      session.store.close();
    }
  },
};

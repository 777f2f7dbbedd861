import type { Argv, CommandModule } from "yargs";
import type { EntryRec } from "../model/types.js";
import { labelHistoryText, labelsJson, labelsNdjson, labelsText, type LabelChange, type LabelRow } from "../render/labels.js";
import { openInput, problemSummary, styleFor, writeOut, type GlobalArgs } from "./common.js";

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
      .example("$0 labels session.jsonl --history --ndjson | jq -r 'select(.label == null) | .line'", "lines that clear a label") as unknown as Argv<LabelsArgs>,
  handler: async (args) => {
    const session = await openInput(args.file);
    try {
      // Which label entry set each current label: pi's rule, walking the file in order.
      const setter = new Map<string, EntryRec>();
      const labelEntries: EntryRec[] = [];
      for (const rec of session.entries) {
        if (rec.type !== "label") continue;
        labelEntries.push(rec);
        if (rec.targetId === undefined) continue;
        if (rec.labelText) setter.set(rec.targetId, rec);
        else setter.delete(rec.targetId);
      }
      const setters = new Set(setter.values());
      const style = styleFor(args);
      if (args.history) {
        const rows: LabelChange[] = labelEntries.map((rec) => ({
          id: rec.id ?? null,
          line: rec.line,
          timestamp: rec.timestamp ?? null,
          targetId: rec.targetId ?? null,
          targetLine: rec.targetId !== undefined ? (session.byId.get(rec.targetId)?.line ?? null) : null,
          label: rec.labelText ? rec.labelText : null,
          current: setters.has(rec),
        }));
        if (args.json) await writeOut([labelsJson(session.file, "history", rows)]);
        else if (args.ndjson) await writeOut([labelsNdjson(rows)]);
        else await writeOut([labelHistoryText(rows, style)]);
      } else {
        const rows: LabelRow[] = [...session.labels].map(([targetId, label]) => {
          const target = session.byId.get(targetId);
          const by = setter.get(targetId);
          return {
            label,
            targetId,
            targetLine: target?.line ?? null,
            targetType: target ? target.type : null,
            targetRole: target?.type === "message" ? (target.role ?? null) : null,
            setBy: by ? { id: by.id ?? null, line: by.line, timestamp: by.timestamp ?? null } : null,
          };
        });
        if (args.json) await writeOut([labelsJson(session.file, "labels", rows)]);
        else if (args.ndjson) await writeOut([labelsNdjson(rows)]);
        else await writeOut([labelsText(rows, style)]);
      }
      problemSummary(session);
    } finally {
      session.store.close();
    }
  },
};

import type { Argv, CommandModule } from "yargs";
import { treeShape } from "../ops/leaves.js";
import { buildTree } from "../ops/tree.js";
import { leavesJson, leavesNdjson, leavesText, type LeafRow } from "../render/leaves.js";
import { openInput, problemSummary, styleFor, writeOut, type GlobalArgs } from "./common.js";
import { forkParent } from "./info.js";

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
      .example("$0 leaves session.jsonl --ndjson | jq -r 'select(.ownTotals.cost > 0.5) | .id'", "leaves whose own part cost more than $0.50") as unknown as Argv<LeavesArgs>,
  handler: async (args) => {
    const session = await openInput(args.file);
    try {
      const tree = buildTree(session);
      const parent = await forkParent(session);
      const mask = args.includeCopied ? undefined : parent?.copied;
      const shape = treeShape(session, tree, mask ? { exclude: mask } : {});
      const refOf = (r: { id: string | undefined; line: number }) => ({ id: r.id ?? null, line: r.line });
      const rows: LeafRow[] = shape.leaves.map((l) => ({
        ...refOf(l.rec),
        depth: l.depth,
        timestamp: l.lastTimestamp,
        isDefault: l.isDefault,
        lastUserPrompt: l.lastUser ? { ...refOf(l.lastUser), text: l.lastUser.text ?? "" } : null,
        labels: l.labels.map((x) => ({ ...refOf(x.rec), label: x.label })),
        forkPoint: l.forkPoint ? refOf(l.forkPoint) : null,
        cycle: l.cycle,
        totals: l.totals,
        ownTotals: l.ownTotals,
        byKind: l.byKind,
        ownByKind: l.ownByKind,
      }));
      if (args.json) await writeOut([leavesJson(session.file, rows)]);
      else if (args.ndjson) await writeOut([leavesNdjson(rows)]);
      else await writeOut([leavesText(rows, styleFor(args))]);
      problemSummary(session, tree.problems.filter((d) => d.severity !== "info").length);
    } finally {
      session.store.close();
    }
  },
};

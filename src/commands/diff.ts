import type { Argv, CommandModule } from "yargs";
import { diagnosticLine } from "../render/diagnostics.js";
import { DiffLeavesFrame, type DiffLeavesHead, diffItemChunks, LEAVES_MAX_ENTRIES, type TextOptionsFor } from "../render/diff.js";
import { SIDE_BY_SIDE_MIN, type DiffTextOptions } from "../render/diff-text.js";
import { diffReport, type DiffData, type DiffItem } from "../reports/diff.js";
import {
  batchedOut,
  wholeNumbers,
  openInput,
  problemSummary,
  requestExit,
  styleFor,
  terminalWidth,
  writeErr,
  writeOut,
  type GlobalArgs,
} from "./common.js";
import { numberArg } from "./common.js";

interface DiffArgs extends GlobalArgs {
  file: string;
  a?: string;
  b?: string;
  leaves?: boolean;
  context?: boolean;
  json?: boolean;
  sideBySide?: boolean;
  width?: number;
  allEntries?: boolean;
}

/** The text options of each comparison: the command's (style and width, built once), with the pair's files and lineage. */
function textOptionsFor(args: DiffArgs): TextOptionsFor {
  const width = terminalWidth(args.width);
  let sideBySide = args.sideBySide === true;
  if (sideBySide && width !== undefined && width < SIDE_BY_SIDE_MIN) {
    sideBySide = false;
  }
  const base: DiffTextOptions = { style: styleFor(args), width, sideBySide };
  return (pair) => {
    if (!pair.files && !pair.lineage) return base;
    const o: DiffTextOptions = { ...base };
    if (pair.files) o.files = pair.files;
    if (pair.lineage) o.lineage = pair.lineage;
    return o;
  };
}

export const diffCommand: CommandModule<object, DiffArgs> = {
  command: "diff <file> [a] [b]",
  describe: "Show where two branches, or a fork and its parent, diverge",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .positional("a", { describe: "An entry reference (left side), or a second session file", type: "string" })
      .positional("b", { describe: "A second entry reference (right side; default: the active leaf)", type: "string" })
      .option("leaves", { describe: "Compare every leaf with the active path (the default leaf)", type: "boolean" })
      .option("context", { describe: "Compare what the model saw at the two leaves (as pisess context builds it)", type: "boolean" })
      .option("json", { describe: "One JSON document (with --leaves: one holding every pair)", type: "boolean" })
      .option("all-entries", {
        describe: `With --leaves: list every divergent entry (default: the first ${LEAVES_MAX_ENTRIES} per side, then how many more)`,
        type: "boolean",
      })
      .option("side-by-side", { describe: "Divergent entries in two columns (needs 100+ columns)", type: "boolean" })
      .option("width", {
        describe: "Cut lines to N columns (default: terminal width on a TTY, else no cut; 0: no cut)",
        ...numberArg,
      })
      .conflicts("json", "side-by-side")
      .implies("all-entries", "leaves")
      .check(wholeNumbers({ width: { min: 0, note: "0: no cut" } }))
      .example("$0 diff session.jsonl @40 @52", "the branches ending at lines 40 and 52")
      .example("$0 diff session.jsonl label:try-a", "the branch at label try-a against the active leaf")
      .example("$0 diff session.jsonl --leaves", "every leaf against the active path")
      .example("$0 diff fork.jsonl parent.jsonl", "a forked file against its parent")
      .example("$0 diff session.jsonl @40 @52 --context", "what the model saw at each of the two leaves")
      .example("$0 diff session.jsonl @40 @52 --json | jq '.right.entries | length'", "how many entries the right side adds")
      .epilogue("Exit codes: 0 the paths are the same, 1 they differ, 2 errors (as diff(1)).") as unknown as Argv<DiffArgs>,
  handler: async (args) => {
    const textOptions = textOptionsFor(args);
    const maxEntries = args.leaves === true && args.allEntries !== true ? LEAVES_MAX_ENTRIES : undefined;
    // --leaves writes each comparison as it is made: a reader that leaves (`| head`) stops the run at once.
    const stream = args.leaves === true ? leavesWriter(args.json === true, textOptions, maxEntries) : undefined;
    const r = await diffReport({
      file: args.file,
      ...(args.a !== undefined ? { a: args.a } : {}),
      ...(args.b !== undefined ? { b: args.b } : {}),
      leaves: args.leaves === true,
      context: args.context === true,
      ...(maxEntries !== undefined ? { maxEntries } : {}),
      open: (file) => openInput(file),
      ...(stream ? { onItem: stream.item } : {}),
    });
    const d = r.data;
    for (const c of d.cycles) writeErr(diagnosticLine(c));
    // A comparison stopped by a parent cycle: nothing on stdout.
    if (d.problems.length > 0) {
      requestExit(r.exitCode);
      if (stream) await stream.end(d);
      else
        await writeOut(
          d.items.flatMap((item) => diffItemChunks(item, args.json === true, textOptions)),
          args.json === true ? "json" : "text",
        );
      for (const p of d.problems) problemSummary(p.file, p.diagnostics);
    }
    requestExit(r.exitCode);
  },
};

/** --leaves output, written one comparison at a time; the exit status is 1 from the first difference written. */
function leavesWriter(
  json: boolean,
  textOptions: TextOptionsFor,
  maxEntries: number | undefined,
): {
  item: (item: DiffItem, head: DiffLeavesHead) => Promise<void>;
  end: (d: DiffData) => Promise<void>;
} {
  const frame = new DiffLeavesFrame(json, textOptions, maxEntries);
  // Comparisons are small and may be a hundred thousand: they go out in batches, not one by one.
  const { add, flush } = batchedOut(json ? "json" : "text");
  return {
    async item(item, head) {
      if (item.kind === "cycle" || !item.diff.same) requestExit(1);
      await add(frame.item(item, head));
    },
    async end(d) {
      await add(frame.end(d.file !== undefined && d.active ? { file: d.file, active: d.active } : undefined));
      await flush();
    },
  };
}

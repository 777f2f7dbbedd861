import type { Argv, CommandModule } from "yargs";
import type { Diagnostic } from "../model/types.js";
import { diagnosticLine } from "../render/diagnostics.js";
import { entryJson } from "../model/store-text.js";
import { pathJsonChunks, pathTextLines } from "../render/path.js";
import { pathReport } from "../reports/path.js";
import {
  emptyNote,
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

interface PathArgs extends GlobalArgs {
  file: string;
  leaf: string;
  width?: number;
  json?: boolean;
  ndjson?: boolean;
}

export const pathCommand: CommandModule<object, PathArgs> = {
  command: "path <file>",
  describe: "List the entries from the root to a leaf",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .option("leaf", { describe: "Leaf: id, id prefix, @LINE, label:NAME or leaf", type: "string", default: "leaf", requiresArg: true })
      .option("width", { describe: "Cut lines to N columns (0: no cut)", ...numberArg })
      .option("json", { describe: 'One document {"file","leaf","entries":[{"line","entry"}]}', type: "boolean" })
      .option("ndjson", { describe: 'One {"line","entry"} per entry, root first (entry as migrated in memory)', type: "boolean" })
      .conflicts("json", "ndjson")
      .check(wholeNumbers({ width: { min: 0, note: "0: no cut" } }))
      .example("$0 path session.jsonl --leaf @120", "the path to the entry on line 120")
      .example(
        "$0 path session.jsonl --leaf label:before-refactor --ndjson | jq -r '.entry.message.role // .entry.type'",
        "roles along a labelled path",
      ) as unknown as Argv<PathArgs>,
  handler: async (args) => {
    // JSON output re-reads every entry on the path; the text listing shows previews (no spend: the preview load).
    if (args.json || args.ndjson) await pathJson(args);
    else await pathText(args);
  },
};

async function pathJson(args: PathArgs): Promise<void> {
  const session = await openInput(args.file, { detail: "skeleton" });
  try {
    const r = pathReport(session, { leaf: args.leaf });
    const { leaf, path } = r.data;
    if (path === null) return cycleOut(r.diagnostics, r.exitCode);
    requestExit(r.exitCode);
    await writeOut(
      pathJsonChunks(session.file, leaf, path, (rec) => entryJson(session, rec), args.json === true),
      "json",
    );
    if (!leaf) writeErr(emptyNote(session.file, "path"));
    problemSummary(session.file, r.diagnostics);
  } finally {
    session.store.close();
  }
}

async function pathText(args: PathArgs): Promise<void> {
  const session = await openInput(args.file, { detail: "preview" });
  try {
    const r = pathReport(session, { leaf: args.leaf });
    const { leaf, path } = r.data;
    if (path === null) return cycleOut(r.diagnostics, r.exitCode);
    requestExit(r.exitCode);
    if (leaf) await writeOut(pathTextLines(session, path, leaf, { style: styleFor(args), width: terminalWidth(args.width) }));
    if (!leaf) writeErr(emptyNote(session.file, "path"));
    problemSummary(session.file, r.diagnostics);
  } finally {
    session.store.close();
  }
}

/** A path that runs into a parent cycle: its finding, and no path. */
function cycleOut(diagnostics: readonly Diagnostic[], exitCode: number): void {
  for (const d of diagnostics) writeErr(diagnosticLine(d));
  requestExit(exitCode);
}

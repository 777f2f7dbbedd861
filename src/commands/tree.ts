import type { Argv, CommandModule } from "yargs";
import { FILTER_MODES, type FilterMode } from "../ops/view.js";
import { treeJson, treeNdjson } from "../render/tree-json.js";
import { lineChunks, treeLines } from "../render/tree.js";
import { treeJsonReport, treeReport, wholeTreeJson, type TreeOptions } from "../reports/tree.js";
import { wholeNumbers, openInput, problemSummary, requestExit, styleFor, terminalWidth, writeOut, type GlobalArgs } from "./common.js";
import { numberArg, repeatableArg } from "./common.js";

interface TreeArgs extends GlobalArgs {
  file: string;
  leaf?: string;
  filter?: FilterMode;
  search?: string[];
  depth?: number;
  from?: string;
  width?: number;
  json?: boolean;
  ndjson?: boolean;
}

export const treeCommand: CommandModule<object, TreeArgs> = {
  command: "tree <file>",
  describe: "Show the session tree, like pi's /tree",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .option("leaf", { describe: "Active leaf: id, id prefix, @LINE, label:NAME or leaf", type: "string", requiresArg: true })
      .option("filter", { describe: "Which entries to show, as pi's /tree filters", choices: FILTER_MODES, type: "string" })
      .option("search", { describe: "Keep entries whose text holds every word (repeatable)", ...repeatableArg })
      .option("depth", { describe: "Hide entries nested deeper than N branch levels", ...numberArg })
      .option("from", { describe: "Show only the subtree of this entry", type: "string", requiresArg: true })
      .option("width", {
        describe: "Cut lines to N columns (default: terminal width on a TTY, else no cut; 0: no cut)",
        ...numberArg,
      })
      .option("json", {
        describe: "One JSON document: every entry (unless --filter/--search) in file order, linked by line",
        type: "boolean",
      })
      .option("ndjson", { describe: "One JSON object per shown entry, in display order", type: "boolean" })
      .conflicts("json", "ndjson")
      .check(wholeNumbers({ depth: { min: 0 }, width: { min: 0, note: "0: no cut" } }))
      .example("$0 tree session.jsonl", "the tree, active path marked with • and the leaf with ◆")
      .example("$0 tree session.jsonl --filter user-only --search refactor", "only user prompts mentioning refactor")
      .example("$0 tree session.jsonl --leaf label:checkpoint --from @40", "the subtree below line 40, with another leaf active")
      .example("$0 tree session.jsonl --json | jq '.entries[] | select(.children | length > 1) | .line'", "lines of the branch points")
      .example("$0 tree session.jsonl --ndjson | jq -r 'select(.isLeaf) | .id'", "ids of the leaf") as unknown as Argv<TreeArgs>,
  handler: async (args) => {
    const opts: TreeOptions = {
      ...(args.leaf !== undefined ? { leaf: args.leaf } : {}),
      ...(args.filter !== undefined ? { filter: args.filter } : {}),
      ...(args.search !== undefined ? { search: args.search } : {}),
      ...(args.depth !== undefined ? { depth: args.depth } : {}),
      ...(args.from !== undefined ? { from: args.from } : {}),
      output: args.json ? "json" : args.ndjson ? "ndjson" : "text",
      stream: true,
    };
    // The whole tree as JSON needs only the skeleton of each entry (ids, parents, types, roles, timestamps,
    // labels); filters, searches, a subtree and text need previews, not spend (the preview load).
    if (wholeTreeJson(opts)) await wholeTree(args, opts);
    else await shownTree(args, opts);
  },
};

async function wholeTree(args: TreeArgs, opts: TreeOptions): Promise<void> {
  const session = await openInput(args.file, { detail: "skeleton" });
  try {
    const r = treeJsonReport(session, opts.leaf !== undefined ? { leaf: opts.leaf } : {});
    requestExit(r.exitCode);
    if (!r.data.flat) throw new Error("tree report without the tree");
    await writeOut(treeJson(session, r.data.flat, r.data.leaf), "json");
    problemSummary(session.file, r.diagnostics);
  } finally {
    session.store.close();
  }
}

async function shownTree(args: TreeArgs, opts: TreeOptions): Promise<void> {
  const session = await openInput(args.file, { detail: "preview" });
  try {
    const r = treeReport(session, opts);
    const { leaf, flat, view, rows } = r.data;
    requestExit(r.exitCode);
    if (flat) await writeOut(treeJson(session, flat, leaf), "json");
    else if (!view || !rows) throw new Error("tree report without a view");
    else if (args.ndjson) await writeOut(treeNdjson(session, view, rows, leaf), "json");
    else await writeOut(lineChunks(treeLines(session, view, rows, { style: styleFor(args), width: terminalWidth(args.width), leaf })));
    problemSummary(session.file, r.diagnostics);
  } finally {
    session.store.close();
  }
}

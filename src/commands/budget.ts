import type { Argv, CommandModule } from "yargs";
import { compactionSettings, SettingsError, type CompactionSettingsFile } from "../io/pi-settings.js";
import { budgetJson, budgetText } from "../render/budget.js";
import { diagnosticLine } from "../render/diagnostics.js";
import { budgetReport } from "../reports/budget.js";
import { runIo } from "./run-state.js";
import {
  CliError,
  emptyNote,
  numberArg,
  openInput,
  problemSummary,
  requestExit,
  styleFor,
  wholeNumbers,
  writeErr,
  writeOut,
  type GlobalArgs,
} from "./common.js";

interface BudgetArgs extends GlobalArgs {
  file: string;
  leaf: string;
  path?: boolean;
  keepRecent?: number;
  json?: boolean;
}

export const budgetCommand: CommandModule<object, BudgetArgs> = {
  command: "budget <file>",
  describe: "The token budget of the context at a leaf: pi's estimate by part, checked against the tokens billed",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .option("leaf", { describe: "Leaf: id, id prefix, @LINE, label:NAME or leaf", type: "string", default: "leaf", requiresArg: true })
      .option("path", { describe: "Also every assistant turn on the path: estimate, billed, ratio; and the compactions", type: "boolean" })
      .option("keep-recent", {
        describe: "pi's compaction.keepRecentTokens for the cut point (default: pi's settings files, else 20000)",
        ...numberArg,
      })
      .option("json", { describe: 'One document {"file","leaf","total","parts","top","billed","compactNow",…}', type: "boolean" })
      .check(wholeNumbers({ "keep-recent": { min: 0 } }))
      .example("$0 budget session.jsonl", "what the context at the last entry is made of")
      .example("$0 budget session.jsonl --path", "every request on the path: estimate beside the bill")
      .example("$0 budget session.jsonl --json | jq .compactNow", "what a compaction now would keep") as unknown as Argv<BudgetArgs>,
  handler: async (args) => {
    // The context's messages are read back whole; the index needs only the skeleton.
    const session = await openInput(args.file, { detail: "skeleton" });
    try {
      const keepRecent =
        args.keepRecent !== undefined ? { value: args.keepRecent, from: "--keep-recent" } : { files: await settings(session.header?.cwd) };
      const r = budgetReport(session, { leaf: args.leaf, path: args.path === true, keepRecent });
      requestExit(r.exitCode);
      if (r.data === null) {
        for (const d of r.diagnostics) writeErr(diagnosticLine(d));
        return;
      }
      await writeOut([args.json ? budgetJson(r.data) : budgetText(r.data, styleFor(args))], args.json ? "json" : "text");
      if (r.data.leaf === null) writeErr(emptyNote(session.file, "context"));
      problemSummary(session.file, r.diagnostics);
    } finally {
      session.store.close();
    }
  },
};

/** pi's settings files for the session's project (its header's cwd); a file pi could not read is an error. */
async function settings(cwd: unknown): Promise<CompactionSettingsFile[]> {
  try {
    return await compactionSettings(runIo().env, typeof cwd === "string" ? cwd : null);
  } catch (err) {
    if (err instanceof SettingsError) throw new CliError(`${err.message} (--keep-recent N skips pi's settings)`);
    throw err;
  }
}

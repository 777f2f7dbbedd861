import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { GrepOutput } from "../render/grep.js";
import { formatMessage } from "../render/diagnostics.js";
import { failureLine } from "../render/notes.js";
import { grepReport } from "../reports/grep.js";
import {
  ALLOW_UNREADABLE,
  wholeNumbers,
  requestExit,
  styleFor,
  writeOut,
  type GlobalArgs,
  allProjectsAlone,
  allProjectsArg,
  listArg,
  numberArg,
  writeErr,
  outputSessionFile,
} from "./common.js";

interface GrepArgs extends GlobalArgs {
  allowUnreadable?: boolean;
  pattern: string;
  targets?: string[];
  allProjects?: boolean;
  ignoreCase?: boolean;
  role?: string[];
  type?: string[];
  context: number;
  json?: boolean;
  ndjson?: boolean;
}

export const grepCommand: CommandModule<object, GrepArgs> = {
  command: "grep <pattern> [targets..]",
  describe: "Search message text, thinking, tool calls and tool output across sessions (JS regex)",
  builder: (y: Argv) =>
    y
      .positional("pattern", { describe: "JavaScript regular expression", type: "string", demandOption: true })
      .positional("targets", {
        describe: "Session files or folders (recursive); default: the sessions of the current directory",
        type: "string",
        array: true,
      })
      .option("all-projects", allProjectsArg("searched instead of the current directory's"))
      .option("ignore-case", { alias: "i", describe: "Case-insensitive", type: "boolean" })
      .option("role", {
        describe: "Only messages of these roles, comma-separated or repeated (user, assistant, toolResult, bashExecution, custom, …)",
        ...listArg,
      })
      .option("type", {
        describe: "Only entries of these types, comma-separated or repeated (message, compaction, branch_summary, custom_message, …)",
        ...listArg,
      })
      .option("context", { describe: "Characters of context each side of the match", ...numberArg, default: 60 })
      .option("json", { describe: 'One document {"hits":[…]}', type: "boolean" })
      .option("ndjson", { describe: 'One {"file","line","id","role","type","field","path","snippet"} per hit', type: "boolean" })
      .conflicts("json", "ndjson")
      .check(wholeNumbers({ context: { min: 0 } }))
      .check(allProjectsAlone("targets"))
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .example("$0 grep 'ERR_STRING_TOO_LONG' ~/.pi/agent/sessions", "every session that hit the error")
      .example("$0 grep -i 'rm -rf' --role assistant --ndjson | jq -r '\"\\(.file) \\(.id)\"'", "assistant turns that mention rm -rf")
      .epilogue("Exit status: 0 when something matched, 1 when nothing did, 2 on errors (like grep).") as unknown as Argv<GrepArgs>,
  handler: async (args) => {
    const r = await grepReport({
      allowUnreadable: args.allowUnreadable === true,
      pattern: String(args.pattern),
      ...(args.targets !== undefined ? { targets: args.targets } : {}),
      allProjects: args.allProjects === true,
      ignoreCase: args.ignoreCase === true,
      roles: args.role ?? [],
      types: args.type ?? [],
      context: args.context,
      env: runIo().env,
      cwd: runIo().cwd(),
    });
    for (const f of r.data.failures) writeErr(failureLine(f));
    for (const d of r.data.skipped) writeErr(failureLine({ path: d.file, reason: `${formatMessage(d)}; not searched` }));
    const out = new GrepOutput(args.json ? "json" : args.ndjson ? "ndjson" : "text", styleFor(args));
    requestExit(r.exitCode);
    const form = args.json || args.ndjson ? "json" : "text";
    await writeOut([out.head()], form);
    for (const { file, hits } of r.data.files) {
      outputSessionFile(file);
      await writeOut([out.file(file, hits)], form);
    }
    await writeOut([out.tail()], form);
  },
};

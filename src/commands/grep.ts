import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { GrepOutput } from "../render/grep.js";
import { failureLine } from "../render/notes.js";
import { grepReport } from "../reports/grep.js";
import { wholeNumbers, requestExit, styleFor, writeOut, writeErr, outputFile, type GlobalArgs } from "./common.js";

interface GrepArgs extends GlobalArgs {
  pattern: string;
  targets?: string[];
  ignoreCase?: boolean;
  role?: string[];
  type?: string[];
  context: number;
  json?: boolean;
  ndjson?: boolean;
}

/** `--role a,b --role c` → ["a", "b", "c"]. Not a yargs array: that would swallow the targets after it. */
function listArg(v: unknown): string[] {
  return (Array.isArray(v) ? v : [v])
    .flatMap((s) => String(s).split(","))
    .map((s) => s.trim())
    .filter(Boolean);
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
      .option("ignore-case", { alias: "i", describe: "Case-insensitive", type: "boolean" })
      .option("role", {
        describe: "Only messages of these roles, comma-separated or repeated (user, assistant, toolResult, bashExecution, custom, …)",
        type: "string",
        requiresArg: true,
        coerce: listArg,
      })
      .option("type", {
        describe: "Only entries of these types, comma-separated or repeated (message, compaction, branch_summary, custom_message, …)",
        type: "string",
        requiresArg: true,
        coerce: listArg,
      })
      .option("context", { describe: "Characters of context each side of the match", type: "number", default: 60, requiresArg: true })
      .option("json", { describe: 'One document {"hits":[…]}', type: "boolean" })
      .option("ndjson", { describe: 'One {"file","line","id","role","type","field","path","snippet"} per hit', type: "boolean" })
      .conflicts("json", "ndjson")
      .check(wholeNumbers({ context: { min: 0 } }))
      .example("$0 grep 'ERR_STRING_TOO_LONG' ~/.pi/agent/sessions", "every session that hit the error")
      .example("$0 grep -i 'rm -rf' --role assistant --ndjson | jq -r '\"\\(.file) \\(.id)\"'", "assistant turns that mention rm -rf")
      .epilogue("Exit status: 0 when something matched, 1 when nothing did, 2 on errors (like grep).") as unknown as Argv<GrepArgs>,
  handler: async (args) => {
    const r = await grepReport({
      pattern: String(args.pattern),
      ...(args.targets !== undefined ? { targets: args.targets } : {}),
      ignoreCase: args.ignoreCase === true,
      roles: args.role ?? [],
      types: args.type ?? [],
      context: args.context,
      env: runIo().env,
      cwd: runIo().cwd(),
    });
    for (const f of r.data.failures) writeErr(failureLine(f));
    const out = new GrepOutput(args.json ? "json" : args.ndjson ? "ndjson" : "text", styleFor(args));
    requestExit(r.exitCode);
    const form = args.json || args.ndjson ? "json" : "text";
    await writeOut([out.head()], form);
    for (const { file, hits } of r.data.files) {
      outputFile(file);
      await writeOut([out.file(file, hits)], form);
    }
    await writeOut([out.tail()], form);
  },
};

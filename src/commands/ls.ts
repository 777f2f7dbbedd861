import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { lsJson, lsNdjson, lsText } from "../render/ls.js";
import { failureLine, noteLine } from "../render/notes.js";
import { LS_SORTS, lsReport, type LsSort } from "../reports/ls.js";
import {
  ALLOW_UNREADABLE,
  terminalWidth,
  wholeNumbers,
  requestExit,
  styleFor,
  writeOut,
  type GlobalArgs,
  allProjectsAlone,
  allProjectsArg,
  numberArg,
  writeErr,
  writeControl,
} from "./common.js";

const SORTS = LS_SORTS;

/** How a run that found nothing for the current directory says where the rest are. */
const LIST_ALL = "; pisess ls -a lists every project";
type SortKey = LsSort;

interface LsArgs extends GlobalArgs {
  allowUnreadable?: boolean;
  dirs?: string[];
  allProjects?: boolean;
  sort: SortKey;
  limit?: number;
  width?: number;
  json?: boolean;
  ndjson?: boolean;
}

export const lsCommand: CommandModule<object, LsArgs> = {
  command: "ls [dirs..]",
  describe: "List sessions: name or first prompt, size, entries, leaves, fork parent",
  builder: (y: Argv) =>
    y
      .positional("dirs", {
        describe: "Folders (searched recursively) or files; default: the sessions of the current directory",
        type: "string",
        array: true,
      })
      .option("all-projects", allProjectsArg("listed instead of the current directory's"))
      .option("sort", { describe: "Order (newest / largest first; name: A→Z)", choices: SORTS, default: "modified" as SortKey })
      .option("limit", { alias: "n", describe: "Show at most N sessions", ...numberArg })
      .option("width", {
        describe:
          "Fit the table in N columns, shortening the file, fork-of and title columns (default: terminal width on a TTY; 0: no limit)",
        ...numberArg,
      })
      .option("json", { describe: 'One document {"sessions":[…]}', type: "boolean" })
      .option("ndjson", { describe: "One session object per line", type: "boolean" })
      .conflicts("json", "ndjson")
      .check(wholeNumbers({ limit: { min: 0 }, width: { min: 0, note: "0: no limit" } }))
      .check(allProjectsAlone("dirs"))
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .example("$0 ls", "sessions of the current directory, newest first")
      .example("$0 ls --all-projects --sort size -n 10", "the ten largest sessions anywhere")
      .example("$0 ls -a --ndjson | jq -r 'select(.leaves > 1) | .path'", "sessions that branch") as unknown as Argv<LsArgs>,
  handler: async (args) => {
    const progress = runIo().stderr.isTTY === true;
    const width = terminalWidth(args.width);
    const r = await lsReport({
      allowUnreadable: args.allowUnreadable === true,
      ...(args.dirs !== undefined ? { dirs: args.dirs } : {}),
      allProjects: args.allProjects === true,
      sort: args.sort,
      ...(args.limit !== undefined ? { limit: args.limit } : {}),
      env: runIo().env,
      cwd: runIo().cwd(),
      ...(progress
        ? {
            onProgress: (done: number, total: number) => {
              writeControl("clearLine");
              writeErr(`pisess ls: ${done}/${total}`);
            },
          }
        : {}),
    });
    const d = r.data;
    if (d.missingRoot !== undefined) {
      writeErr(noteLine(`no sessions folder ${d.missingRoot}${args.allProjects ? "" : ` for ${runIo().cwd()}${LIST_ALL}`}`));
      await writeOut([args.json ? lsJson([]) : ""], "json");
      return;
    }
    if (progress) writeControl("clearLine");
    for (const f of d.failures) writeErr(failureLine(f));
    if (d.skipped > 0)
      writeErr(
        `pisess: skipped ${d.skipped} file${d.skipped === 1 ? "" : "s"} without a session header, or that pisess does not read (pisess validate says why)\n`,
      );
    requestExit(r.exitCode);
    // Nothing here at all (not nothing because of --limit 0): say where the rest are.
    if (d.sessions.length === 0 && args.limit !== 0 && !d.explicit && !args.allProjects && d.root !== undefined)
      writeErr(noteLine(`no sessions for ${runIo().cwd()} in ${d.root}${LIST_ALL}`));
    if (args.json) await writeOut([lsJson(d.sessions)], "json");
    else if (args.ndjson) await writeOut([lsNdjson(d.sessions)], "json");
    else
      await writeOut([
        lsText(d.sessions, styleFor(args), {
          showCwd: args.allProjects === true || d.explicit,
          ...(d.root !== undefined ? { relativeTo: d.root } : {}),
          ...(width !== undefined ? { width } : {}),
        }),
      ]);
  },
};

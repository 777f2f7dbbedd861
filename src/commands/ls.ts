import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { lsJson, lsNdjson, lsText } from "../render/ls.js";
import { failureLine, noteLine } from "../render/notes.js";
import { LS_SORTS, lsReport, type LsSort } from "../reports/ls.js";
import { wholeNumbers, requestExit, styleFor, writeOut, writeErr, writeControl, type GlobalArgs } from "./common.js";

const SORTS = LS_SORTS;
type SortKey = LsSort;

interface LsArgs extends GlobalArgs {
  dirs?: string[];
  allProjects?: boolean;
  sort: SortKey;
  limit?: number;
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
      .option("all-projects", { alias: "a", describe: "Every project folder in the sessions dir", type: "boolean" })
      .option("sort", { describe: "Order (newest / largest first; name: A→Z)", choices: SORTS, default: "modified" as SortKey })
      .option("limit", { alias: "n", describe: "Show at most N sessions", type: "number", requiresArg: true })
      .option("json", { describe: 'One document {"sessions":[…]}', type: "boolean" })
      .option("ndjson", { describe: "One session object per line", type: "boolean" })
      .conflicts("json", "ndjson")
      .check(wholeNumbers({ limit: { min: 0 } }))
      .example("$0 ls", "sessions of the current directory, newest first")
      .example("$0 ls --all-projects --sort size -n 10", "the ten largest sessions anywhere")
      .example("$0 ls -a --ndjson | jq -r 'select(.leaves > 1) | .path'", "sessions that branch") as unknown as Argv<LsArgs>,
  handler: async (args) => {
    const progress = runIo().stderr.isTTY === true;
    const r = await lsReport({
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
      writeErr(noteLine(`no sessions folder ${d.missingRoot}${args.allProjects ? "" : ` for ${runIo().cwd()}`}`));
      await writeOut([args.json ? lsJson([]) : ""], "json");
      return;
    }
    if (progress) writeControl("clearLine");
    for (const f of d.failures) writeErr(failureLine(f));
    if (d.skipped > 0) writeErr(`pisess: skipped ${d.skipped} file${d.skipped === 1 ? "" : "s"} without a session header\n`);
    requestExit(r.exitCode);
    if (args.json) await writeOut([lsJson(d.sessions)], "json");
    else if (args.ndjson) await writeOut([lsNdjson(d.sessions)], "json");
    else
      await writeOut([
        lsText(d.sessions, styleFor(args), {
          showCwd: args.allProjects === true || d.explicit,
          ...(d.root !== undefined ? { relativeTo: d.root } : {}),
        }),
      ]);
  },
};

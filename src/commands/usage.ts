import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { GROUP_KEYS, type GroupKey } from "../ops/fleet-usage.js";
import { fleetNoteLines, usageJson, usageNdjson, usageText } from "../render/usage.js";
import { fleetProgress } from "../render/usage-progress.js";
import { usageReport } from "../reports/usage.js";
import {
  ALLOW_UNREADABLE,
  DB_OPTION,
  INDEX_OPTION,
  indexArgs,
  CliError,
  requestExit,
  styleFor,
  writeOut,
  type GlobalArgs,
  listArg,
  writeErr,
  fleetTargets,
} from "./common.js";

interface UsageArgs extends GlobalArgs {
  allowUnreadable?: boolean;
  index?: boolean;
  db?: string;
  targets?: string[];
  by?: string[];
  since?: string;
  until?: string;
  timezone?: string;
  project?: string;
  json?: boolean;
  ndjson?: boolean;
  breakdown?: boolean;
  includeCopied?: boolean;
}

export const usageCommand: CommandModule<object, UsageArgs> = {
  command: "usage [targets..]",
  describe: "Tokens and cost across sessions by day, week, month, model, project, session or leaf; fork copies counted once",
  builder: (y: Argv) =>
    fleetTargets(y)
      .option("by", { describe: `Group by (several: --by day,model or repeated): ${GROUP_KEYS.join(", ")}`, ...listArg })
      .option("since", { describe: "From this day (YYYY-MM-DD, in --timezone)", type: "string" })
      .option("until", { describe: "To this day, included (YYYY-MM-DD, in --timezone)", type: "string" })
      .option("timezone", { describe: "IANA time zone for days, weeks (ISO, from Monday) and months; default: local", type: "string" })
      .option("project", { describe: "Only sessions whose cwd contains this text", type: "string" })
      .option("breakdown", { describe: "Per model inside each row", type: "boolean" })
      .option("include-copied", { describe: "Also count what forks copied from their parents (naive counting)", type: "boolean" })
      .option("json", { describe: 'One document {"by":[…],"rows":[…],"totals":{…}}', type: "boolean" })
      .option("ndjson", { describe: "One row per line", type: "boolean" })
      .conflicts("json", "ndjson")
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .option("index", INDEX_OPTION)
      .option("db", DB_OPTION)
      .example("$0 usage --by day", "tokens and cost per day, every project")
      .example("$0 usage --by week,model --since 2026-01-01 --json", "per ISO week and model")
      .example("$0 usage --by project --breakdown", "per project, with each model inside") as unknown as Argv<UsageArgs>,
  handler: async (args) => {
    const by = (args.by ?? []).flatMap((s) => s.split(",")).filter((s) => s !== "");
    for (const k of by)
      if (!(GROUP_KEYS as readonly string[]).includes(k))
        throw new CliError(`--by: unknown key ${JSON.stringify(k)} (one of ${GROUP_KEYS.join(", ")})`);
    const progress = fleetProgress("pisess usage", runIo().stderr);
    let r: Awaited<ReturnType<typeof usageReport>>;
    try {
      r = await usageReport({
        allowUnreadable: args.allowUnreadable === true,
        ...(args.targets !== undefined ? { targets: args.targets } : {}),
        by: by as GroupKey[],
        ...(args.since !== undefined ? { since: args.since } : {}),
        ...(args.until !== undefined ? { until: args.until } : {}),
        ...(args.timezone !== undefined ? { timezone: args.timezone } : {}),
        ...(args.project !== undefined ? { project: args.project } : {}),
        breakdown: args.breakdown === true,
        includeCopied: args.includeCopied === true,
        env: runIo().env,
        cwd: runIo().cwd(),
        ...(progress ? { onProgress: progress.update } : {}),
        ...indexArgs(args),
      });
    } finally {
      progress?.stop();
    }
    const d = r.data;
    for (const line of fleetNoteLines(d)) writeErr(line);
    if (args.json) await writeOut([usageJson(d.by, d.rows, d.totals)], "json");
    else if (args.ndjson) await writeOut([usageNdjson(d.by, d.rows)], "json");
    else await writeOut([usageText(d.by, d.rows, d.totals, styleFor(args))]);
    requestExit(r.exitCode);
  },
};

import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { indexJson, indexText } from "../render/index-update.js";
import { fleetProgress } from "../render/usage-progress.js";
import { fleetNoteLines } from "../render/usage.js";
import { indexReport } from "../reports/fleet-index.js";
import {
  ALLOW_UNREADABLE,
  type GlobalArgs,
  indexPath,
  numberArg,
  requestExit,
  testPause,
  wholeNumbers,
  writeErr,
  writeOut,
  fleetTargets,
} from "./common.js";

interface IndexArgs extends GlobalArgs {
  allowUnreadable?: boolean;
  targets?: string[];
  db?: string;
  wait: number;
  json?: boolean;
}

export const indexCommand: CommandModule<object, IndexArgs> = {
  command: "index [targets..]",
  describe: "Build or update the index database (DuckDB, in the cache dir) that usage and sql answer from",
  builder: (y: Argv) =>
    fleetTargets(y)
      .option("db", { describe: "The database file (default: $XDG_CACHE_HOME/pisess/index.duckdb)", type: "string" })
      .option("wait", { describe: "Seconds to wait for another run's update to end", ...numberArg, default: 10 })
      .check(wholeNumbers({ wait: { min: 0 } }))
      .option("json", { describe: 'One document {"db","files","unchanged",…,"bytesRead","rows","failures"}', type: "boolean" })
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .example("$0 index", "index every session (again: only what changed is read)")
      .example("$0 index ~/.pi/agent/sessions --db /tmp/pi.duckdb", "another database")
      .example("$0 index --json | jq .bytesRead", "the bytes this update read") as unknown as Argv<IndexArgs>,
  handler: async (args) => {
    const progress = fleetProgress("pisess index", runIo().stderr);
    const pause = testPause();
    let r: Awaited<ReturnType<typeof indexReport>>;
    try {
      r = await indexReport({
        allowUnreadable: args.allowUnreadable === true,
        db: indexPath(args.db),
        targets: args.targets ?? [],
        env: runIo().env,
        cwd: runIo().cwd(),
        waitMs: args.wait * 1000,
        ...(progress ? { onProgress: progress.update } : {}),
        ...(pause ? { inTransaction: pause } : {}),
      });
    } finally {
      progress?.stop();
    }
    for (const line of fleetNoteLines({ ...r.data, damage: [] })) writeErr(line);
    if (args.json) await writeOut([indexJson(r.data)], "json");
    else await writeOut([indexText(r.data)]);
    requestExit(r.exitCode);
  },
};

import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { defaultIndexPath, indexExists } from "../io/index-file.js";
import { indexText } from "../render/index-update.js";
import { fleetProgress } from "../render/usage-progress.js";
import { fleetNoteLines } from "../render/usage.js";
import { indexReport } from "../reports/index-report.js";
import {
  ALLOW_UNREADABLE,
  allProjectsAlone,
  allProjectsArg,
  type GlobalArgs,
  numberArg,
  requestExit,
  wholeNumbers,
  writeErr,
  writeOut,
} from "./common.js";

interface IndexArgs extends GlobalArgs {
  allowUnreadable?: boolean;
  targets?: string[];
  db?: string;
  wait: number;
}

/** The index a fleet command uses: --db, else the one in the cache dir (src/io/index-file.ts). */
export function indexPath(db: string | undefined): string {
  return db ?? defaultIndexPath(runIo().env);
}

/** The options usage and sql take to answer from the index. */
export const INDEX_OPTION = {
  describe: "Answer from the index (pisess index), brought up to date first, when it exists; --no-index reads the files",
  type: "boolean",
  default: true,
} as const;
export const DB_OPTION = {
  describe: "The index database to use (made if missing; default: the one in the cache dir)",
  type: "string",
} as const;

/** The index a usage or sql run answers from: --db, else the default one when it exists; none with --no-index. */
export function chosenIndex(args: { index?: boolean; db?: string }): string | undefined {
  if (args.index === false) return undefined;
  if (args.db !== undefined) return args.db;
  const db = defaultIndexPath(runIo().env);
  return indexExists(db) ? db : undefined;
}

/**
 * A test hook, not an option: with PISESS_TEST_INDEX_PAUSE_MS set, an update says so on stderr once inside its
 * transaction and waits that long before committing (the killed-mid-update test kills it there).
 */
export function testPause(): (() => Promise<void>) | undefined {
  const ms = Number(runIo().env.PISESS_TEST_INDEX_PAUSE_MS);
  if (!Number.isFinite(ms) || ms <= 0) return undefined;
  return async () => {
    writeErr("pisess: paused inside the update (PISESS_TEST_INDEX_PAUSE_MS)\n");
    await new Promise((r) => setTimeout(r, ms));
  };
}

/** The report options of the chosen index (none: read the files), the test pause among them. */
export function indexArgs(args: { index?: boolean; db?: string }): { db?: string; inTransaction?: () => Promise<void> } {
  const db = chosenIndex(args);
  if (db === undefined) return {};
  const pause = testPause();
  return { db, ...(pause ? { inTransaction: pause } : {}) };
}

export const indexCommand: CommandModule<object, IndexArgs> = {
  command: "index [targets..]",
  describe: "Build or update the index database (DuckDB, in the cache dir) that usage and sql answer from",
  builder: (y: Argv) =>
    y
      .positional("targets", {
        describe: "Folders (searched recursively) or files; default: the whole sessions dir",
        type: "string",
        array: true,
      })
      .option("all-projects", allProjectsArg("what is read without targets (the default)"))
      .check(allProjectsAlone("targets"))
      .option("db", { describe: "The database file (default: $XDG_CACHE_HOME/pisess/index.duckdb)", type: "string" })
      .option("wait", { describe: "Seconds to wait for another run's update to end", ...numberArg, default: 10 })
      .check(wholeNumbers({ wait: { min: 0 } }))
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .example("$0 index", "index every session (again: only what changed is read)")
      .example("$0 index ~/.pi/agent/sessions --db /tmp/pi.duckdb", "another database") as unknown as Argv<IndexArgs>,
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
    await writeOut([indexText(r.data)]);
    requestExit(r.exitCode);
  },
};

import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { fleetProgress } from "../render/usage-progress.js";
import { fleetNoteLines } from "../render/usage.js";
import { tablesText } from "../render/tables.js";
import { TABLE_FORMATS, TABLE_LAYOUTS, type TableFormat, type TableLayout, tablesReport } from "../reports/tables.js";
import { ALLOW_UNREADABLE, requestExit, styleFor, writeOut, type GlobalArgs, writeErr, fleetTargets } from "./common.js";

interface TablesArgs extends GlobalArgs {
  allowUnreadable?: boolean;
  targets?: string[];
  out: string;
  format: TableFormat;
  layout: TableLayout;
}

export const tablesCommand: CommandModule<object, TablesArgs> = {
  command: "tables [targets..]",
  describe: "Write sessions, entries, messages, tool_calls, usage and leaves as flat tables (parquet or NDJSON) for SQL engines",
  builder: (y: Argv) =>
    fleetTargets(y)
      .option("out", { describe: "A new or empty directory to write the tables to", type: "string", demandOption: true })
      .option("format", { describe: "parquet (through DuckDB) or ndjson", choices: TABLE_FORMATS, default: "parquet" as TableFormat })
      .option("layout", {
        describe: "files: one file per table; hive: a folder per table, Parquet partitioned by day (day=YYYY-MM-DD)",
        choices: TABLE_LAYOUTS,
        default: "files" as TableLayout,
      })
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .example("$0 tables --out /tmp/pi-tables", "every session as parquet tables")
      .example("$0 tables --out /tmp/pi-hive --layout hive", "partitioned by day, for Spark, Trino, ClickHouse, DuckDB")
      .example("$0 tables ~/.pi/agent/sessions --out t --format ndjson", "NDJSON, one object per row") as unknown as Argv<TablesArgs>,
  handler: async (args) => {
    const progress = fleetProgress("pisess tables", runIo().stderr);
    let r: Awaited<ReturnType<typeof tablesReport>>;
    try {
      r = await tablesReport({
        allowUnreadable: args.allowUnreadable === true,
        ...(args.targets !== undefined ? { targets: args.targets } : {}),
        out: args.out,
        format: args.format,
        layout: args.layout,
        env: runIo().env,
        cwd: runIo().cwd(),
        ...(progress ? { onProgress: progress.update } : {}),
      });
    } finally {
      progress?.stop();
    }
    const d = r.data;
    for (const line of fleetNoteLines(d)) writeErr(line);
    await writeOut([tablesText(d.files, d.rows, styleFor(args))]);
    requestExit(r.exitCode);
  },
};

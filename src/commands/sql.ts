import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { fleetProgress } from "../render/usage-progress.js";
import { sqlCsv, sqlJson, sqlNdjson, sqlText } from "../render/sql.js";
import { fleetNoteLines } from "../render/usage.js";
import { sqlReport } from "../reports/sql.js";
import { requestExit, styleFor, writeOut, writeErr, type GlobalArgs } from "./common.js";

interface SqlArgs extends GlobalArgs {
  query: string;
  targets?: string[];
  tables?: string;
  json?: boolean;
  ndjson?: boolean;
  csv?: boolean;
}

export const sqlCommand: CommandModule<object, SqlArgs> = {
  command: "sql <query> [targets..]",
  describe: "Run a SQL query (DuckDB) over the sessions as tables: sessions, entries, messages, tool_calls, usage",
  builder: (y: Argv) =>
    y
      .positional("query", { describe: "The query", type: "string" })
      .positional("targets", {
        describe: "Folders (searched recursively) or files; default: the whole sessions dir",
        type: "string",
        array: true,
      })
      .option("tables", { describe: "Query tables written by pisess tables instead of reading sessions", type: "string" })
      .option("json", { describe: 'One document {"columns":[…],"rows":[{…}]}', type: "boolean" })
      .option("ndjson", { describe: "One row object per line", type: "boolean" })
      .option("csv", { describe: "CSV with a header line", type: "boolean" })
      .conflicts("json", ["ndjson", "csv"])
      .conflicts("ndjson", "csv")
      .example('$0 sql "SELECT tool, count(*) FROM tool_calls WHERE is_error GROUP BY 1 ORDER BY 2 DESC"', "the tools that error most")
      .example('$0 sql --tables /tmp/pi-tables "SELECT count(*) FROM sessions"', "over tables written before") as unknown as Argv<SqlArgs>,
  handler: async (args) => {
    const progress = args.tables === undefined ? fleetProgress("pisess sql", runIo().stderr) : undefined;
    let r: Awaited<ReturnType<typeof sqlReport>>;
    try {
      r = await sqlReport({
        query: args.query,
        ...(args.targets !== undefined ? { targets: args.targets } : {}),
        ...(args.tables !== undefined ? { tables: args.tables } : {}),
        env: runIo().env,
        cwd: runIo().cwd(),
        ...(progress ? { onProgress: progress.update } : {}),
      });
    } finally {
      progress?.stop();
    }
    const d = r.data;
    for (const line of fleetNoteLines(d)) writeErr(line);
    if (args.json) await writeOut([sqlJson(d.columns, d.rows)], "json");
    else if (args.ndjson) await writeOut([sqlNdjson(d.columns, d.rows)], "json");
    else if (args.csv) await writeOut([sqlCsv(d.columns, d.rows)], "data");
    else await writeOut([sqlText(d.columns, d.types, d.rows, styleFor(args))]);
    requestExit(r.exitCode);
  },
};

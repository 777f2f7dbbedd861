import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { fleetProgress } from "../render/usage-progress.js";
import { type SqlWriter, sqlCsvWriter, sqlJsonWriter, sqlNdjsonWriter, sqlTextWriter } from "../render/sql.js";
import { fleetNoteLines } from "../render/usage.js";
import { type SqlHead, sqlStream } from "../reports/sql.js";
import {
  ALLOW_UNREADABLE,
  DB_OPTION,
  INDEX_OPTION,
  indexArgs,
  requestExit,
  styleFor,
  writeOut,
  type GlobalArgs,
  writeErr,
  fleetTargets,
} from "./common.js";

interface SqlArgs extends GlobalArgs {
  allowUnreadable?: boolean;
  index?: boolean;
  db?: string;
  query: string;
  targets?: string[];
  tables?: string;
  json?: boolean;
  ndjson?: boolean;
  csv?: boolean;
}

export const sqlCommand: CommandModule<object, SqlArgs> = {
  command: "sql <query> [targets..]",
  describe: "Run a SQL query (DuckDB) over the sessions as tables: sessions, entries, messages, tool_calls, usage, leaves",
  builder: (y: Argv) =>
    fleetTargets(y.positional("query", { describe: "The query", type: "string" }))
      .option("tables", { describe: "Query tables written by pisess tables instead of reading sessions", type: "string" })
      .option("json", { describe: 'One document {"columns":[…],"rows":[{…}]}', type: "boolean" })
      .option("ndjson", { describe: "One row object per line", type: "boolean" })
      .option("csv", { describe: "CSV with a header line", type: "boolean" })
      .conflicts("json", ["ndjson", "csv"])
      .conflicts("ndjson", "csv")
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .option("index", INDEX_OPTION)
      .option("db", DB_OPTION)
      .conflicts("db", "tables")
      .example('$0 sql "SELECT tool, count(*) FROM tool_calls WHERE is_error GROUP BY 1 ORDER BY 2 DESC"', "the tools that error most")
      .example('$0 sql --tables /tmp/pi-tables "SELECT count(*) FROM sessions"', "over tables written before") as unknown as Argv<SqlArgs>,
  handler: async (args) => {
    const progress = args.tables === undefined ? fleetProgress("pisess sql", runIo().stderr) : undefined;
    let stopped = false;
    const stop = (): void => {
      if (!stopped) progress?.stop();
      stopped = true;
    };
    const writer = (d: SqlHead): SqlWriter => {
      if (args.json) return sqlJsonWriter(d.columns);
      if (args.ndjson) return sqlNdjsonWriter(d.columns);
      if (args.csv) return sqlCsvWriter(d.columns);
      return sqlTextWriter(d.columns, d.types, styleFor(args));
    };
    let r: Awaited<ReturnType<typeof sqlStream>>;
    try {
      r = await sqlStream(
        {
          allowUnreadable: args.allowUnreadable === true,
          query: args.query,
          ...(args.targets !== undefined ? { targets: args.targets } : {}),
          ...(args.tables !== undefined ? { tables: args.tables } : {}),
          env: runIo().env,
          cwd: runIo().cwd(),
          ...(progress ? { onProgress: progress.update } : {}),
          ...(args.tables === undefined ? indexArgs(args) : {}),
        },
        // The rows are written as DuckDB makes them (one chunk at a time), not gathered first.
        async (d, rows) => {
          stop();
          for (const line of fleetNoteLines(d)) writeErr(line);
          const w = writer(d);
          const form = args.json || args.ndjson ? "json" : args.csv ? "data" : "text";
          await writeOut([w.start()], form);
          for await (const chunk of rows) await writeOut([w.rows(chunk)], form);
          await writeOut([w.end()], form);
        },
      );
    } finally {
      stop();
    }
    requestExit(r.exitCode);
  },
};

import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import type { Severity } from "../model/types.js";
import { ALLOW_UNREADABLE, type GlobalArgs, wholeNumbers } from "./common.js";
import { numberArg } from "./common.js";

const FORMATS = ["text", "json", "ndjson", "github", "sarif"] as const;
type Format = (typeof FORMATS)[number];

interface ValidateArgs extends GlobalArgs {
  allowUnreadable?: boolean;
  inputs: string[];
  format: Format;
  strict?: boolean;
  quiet?: boolean;
  failOn: Severity;
  maxWarnings: number;
  allowEmpty?: boolean;
}

export const validateCommand: CommandModule<object, ValidateArgs> = {
  command: "validate <inputs..>",
  describe: "Report every defect in session files, with stable codes (for people and CI)",
  builder: (y: Argv) =>
    y
      .positional("inputs", {
        describe: "Session files, directories (every *.jsonl below) or - for stdin",
        type: "string",
        array: true,
        demandOption: true,
      })
      .option("format", { alias: "f", describe: "Output format", choices: FORMATS, default: "text", type: "string" })
      .option("strict", { describe: "Also report keys the schemas do not know (unknown-key, info)", type: "boolean", default: false })
      .option("quiet", {
        alias: "q",
        describe: "Show errors only (the exit status still counts everything)",
        type: "boolean",
        default: false,
      })
      .option("fail-on", {
        describe: "Lowest severity that makes the exit status 1",
        choices: ["error", "warning", "info"],
        default: "error",
        type: "string",
      })
      .option("max-warnings", {
        describe: "Exit 1 when there are more than N warnings (as ESLint); -1: no limit",
        ...numberArg,
        default: -1,
      })
      .option("allow-empty", {
        describe: "A folder without session files is fine (by default it is an input error, exit 2)",
        type: "boolean",
      })
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .example("$0 validate session.jsonl", "every defect, then a summary table")
      .example("$0 validate ~/.pi/agent/sessions --quiet", "errors only, for every session below the folder")
      .example("$0 validate s.jsonl --format json | jq '.summary.byCode'", "counts per code")
      .example("$0 validate sessions/ --format github --fail-on warning", "annotations in a GitHub Actions job")
      .example("$0 validate sessions/ --format sarif > pisess.sarif", "for code scanning tools")
      .check(wholeNumbers({ "max-warnings": { min: -1, note: "-1: no limit" } })) as unknown as Argv<ValidateArgs>,
  handler: async (args) => {
    const common = await import("./common.js");
    const { validateReport } = await import("../reports/validate.js");
    const r = await validateReport({
      allowUnreadable: args.allowUnreadable === true,
      inputs: args.inputs,
      strict: args.strict === true,
      quiet: args.quiet === true,
      failOn: args.failOn,
      maxWarnings: args.maxWarnings,
      allowEmpty: args.allowEmpty === true,
      // Files pisess does not read (foreign formats, future versions) are findings here, not errors.
      open: (file, load) => common.openInput(file, { ...load, unsupported: "read" }),
      isStdin: common.isStdin,
      displayName: common.displayName,
      progress: (name, bytes) =>
        runIo().stderr.isTTY === true && bytes >= 64 << 20 ? common.progressReporter("checking", name, bytes) : undefined,
    });
    const { noteLine } = await import("../render/notes.js");
    for (const n of r.data.notes) common.writeErr(noteLine(n));
    const { shown, summary } = r.data;
    // Known before a line is written: a reader that leaves early (`| head`) does not turn a failing run into 0.
    common.requestExit(r.exitCode);
    switch (args.format) {
      case "json": {
        const { validateJson } = await import("../render/validate-json.js");
        await common.writeOut(validateJson(shown, summary), "json");
        break;
      }
      case "ndjson": {
        const { validateNdjson } = await import("../render/validate-json.js");
        await common.writeOut(validateNdjson(shown), "json");
        break;
      }
      case "github": {
        const { validateGithub } = await import("../render/validate-github.js");
        await common.writeOut(validateGithub(shown));
        break;
      }
      case "sarif": {
        const [{ validateSarif }, { CODES }, { packageVersion }] = await Promise.all([
          import("../render/validate-sarif.js"),
          import("../model/codes.js"),
          import("../io/package.js"),
        ]);
        const codes = Object.entries(CODES) as [string, Severity][];
        await common.writeOut([validateSarif(shown, { version: packageVersion(), codes })], "json");
        break;
      }
      default: {
        const { validateText } = await import("../render/validate-text.js");
        await common.writeOut([validateText(shown, summary, common.styleFor(args), r.data.hidden)]);
      }
    }
  },
};

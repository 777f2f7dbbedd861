import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import type { Severity } from "../model/types.js";
import { ALLOW_UNREADABLE, allProjectsAlone, allProjectsArg, CliError, type GlobalArgs, repeatableArg } from "./common.js";

const FORMATS = ["text", "json", "ndjson", "github", "sarif"] as const;
type Format = (typeof FORMATS)[number];

interface SecretsArgs extends GlobalArgs {
  inputs?: string[];
  allProjects?: boolean;
  format: Format;
  json?: boolean;
  pattern?: string[];
  allow?: string[];
  showSecret?: boolean;
  failOn: Severity;
  allowEmpty?: boolean;
  allowUnreadable?: boolean;
}

/** A user's regular expression, or exit 2 naming the option. */
function compile(option: string, source: string): RegExp {
  try {
    return new RegExp(source, "u");
  } catch (err) {
    throw new CliError(`--${option} ${source}: not a JavaScript regular expression (${(err as Error).message})`);
  }
}

export const secretsCommand: CommandModule<object, SecretsArgs> = {
  command: "secrets [inputs..]",
  describe: "Find secrets in sessions: where, from which tool call, and whether they were sent to the model",
  builder: (y: Argv) =>
    y
      .positional("inputs", {
        describe: "Session files, directories (every *.jsonl below) or - for stdin; default: the sessions of the current directory",
        type: "string",
        array: true,
      })
      .option("all-projects", allProjectsArg("scanned instead of the current directory's"))
      .option("format", { alias: "f", describe: "Output format", choices: FORMATS, default: "text", type: "string" })
      .option("json", { describe: "Same as --format json: findings, secrets and per-file counts", type: "boolean" })
      .option("pattern", { describe: "Also report matches of a rule of your own, NAME=REGEX (repeat for more)", ...repeatableArg })
      .option("allow", { describe: "Values matching REGEX are known test values, not findings (repeat for more)", ...repeatableArg })
      .option("show-secret", {
        describe: "Print the values themselves (masked by default: first 4 characters and length)",
        type: "boolean",
      })
      .option("fail-on", {
        describe: "Lowest severity that makes the exit status 1: warning, any secret; error, only secrets sent to the model",
        choices: ["error", "warning"],
        default: "warning",
        type: "string",
      })
      .option("allow-empty", { describe: "A folder without session files is fine (by default an input error, exit 2)", type: "boolean" })
      .option("allow-unreadable", ALLOW_UNREADABLE)
      .check(allProjectsAlone("inputs"))
      .example("$0 secrets session.jsonl", "every secret, where it was found and whether it reached the model")
      .example("$0 secrets ~/.pi/agent/sessions --fail-on error", "exit 1 only for secrets sent to the model")
      .example("$0 secrets s.jsonl --pattern 'acme=acme_[a-z0-9]{32}' --allow 'EXAMPLE'", "a rule of your own; known test values left out")
      .epilogue("Exit status: 0 when no secret was found, 1 when one was (see --fail-on), 2 on errors.") as unknown as Argv<SecretsArgs>,
  handler: async (args) => {
    const common = await import("./common.js");
    const { secretsReport } = await import("../reports/secrets.js");
    const { PRESET_RULE_IDS } = await import("../check/secrets.js");
    const patterns = (args.pattern ?? []).map((p) => {
      const eq = p.indexOf("=");
      const name = eq > 0 ? p.slice(0, eq) : "";
      if (!/^[A-Za-z0-9_.-]+$/.test(name))
        throw new CliError(`--pattern ${p}: expected NAME=REGEX (NAME of letters, digits, '.', '_', '-')`);
      if (PRESET_RULE_IDS.includes(name)) throw new CliError(`--pattern ${p}: ${name} is a rule of the preset; pick another name`);
      return { name, regex: compile("pattern", p.slice(eq + 1)) };
    });
    const allow = (args.allow ?? []).map((a) => compile("allow", a));
    const inputs =
      (args.inputs ?? []).length > 0
        ? (args.inputs as string[])
        : [await (await import("../io/discover.js")).defaultSessionRoot(args.allProjects === true, runIo().env, runIo().cwd())];
    const show = args.showSecret === true;
    const r = await secretsReport({
      inputs,
      patterns,
      allow,
      showSecret: show,
      failOn: args.failOn,
      allowEmpty: args.allowEmpty === true,
      allowUnreadable: args.allowUnreadable === true,
      open: (file, load) => common.openInput(file, load),
      isStdin: common.isStdin,
      displayName: common.displayName,
    });
    const { noteLine } = await import("../render/notes.js");
    for (const n of r.data.notes) common.writeErr(noteLine(n));
    common.requestExit(r.exitCode);
    const format = args.json === true ? "json" : args.format;
    await writeSecrets(format, r.data, common.styleFor(args));
  },
};

async function writeSecrets(
  format: Format,
  data: import("../reports/secrets.js").SecretsData,
  style: import("../render/style.js").Style,
): Promise<void> {
  const { writeOut } = await import("./common.js");
  switch (format) {
    case "json": {
      const { secretsJson } = await import("../render/secrets.js");
      await writeOut([secretsJson(data)], "json");
      break;
    }
    case "ndjson": {
      const { validateNdjson } = await import("../render/validate-json.js");
      await writeOut(validateNdjson(data.results), "json");
      break;
    }
    case "github": {
      const { validateGithub } = await import("../render/validate-github.js");
      await writeOut(validateGithub(data.results));
      break;
    }
    case "sarif": {
      const [{ validateSarif }, { CODES }, { packageVersion }] = await Promise.all([
        import("../render/validate-sarif.js"),
        import("../model/codes.js"),
        import("../io/package.js"),
      ]);
      const codes: [string, Severity][] = [
        ["secret-sent", CODES["secret-sent"]],
        ["secret-unsent", CODES["secret-unsent"]],
      ];
      await writeOut([validateSarif(data.results, { version: packageVersion(), codes })], "json");
      break;
    }
    default: {
      const { secretsText } = await import("../render/secrets.js");
      await writeOut([secretsText(data, style)]);
    }
  }
}

import type { Argv, CommandModule } from "yargs";
import type { Severity } from "../model/types.js";
import { CliError, type GlobalArgs } from "./common.js";

const FORMATS = ["text", "json", "ndjson", "github", "sarif"] as const;
type Format = (typeof FORMATS)[number];

interface ValidateArgs extends GlobalArgs {
  inputs: string[];
  format: Format;
  strict?: boolean;
  quiet?: boolean;
  failOn: Severity;
  maxWarnings: number;
}

export const validateCommand: CommandModule<object, ValidateArgs> = {
  command: "validate <inputs..>",
  describe: "Report every defect in session files, with stable codes (for people and CI)",
  builder: (y: Argv) =>
    y
      .positional("inputs", { describe: "Session files, directories (every *.jsonl below) or - for stdin", type: "string", array: true, demandOption: true })
      .option("format", { alias: "f", describe: "Output format", choices: FORMATS, default: "text", type: "string" })
      .option("strict", { describe: "Also report keys the schemas do not know (unknown-key, info)", type: "boolean", default: false })
      .option("quiet", { alias: "q", describe: "Show errors only (the exit status still counts everything)", type: "boolean", default: false })
      .option("fail-on", { describe: "Lowest severity that makes the exit status 1", choices: ["error", "warning", "info"], default: "error", type: "string" })
      .option("max-warnings", { describe: "Exit 1 when there are more than N warnings (as ESLint); -1: no limit", type: "number", default: -1 })
      .example("$0 validate session.jsonl", "every defect, then a summary table")
      .example("$0 validate ~/.pi/agent/sessions --quiet", "errors only, for every session below the folder")
      .example("$0 validate s.jsonl --format json | jq '.summary.byCode'", "counts per code")
      .example("$0 validate sessions/ --format github --fail-on warning", "annotations in a GitHub Actions job")
      .example("$0 validate sessions/ --format sarif > pisess.sarif", "for code scanning tools")
      .check((a) => {
        const mw = a["max-warnings"] as unknown;
        if (typeof mw !== "number" || !Number.isInteger(mw)) throw new CliError("--max-warnings needs an integer");
        return true;
      }) as unknown as Argv<ValidateArgs>,
  handler: async (args) => {
    process.exitCode = await runValidate(args);
  },
};

interface Input {
  name: string;
  ioError?: string;
}

/** Files as given, directories expanded to every *.jsonl below them (sorted, symlinked folders not followed). */
async function expandInputs(inputs: readonly string[]): Promise<Input[]> {
  const { stat } = await import("node:fs/promises");
  const { listSessionFiles } = await import("../io/discover.js");
  const { ioReason, isStdin } = await import("./common.js");
  const out: Input[] = [];
  for (const input of inputs) {
    if (isStdin(input)) {
      out.push({ name: input });
      continue;
    }
    let info;
    try {
      info = await stat(input);
    } catch (err) {
      out.push({ name: input, ioError: ioReason(err) });
      continue;
    }
    if (!info.isDirectory()) {
      out.push({ name: input });
      continue;
    }
    const found = await listSessionFiles(input, (dir, err) => out.push({ name: dir, ioError: ioReason(err) }));
    if (found.length === 0) process.stderr.write(`pisess: ${input}: no .jsonl files in this folder\n`);
    for (const f of found) out.push({ name: f });
  }
  return out;
}

async function runValidate(args: ValidateArgs): Promise<number> {
  // Heavy modules (ajv, the schemas, cli-table3) load only when validate runs: `pisess --help` stays fast.
  const [{ checkSession }, summaryMod, common, { CODES }] = await Promise.all([
    import("../check/validate.js"),
    import("../check/summary.js"),
    import("./common.js"),
    import("../model/codes.js"),
  ]);
  const { summarize, exitStatus, atLeast } = summaryMod;
  if (args.inputs.filter((i) => common.isStdin(i)).length > 1) throw new CliError("stdin (-) can be read only once");
  const inputs = await expandInputs(args.inputs);
  const results: import("../check/summary.js").FileResult[] = [];
  for (const input of inputs) {
    const name = common.displayName(input.name);
    if (input.ioError !== undefined) {
      process.stderr.write(`pisess: ${name}: ${input.ioError}\n`);
      results.push({ file: name, diagnostics: [], ioError: input.ioError });
      continue;
    }
    let session;
    try {
      session = await common.openInput(input.name, { unsupported: "read" });
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      const reason = err.message.startsWith(name + ": ") ? err.message.slice(name.length + 2) : err.message;
      process.stderr.write(`pisess: ${err.message}\n`);
      results.push({ file: name, diagnostics: [], ioError: reason });
      continue;
    }
    const progress = process.stderr.isTTY === true && session.facts.bytes >= 64 << 20 ? common.progressReporter("checking", name, session.facts.bytes) : undefined;
    try {
      const diagnostics = checkSession(session, { strict: args.strict === true, ...(progress ? { onProgress: progress.update } : {}) });
      results.push({ file: session.file, diagnostics });
    } catch (err) {
      // Only I/O failures (the file vanished or shrank mid-read) are a per-file error; anything else is a bug.
      if ((err as NodeJS.ErrnoException)?.code === undefined && !/shrank/.test(String(err))) throw err;
      const reason = common.ioReason(err);
      process.stderr.write(`pisess: ${name}: ${reason}\n`);
      results.push({ file: name, diagnostics: [], ioError: reason });
    } finally {
      progress?.done();
      session.store.close();
    }
  }

  const shown = args.quiet ? atLeast(results, "error") : results;
  const summary = summarize(shown);
  switch (args.format) {
    case "json": {
      const { validateJson } = await import("../render/validate-json.js");
      await common.writeOut(validateJson(shown, summary));
      break;
    }
    case "ndjson": {
      const { validateNdjson } = await import("../render/validate-json.js");
      await common.writeOut(validateNdjson(shown));
      break;
    }
    case "github": {
      const { validateGithub } = await import("../render/validate-github.js");
      await common.writeOut(validateGithub(shown));
      break;
    }
    case "sarif": {
      const { validateSarif } = await import("../render/validate-sarif.js");
      const { readFileSync } = await import("node:fs");
      const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
      const codes = Object.entries(CODES) as [string, Severity][];
      await common.writeOut([validateSarif(shown, { version: pkg.version, codes })]);
      break;
    }
    default: {
      const { validateFindingLines, validateSummaryLines } = await import("../render/validate-text.js");
      const style = common.styleFor(args);
      const lines = [...validateFindingLines(shown, style), ...validateSummaryLines(summary, style)];
      await common.writeOut([lines.join("\n") + "\n"]);
    }
  }
  return exitStatus(results, { failOn: args.failOn, maxWarnings: args.maxWarnings });
}

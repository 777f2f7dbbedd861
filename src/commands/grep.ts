import { createReadStream } from "node:fs";
import type { Argv, CommandModule } from "yargs";
import { LineSplitter } from "../io/lines.js";
import { GrepScanner, type GrepHit } from "../ops/grep.js";
import { grepHitObject, grepTextLine } from "../render/grep.js";
import { CliError, ioReason, styleFor, writeOut, type GlobalArgs } from "./common.js";
import { collectFiles, defaultSessionRoot } from "./ls.js";

interface GrepArgs extends GlobalArgs {
  pattern: string;
  targets?: string[];
  ignoreCase?: boolean;
  role?: string[];
  type?: string[];
  context: number;
  json?: boolean;
  ndjson?: boolean;
}

/** `--role a,b --role c` → ["a", "b", "c"]. Not a yargs array: that would swallow the targets after it. */
function listArg(v: unknown): string[] {
  return (Array.isArray(v) ? v : [v]).flatMap((s) => String(s).split(",")).map((s) => s.trim()).filter(Boolean);
}

export const grepCommand: CommandModule<object, GrepArgs> = {
  command: "grep <pattern> [targets..]",
  describe: "Search message text, thinking, tool calls and tool output across sessions (JS regex)",
  builder: (y: Argv) =>
    y
      .positional("pattern", { describe: "JavaScript regular expression", type: "string", demandOption: true })
      .positional("targets", { describe: "Session files or folders (recursive); default: the sessions of the current directory", type: "string", array: true })
      .option("ignore-case", { alias: "i", describe: "Case-insensitive", type: "boolean" })
      .option("role", { describe: "Only messages of these roles, comma-separated or repeated (user, assistant, toolResult, bashExecution, custom, …)", type: "string", requiresArg: true, coerce: listArg })
      .option("type", { describe: "Only entries of these types, comma-separated or repeated (message, compaction, branch_summary, custom_message, …)", type: "string", requiresArg: true, coerce: listArg })
      .option("context", { describe: "Characters of context each side of the match", type: "number", default: 60 })
      .option("json", { describe: 'One document {"hits":[…]}', type: "boolean" })
      .option("ndjson", { describe: 'One {"file","line","id","role","type","field","path","snippet"} per hit', type: "boolean" })
      .conflicts("json", "ndjson")
      .example("$0 grep 'ERR_STRING_TOO_LONG' ~/.pi/agent/sessions", "every session that hit the error")
      .example("$0 grep -i 'rm -rf' --role assistant --ndjson | jq -r '\"\\(.file) \\(.id)\"'", "assistant turns that mention rm -rf")
      .epilogue("Exit status: 0 when something matched, 1 when nothing did, 2 on errors (like grep).") as unknown as Argv<GrepArgs>,
  handler: async (args) => {
    let re: RegExp;
    try {
      re = new RegExp(String(args.pattern), args.ignoreCase ? "iu" : "u");
    } catch {
      try {
        re = new RegExp(String(args.pattern), args.ignoreCase ? "i" : "");
      } catch (err) {
        throw new CliError(`invalid pattern: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (!Number.isInteger(args.context) || args.context < 0) throw new CliError("--context wants a whole number ≥ 0");
    let failed = false;
    const fail = (path: string, reason: string): void => {
      failed = true;
      process.stderr.write(`pisess: ${path}: ${reason}\n`);
    };
    const targets = (args.targets ?? []).length > 0 ? (args.targets as string[]) : [await defaultSessionRoot(false)];
    const files = await collectFiles(targets, fail);
    const style = styleFor(args);
    const roles = new Set(args.role ?? []);
    const types = new Set(args.type ?? []);
    let hits = 0;
    let firstJson = true;
    if (args.json) await writeOut(['{"hits":[']);
    for (const file of files) {
      const scanner = new GrepScanner({ re, roles, types, context: args.context });
      let pending: GrepHit[] = [];
      const splitter = new LineSplitter((raw) => {
        const hit = scanner.feed(raw.line, raw.text);
        if (hit) pending.push(hit);
      });
      const flush = async (): Promise<void> => {
        if (pending.length === 0) return;
        const out: string[] = [];
        for (const hit of pending) {
          hits++;
          if (args.json) {
            out.push((firstJson ? "" : ",") + JSON.stringify(grepHitObject(file, hit)));
            firstJson = false;
          } else if (args.ndjson) out.push(JSON.stringify(grepHitObject(file, hit)) + "\n");
          else out.push(grepTextLine(file, hit, style));
        }
        pending = [];
        await writeOut([out.join("")]);
      };
      try {
        // Stream the file; hits go out chunk by chunk, so memory stays bounded whatever the file size.
        for await (const chunk of createReadStream(file, { flags: "r", highWaterMark: 1 << 20 })) {
          splitter.push(chunk as Buffer);
          await flush();
        }
        splitter.end();
        await flush();
      } catch (err) {
        pending = [];
        fail(file, ioReason(err));
      }
    }
    if (args.json) await writeOut(["]}\n"]);
    process.exitCode = failed ? 2 : hits > 0 ? 0 : 1;
  },
};

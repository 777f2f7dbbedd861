import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { showJson, showSkippedJson, showText } from "../render/show.js";
import { diagnosticLine } from "../render/diagnostics.js";
import { sanitize } from "../render/sanitize.js";
import { showReport, showSkippedReport } from "../reports/show.js";
import { openInput, requestExit, styleFor, writeOut, writeErr, type GlobalArgs } from "./common.js";

interface ShowArgs extends GlobalArgs {
  file: string;
  ref: string;
  raw?: boolean;
  json?: boolean;
}

/** The exact line for a pipe or file; on a terminal, control, bidi and C1 characters shown as escapes (never raw). */
function rawOut(text: string): string {
  return runIo().stdout.isTTY === true ? sanitize(text) : text;
}

/** --raw is the line as it is, except on a terminal (rawOut). */
function rawForm(): "text" | "data" {
  return runIo().stdout.isTTY === true ? "text" : "data";
}

export const showCommand: CommandModule<object, ShowArgs> = {
  command: "show <file> <ref>",
  describe: "Show one entry: its line, parent, children, label and content",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .positional("ref", { describe: "Entry: id, id prefix, @LINE, label:NAME or leaf", type: "string", demandOption: true })
      .option("raw", {
        describe: "Print the exact original line, nothing else (control characters escaped on a terminal)",
        type: "boolean",
      })
      .option("json", {
        describe:
          'One document {"file","line","id","type","role","timestamp","parent","parentId","children","label","target","editedBy","entry"}',
        type: "boolean",
      })
      .conflicts("raw", "json")
      .example("$0 show session.jsonl @42", "the entry on line 42")
      .example("$0 show session.jsonl label:checkpoint --json | jq .entry.message.content", "the content of a labelled entry")
      .example("$0 show session.jsonl leaf --raw", "the last line, byte for byte (decoded as UTF-8)") as unknown as Argv<ShowArgs>,
  handler: async (args) => {
    const session = await openInput(args.file);
    try {
      const ref = String(args.ref);
      const r = (await showSkippedReport(session, ref)) ?? showReport(session, { ref, raw: args.raw === true });
      requestExit(r.exitCode);
      const d = r.data;
      if (d.skipped !== undefined) {
        for (const x of r.diagnostics) writeErr(diagnosticLine(x));
        if (args.json) await writeOut([showSkippedJson(d.skipped, r.diagnostics)], "json");
        else if (d.skipped.text !== null) await writeOut([`${rawOut(d.skipped.text)}\n`], rawForm());
      } else if (d.raw !== undefined) await writeOut([`${rawOut(d.raw)}\n`], rawForm());
      else await writeOut([args.json ? showJson(d.entry) : showText(d.entry, styleFor(args))], args.json ? "json" : "text");
    } finally {
      session.store.close();
    }
  },
};

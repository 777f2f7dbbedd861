import type { Argv, CommandModule } from "yargs";
import { showJson, showText } from "../render/show.js";
import { showReport } from "../reports/show.js";
import { openInput, requestExit, styleFor, writeOut, type GlobalArgs } from "./common.js";

interface ShowArgs extends GlobalArgs {
  file: string;
  ref: string;
  raw?: boolean;
  json?: boolean;
}

export const showCommand: CommandModule<object, ShowArgs> = {
  command: "show <file> <ref>",
  describe: "Show one entry: its line, parent, children, label and content",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .positional("ref", { describe: "Entry: id, id prefix, @LINE, label:NAME or leaf", type: "string", demandOption: true })
      .option("raw", { describe: "Print the exact original line, nothing else", type: "boolean" })
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
      const r = showReport(session, { ref: String(args.ref), raw: args.raw === true });
      requestExit(r.exitCode);
      if (r.data.raw !== undefined) await writeOut([`${r.data.raw}\n`]);
      else await writeOut([args.json ? showJson(r.data.entry) : showText(r.data.entry, styleFor(args))]);
    } finally {
      session.store.close();
    }
  },
};

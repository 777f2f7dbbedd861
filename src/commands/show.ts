import type { Argv, CommandModule } from "yargs";
import { readEntry } from "../model/session.js";
import { editsTargeting } from "../ops/edits.js";
import { buildTree } from "../ops/tree.js";
import { showJson, showText, type ShowReport } from "../render/show.js";
import { entryRef, openInput, styleFor, writeOut, type GlobalArgs } from "./common.js";

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
      .option("json", { describe: 'One document {"file","line","id","type","role","timestamp","parent","parentId","children","label","target","editedBy","entry"}', type: "boolean" })
      .conflicts("raw", "json")
      .example("$0 show session.jsonl @42", "the entry on line 42")
      .example("$0 show session.jsonl label:checkpoint --json | jq .entry.message.content", "the content of a labelled entry")
      .example("$0 show session.jsonl leaf --raw", "the last line, byte for byte (decoded as UTF-8)") as unknown as Argv<ShowArgs>,
  handler: async (args) => {
    const session = await openInput(args.file);
    try {
      const rec = entryRef(session, String(args.ref));
      if (args.raw) {
        await writeOut([session.store.rawLine(rec) + "\n"]);
        return;
      }
      const tree = buildTree(session);
      const parent = tree.parent[rec.index] ?? null;
      const node = tree.nodes[rec.index];
      const target = rec.targetId === undefined ? undefined : session.byId.get(rec.targetId);
      const report: ShowReport = {
        file: session.file,
        line: rec.line,
        id: rec.id ?? null,
        type: rec.type,
        role: rec.type === "message" ? (rec.role ?? null) : null,
        timestamp: rec.timestamp ?? null,
        parent: parent ? { id: parent.id ?? null, line: parent.line } : null,
        parentId: typeof rec.parentId === "string" ? rec.parentId : null,
        children: (node?.children ?? []).map((c) => ({ id: c.rec.id ?? null, line: c.rec.line })),
        label: rec.id !== undefined ? (session.labels.get(rec.id) ?? null) : null,
        target: target ? { id: target.id ?? null, line: target.line } : null,
        editedBy: editsTargeting(session, rec).map((e) => ({ id: e.id ?? null, line: e.line })),
        entry: readEntry(session, rec),
      };
      await writeOut([args.json ? showJson(report) : showText(report, styleFor(args))]);
    } finally {
      session.store.close();
    }
  },
};

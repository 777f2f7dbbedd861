import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import { describeContextStream } from "../render/context-display.js";
import { contextJsonChunks } from "../render/context-json.js";
import { contextMarkdown } from "../render/context-markdown.js";
import { contextText } from "../render/context-text.js";
import { diagnosticLine } from "../render/diagnostics.js";
import { contextReport, resolveSessionFile } from "../reports/context.js";
import {
  emptyNote,
  openInput,
  wholeNumbers,
  problemSummary,
  requestExit,
  styleFor,
  writeOut,
  type GlobalArgs,
  allProjectsArg,
  numberArg,
  writeErr,
} from "./common.js";

interface ContextArgs extends GlobalArgs {
  file?: string;
  leaf: string;
  session?: string;
  allProjects?: boolean;
  json?: boolean;
  ndjson?: boolean;
  llm?: boolean;
  format: "text" | "markdown";
  thinking: boolean;
  maxOutput: number;
  showEdits?: boolean;
}

export const contextCommand: CommandModule<object, ContextArgs> = {
  command: "context [file]",
  describe: "Show exactly what the model saw at a leaf (pi's session context)",
  builder: (y: Argv) =>
    y
      .positional("file", {
        describe: "Session file (- for stdin); default: the most recent session of the current directory",
        type: "string",
      })
      .option("leaf", { describe: "Leaf: id, id prefix, @LINE, label:NAME or leaf", type: "string", default: "leaf", requiresArg: true })
      .option("session", {
        describe: "Pick the session whose id starts with ID (in the current directory's folder)",
        type: "string",
        requiresArg: true,
      })
      .option("all-projects", allProjectsArg("where --session looks"))
      .option("json", { describe: 'One document {"file","leaf","thinkingLevel","model","messages","entries"}', type: "boolean" })
      .option("ndjson", { describe: "One message per line", type: "boolean" })
      .option("llm", { describe: "Messages as sent to the LLM (after pi's convertToLlm)", type: "boolean" })
      .option("format", { describe: "Text rendering", choices: ["text", "markdown"], default: "text", type: "string" })
      .option("thinking", { describe: "Show thinking blocks (--no-thinking hides them)", type: "boolean", default: true })
      .option("max-output", {
        describe: "Cut tool and command outputs to N lines (0 = all)",
        ...numberArg,
        default: 20,
      })
      .option("show-edits", {
        describe: "Text views: also show what edited messages said in the file, and the messages edits removed",
        type: "boolean",
      })
      .conflicts("json", "ndjson")
      .conflicts("file", "session")
      .implies("all-projects", "session")
      .check(wholeNumbers({ "max-output": { min: 0, note: "0: all" } }))
      .example("$0 context", "the context of the most recent session here, at its leaf")
      .example("$0 context session.jsonl --leaf @120 --no-thinking", "what the model saw at line 120, without thinking")
      .example("$0 context session.jsonl --show-edits", "what the model saw, and what context edits changed or removed")
      .example("$0 context session.jsonl --llm --json | jq '.messages | length'", "how many messages went to the LLM")
      .example(
        "$0 context --session 0194 --all-projects --format markdown > ctx.md",
        "a session by id, as Markdown",
      ) as unknown as Argv<ContextArgs>,
  handler: async (args) => {
    const file =
      args.file ??
      (await resolveSessionFile({ session: args.session, allProjects: args.allProjects, cwd: runIo().cwd(), env: runIo().env }));
    // Every output reads the path's entries back whole; the index needs only the skeleton (ids, parents, types,
    // compaction fields).
    const session = await openInput(file, { detail: "skeleton" });
    try {
      const json = args.json === true || args.ndjson === true;
      const base = { leaf: args.leaf, llm: args.llm === true };
      const display = { thinking: args.thinking, maxOutput: args.maxOutput, showEdits: args.showEdits === true };
      // The output form is the user's choice; the report takes the fast path it allows.
      const r = json ? contextReport(session, { ...base, output: "json" }) : contextReport(session, { ...base, output: args.format });
      const { leaf, context: c, note, problems } = r.data;
      if (c === null) {
        for (const d of r.diagnostics) writeErr(diagnosticLine(d));
        requestExit(r.exitCode);
        return;
      }
      requestExit(r.exitCode);
      if ("messageJson" in c)
        await writeOut(
          contextJsonChunks(
            session.file,
            leaf,
            c.context,
            c.messages,
            c.sources,
            c.editedBy,
            args.json === true,
            c.messageJson,
            c.messageBytes,
          ),
          "json",
        );
      else if (leaf) {
        // The display model is made from the report's data (its facts), for the renderer asked for; items as written.
        const shown = describeContextStream(session.file, leaf, c, display);
        await writeOut(args.format === "markdown" ? contextMarkdown(shown) : contextText(shown, { style: styleFor(args) }));
      }
      if (note) writeErr(diagnosticLine(note));
      if (!leaf) writeErr(emptyNote(session.file, "context"));
      for (const d of problems) if (d.severity !== "info") writeErr(diagnosticLine(d));
      problemSummary(session.file, r.diagnostics);
    } finally {
      session.store.close();
    }
  },
};

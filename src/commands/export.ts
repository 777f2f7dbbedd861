import { runIo } from "./run-state.js";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type { Argv, CommandModule } from "yargs";
import type { Session } from "../model/session.js";
import { diagnosticLine } from "../render/diagnostics.js";
import { factRows } from "../render/export-facts.js";
import { exportHtml } from "../render/export-html.js";
import { jsonlExportNotes } from "../render/export-notes.js";
import { branchMarkdown } from "../render/export-markdown.js";
import type { OutForm } from "../render/sanitize.js";
import { resolveSessionFile } from "../reports/context.js";
import {
  branchEntries,
  checkOutput,
  exportFacts,
  exportJsonl,
  exportPath,
  fileModified,
  htmlPayload,
  readBundle,
  writeChunksTo,
} from "../reports/export.js";
import { findingsReported, isStdin, openInput, requestExit, writeFileOut, writeOut, writeErr, type GlobalArgs } from "./common.js";

type Format = "html" | "markdown" | "jsonl";

interface ExportArgs extends GlobalArgs {
  file?: string;
  leaf: string;
  session?: string;
  allProjects?: boolean;
  format?: Format;
  output?: string;
  force?: boolean;
  images: boolean;
}

function pickFormat(args: ExportArgs): Format {
  if (args.format) return args.format;
  const out = args.output?.toLowerCase();
  if (out?.endsWith(".html") || out?.endsWith(".htm")) return "html";
  if (out?.endsWith(".md") || out?.endsWith(".markdown")) return "markdown";
  if (out?.endsWith(".jsonl")) return "jsonl";
  return runIo().stdout.isTTY === true && out === undefined ? "markdown" : "html";
}

async function writeChunks(chunks: Iterable<string>, out: string | undefined, force: boolean, form: OutForm): Promise<void> {
  if (out === undefined) return writeOut(chunks, form);
  // A file gets what stdout would: a lone surrogate's escape in a session file (jsonl) is U+FFFD too.
  return writeFileOut(chunks, form, (filtered) => writeChunksTo(filtered, out, force));
}

export const exportCommand: CommandModule<object, ExportArgs> = {
  command: "export [file]",
  describe: "Export a branch: one self-contained HTML page, Markdown, or a clean v3 session file",
  builder: (y: Argv) =>
    y
      .positional("file", {
        describe: "Session file (- for stdin); default: the most recent session of the current directory",
        type: "string",
      })
      .option("leaf", { describe: "Leaf: id, id prefix, @LINE, label:NAME or leaf", type: "string", default: "leaf" })
      .option("session", { describe: "Pick the session whose id starts with ID", type: "string", requiresArg: true })
      .option("all-projects", { describe: "With --session: search the folders of every project", type: "boolean" })
      .option("format", {
        describe: "html (default when stdout is not a terminal or -o ends in .html), markdown, jsonl",
        choices: ["html", "markdown", "jsonl"],
        type: "string",
      })
      .option("output", {
        alias: "o",
        describe: "Write to OUT instead of stdout (never an existing .jsonl or the input)",
        type: "string",
        requiresArg: true,
      })
      .option("force", { describe: "Overwrite OUT when it exists (never a .jsonl)", type: "boolean" })
      .option("images", { describe: "HTML: embed images as data: URIs (--no-images drops them)", type: "boolean", default: true })
      .conflicts("file", "session")
      .implies("all-projects", "session")
      .example("$0 export session.jsonl -o session.html", "the whole session as one page, to open in a browser")
      .example("$0 export session.jsonl --leaf label:good --format jsonl -o good.jsonl", "the branch to a label as a new session file")
      .example("$0 export session.jsonl --format markdown > branch.md", "the current branch as Markdown") as unknown as Argv<ExportArgs>,
  handler: async (args) => {
    const file =
      args.file ??
      (await resolveSessionFile({ session: args.session, allProjects: args.allProjects, cwd: runIo().cwd(), env: runIo().env }));
    const format = pickFormat(args);
    const stdin = isStdin(file);
    if (args.output !== undefined) checkOutput(args.output, stdin ? undefined : file, args.force === true);
    const bundle = format === "html" ? readBundle() : "";
    const session = await openInput(file, {});
    try {
      if (format === "jsonl") return await jsonl(session, args, stdin);
      const { leaf, path, diagnostics } = exportPath(session, args.leaf);
      if (path === null) {
        for (const d of diagnostics) writeErr(diagnosticLine(d));
        requestExit(1);
        return;
      }
      const facts = await exportFacts(session, stdin ? null : fileModified(file));
      const rows = factRows(facts);
      if (format === "markdown") {
        await writeChunks(
          branchMarkdown({ facts: rows, leaf, entries: branchEntries(session, path), count: path.length }),
          args.output,
          args.force === true,
          "text",
        );
      } else {
        await writeChunks(
          exportHtml(htmlPayload(session, leaf, facts, rows, args.images), bundle),
          args.output,
          args.force === true,
          "data",
        );
      }
      requestExit(0);
    } finally {
      session.store.close();
    }
  },
};

async function jsonl(session: Session, args: ExportArgs, stdin: boolean): Promise<void> {
  const r = await exportJsonl(session, args.leaf, {
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    parentSession: stdin || session.path === undefined ? undefined : resolve(session.path),
  });
  if (r.data === null) {
    for (const d of r.diagnostics) writeErr(diagnosticLine(d));
    requestExit(r.exitCode);
    return;
  }
  findingsReported([...r.data.leftOut, ...r.data.changed, ...r.data.remaining]);
  await writeChunks(
    r.data.lines.map((l) => `${l}\n`),
    args.output,
    args.force === true,
    "json",
  );
  for (const line of jsonlExportNotes(session.file, r.data)) writeErr(line);
  requestExit(r.exitCode);
}

import { runIo } from "./run-state.js";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type { Argv, CommandModule } from "yargs";
import type { Session } from "../model/session.js";
import { diagnosticLine } from "../render/diagnostics.js";
import { bodyLimitRows, factRows, redactRows } from "../render/export-facts.js";
import { exportHtml } from "../render/export-html.js";
import { jsonlExportNotes } from "../render/export-notes.js";
import { branchMarkdown } from "../render/export-markdown.js";
import type { OutForm } from "../render/sanitize.js";
import { resolveSessionFile } from "../reports/context.js";
import {
  BODY_LIMIT_DEFAULT,
  branchEntries,
  entriesOverLimit,
  exportFacts,
  exportJsonl,
  exportPath,
  fileModified,
  htmlPayload,
  readBundle,
} from "../reports/export.js";
import type { OutputTarget } from "../io/output-file.js";
import {
  isStdin,
  openInput,
  outputFile,
  requestExit,
  wholeNumbers,
  writeOut,
  writeOutputFile,
  type GlobalArgs,
  allProjectsArg,
  numberArg,
  findingsReported,
  writeFileOut,
  writeErr,
  repeatableArg,
  CliError,
} from "./common.js";
import type { RedactFacts } from "../reports/redact.js";

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
  bodyLimit: number;
  redact?: boolean;
  redactPattern?: string[];
}

/**
 * --format, else OUT's extension, else Markdown: the same on a terminal, a pipe or a file (`> out.md`), never
 * guessed from whether stdout is a TTY.
 */
function pickFormat(args: ExportArgs): Format {
  if (args.format) return args.format;
  const out = args.output?.toLowerCase();
  if (out?.endsWith(".html") || out?.endsWith(".htm")) return "html";
  if (out?.endsWith(".jsonl")) return "jsonl";
  return "markdown";
}

async function writeChunks(chunks: Iterable<string>, out: OutputTarget | undefined, form: OutForm): Promise<void> {
  if (out === undefined) return writeOut(chunks, form);
  // A file gets what stdout would: a lone surrogate's escape in a session file (jsonl) is U+FFFD too.
  return writeFileOut(chunks, form, (filtered) => writeOutputFile(out, filtered));
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
      .option("all-projects", allProjectsArg("where --session looks"))
      .option("format", {
        describe: "html, markdown or jsonl; default: from OUT's extension (.html/.htm, .md, .jsonl), else markdown",
        choices: ["html", "markdown", "jsonl"],
        type: "string",
      })
      .option("output", {
        alias: "o",
        describe: "Write to OUT (a new file renamed into place) instead of stdout; never an input, a symlink or a session file",
        type: "string",
        requiresArg: true,
      })
      .option("force", { describe: "Replace OUT when it exists (never a .jsonl or a session file)", type: "boolean" })
      .option("images", { describe: "HTML: embed images as data: URIs (--no-images drops them)", type: "boolean", default: true })
      .option("body-limit", {
        ...numberArg,
        describe: "HTML: cut strings longer than N KiB in the embedded entries, with a note (0: embed everything)",
        default: BODY_LIMIT_DEFAULT / 1024,
      })
      .option("redact", {
        describe: "Mask every secret `pisess secrets` finds as [REDACTED:rule] (ids, tree, usage and costs stay)",
        type: "boolean",
      })
      .option("redact-pattern", { describe: "Also mask every match of REGEX (repeat for more; implies --redact)", ...repeatableArg })
      .check(wholeNumbers({ "body-limit": { min: 0, note: "KiB; 0: embed everything" } }))
      .conflicts("file", "session")
      .implies("all-projects", "session")
      .example("$0 export session.jsonl -o session.html", "the whole session as one page, to open in a browser")
      .example("$0 export session.jsonl --leaf label:good --format jsonl -o good.jsonl", "the branch to a label as a new session file")
      .example("$0 export session.jsonl --redact -o share.html", "a page to share, every secret masked")
      .example(
        "$0 export session.jsonl > branch.md",
        "the current branch as Markdown (the default on stdout)",
      ) as unknown as Argv<ExportArgs>,
  handler: async (args) => {
    const file =
      args.file ??
      (await resolveSessionFile({ session: args.session, allProjects: args.allProjects, cwd: runIo().cwd(), env: runIo().env }));
    const format = pickFormat(args);
    const stdin = isStdin(file);
    const out = args.output === undefined ? undefined : outputFile(args.output, [file], args.force === true);
    const bundle = format === "html" ? readBundle() : "";
    const original = await openInput(file, {});
    let session: Session<"full"> = original;
    let redacted: RedactFacts | null = null;
    try {
      if (args.redact === true || (args.redactPattern ?? []).length > 0) {
        const { redactSession } = await import("../reports/redact.js");
        const r = await redactSession(original, { redactPatterns: (args.redactPattern ?? []).map(compileRedact) });
        session = r.session;
        redacted = r.facts;
      }
      if (format === "jsonl")
        return await jsonl(session, args, stdin || original.path === undefined ? undefined : resolve(original.path), out, redacted);
      const { leaf, path, diagnostics } = exportPath(session, args.leaf);
      if (path === null) {
        for (const d of diagnostics) writeErr(diagnosticLine(d));
        requestExit(1);
        return;
      }
      const facts = await exportFacts(session, stdin ? null : fileModified(file));
      const rows = [...factRows(facts), ...(redacted === null ? [] : redactRows(redacted))];
      if (format === "markdown") {
        await writeChunks(branchMarkdown({ facts: rows, leaf, entries: branchEntries(session, path), count: path.length }), out, "text");
      } else {
        const limit = args.bodyLimit * 1024;
        const page = [...rows, ...bodyLimitRows(entriesOverLimit(session, limit), limit)];
        await writeChunks(exportHtml(htmlPayload(session, leaf, facts, page, args.images, limit), bundle), out, "data");
      }
      requestExit(0);
    } finally {
      if (session !== original) session.store.close();
      original.store.close();
    }
  },
};

function compileRedact(source: string): RegExp {
  try {
    return new RegExp(source, "u");
  } catch (err) {
    throw new CliError(`--redact-pattern ${source}: not a JavaScript regular expression (${(err as Error).message})`);
  }
}

async function jsonl(
  session: Session,
  args: ExportArgs,
  parentSession: string | undefined,
  out: OutputTarget | undefined,
  redacted: RedactFacts | null,
): Promise<void> {
  const r = await exportJsonl(session, args.leaf, { id: randomUUID(), timestamp: new Date().toISOString(), parentSession });
  if (r.data === null) {
    for (const d of r.diagnostics) writeErr(diagnosticLine(d));
    requestExit(r.exitCode);
    return;
  }
  findingsReported([...r.data.leftOut, ...r.data.changed, ...r.data.remaining]);
  await writeChunks(
    r.data.lines.map((l) => `${l}\n`),
    out,
    "json",
  );
  for (const line of jsonlExportNotes(session.file, r.data)) writeErr(line);
  if (redacted !== null)
    writeErr(
      `pisess: ${session.file}: ${redactRows(redacted)
        .map(([, v]) => v)
        .join("")}\n`,
    );
  requestExit(r.exitCode);
}

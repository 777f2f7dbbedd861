import { join } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { cwdFolderName, findSessionsById, mostRecentSession, sessionsDir } from "../io/discover.js";
import { readEntry, type Session } from "../model/session.js";
import type { Diagnostic, EntryRec } from "../model/types.js";
import { buildContext, describeContext, pairToolCalls, toolProblems } from "../ops/context.js";
import { convertToLlmMapped } from "../ops/llm.js";
import { pathTo } from "../ops/path.js";
import { buildTree } from "../ops/tree.js";
import { contextMarkdown } from "../render/context-markdown.js";
import { contextText } from "../render/context-text.js";
import { formatMessage } from "../render/diagnostics.js";
import { sanitizeLine } from "../render/sanitize.js";
import { CliError, entryRef, openInput, problemSummary, styleFor, writeOut, type GlobalArgs } from "./common.js";

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

/** The session file to read when none is named: pi's own choice for the current directory, or one picked by id. */
export async function resolveSessionFile(opts: { session?: string; allProjects?: boolean; cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  const root = await sessionsDir(opts.env);
  const folder = join(root, cwdFolderName(opts.cwd));
  if (opts.session !== undefined) {
    const where = opts.allProjects ? root : folder;
    const matches = await findSessionsById([where], opts.session);
    if (matches.length === 1) return (matches[0] as { path: string }).path;
    if (matches.length === 0) throw new CliError(`no session with an id starting "${sanitizeLine(opts.session)}" in ${where}${opts.allProjects ? "" : " (--all-projects searches every project)"}`);
    const list = matches.slice(0, 10).map((m) => `${m.id} (${m.path})`).join(", ");
    throw new CliError(`session id prefix "${sanitizeLine(opts.session)}" is ambiguous: ${list}${matches.length > 10 ? ", …" : ""}`);
  }
  const found = await mostRecentSession(folder);
  if (!found) throw new CliError(`no session for ${opts.cwd}: no valid session file in ${folder} (name a FILE, or use --session ID)`);
  return found;
}

function problemLine(d: Diagnostic): string {
  return `${sanitizeLine(d.file)}${d.line === null ? "" : `:${d.line}`}: ${d.severity} ${d.code}: ${formatMessage(d)}\n`;
}

/** Why the context at this leaf may not be the one pi shows for "the same" leaf, which pi addresses by id. */
function leafNotes(session: Session, leaf: EntryRec): string[] {
  const where = `${sanitizeLine(session.file)}:${leaf.line}`;
  if (leaf.id === undefined) {
    return [`${where}: note: the leaf has no id; pi cannot address it (asked for it, pi builds the context of the last entry); showing its own path\n`];
  }
  const winner = session.byId.get(leaf.id);
  if (winner && winner !== leaf) {
    return [`${where}: note: id ${sanitizeLine(leaf.id)} is used again on line ${winner.line}; pi, asked for this id, builds the context of line ${winner.line}\n`];
  }
  return [];
}

export const contextCommand: CommandModule<object, ContextArgs> = {
  command: "context [file]",
  describe: "Show exactly what the model saw at a leaf (pi's session context)",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin); default: the most recent session of the current directory", type: "string" })
      .option("leaf", { describe: "Leaf: id, id prefix, @LINE, label:NAME or leaf", type: "string", default: "leaf" })
      .option("session", { describe: "Pick the session whose id starts with ID (in the current directory's folder)", type: "string", requiresArg: true })
      .option("all-projects", { describe: "With --session: search the folders of every project", type: "boolean" })
      .option("json", { describe: 'One document {"file","leaf","thinkingLevel","model","messages","entries"}', type: "boolean" })
      .option("ndjson", { describe: "One message per line", type: "boolean" })
      .option("llm", { describe: "Messages as sent to the LLM (after pi's convertToLlm)", type: "boolean" })
      .option("format", { describe: "Text rendering", choices: ["text", "markdown"], default: "text", type: "string" })
      .option("thinking", { describe: "Show thinking blocks (--no-thinking hides them)", type: "boolean", default: true })
      .option("max-output", { describe: "Cut tool and command outputs to N lines (0 = all)", type: "number", default: 20 })
      .option("show-edits", { describe: "Text views: also show what edited messages said in the file, and the messages edits removed", type: "boolean" })
      .conflicts("json", "ndjson")
      .conflicts("file", "session")
      .implies("all-projects", "session")
      .check((a) => {
        if (typeof a.maxOutput !== "number" || !Number.isInteger(a.maxOutput) || a.maxOutput < 0) throw new CliError("--max-output takes a whole number ≥ 0");
        return true;
      })
      .example("$0 context", "the context of the most recent session here, at its leaf")
      .example("$0 context session.jsonl --leaf @120 --no-thinking", "what the model saw at line 120, without thinking")
      .example("$0 context session.jsonl --show-edits", "what the model saw, and what context edits changed or removed")
      .example("$0 context session.jsonl --llm --json | jq '.messages | length'", "how many messages went to the LLM")
      .example("$0 context --session 0194 --all-projects --format markdown > ctx.md", "a session by id, as Markdown") as unknown as Argv<ContextArgs>,
  handler: async (args) => {
    const file = args.file ?? (await resolveSessionFile({ session: args.session, allProjects: args.allProjects, cwd: process.cwd(), env: process.env }));
    // Every output reads the path's entries back whole; the index needs only the skeleton (ids, parents, types,
    // compaction fields).
    const session = await openInput(file, { detail: "skeleton" });
    try {
      const leaf = entryRef(session, args.leaf);
      const result = pathTo(session, leaf);
      if (!result.ok) {
        const lines = result.cycle.map((r) => r.line).join(" → ");
        const what = result.cycle.length === 1 ? `line ${lines} names itself as its parent` : `a parent cycle (lines ${lines} → ${result.cycle[0]?.line})`;
        throw new CliError(`${session.file}: the path of line ${leaf.line} runs into ${what}; pi would hang building this context`, 1);
      }
      const path = result.path;
      const ctx = buildContext(session, path, (rec) => readEntry(session, rec));
      const llm = convertToLlmMapped(ctx.messages);
      const pairing = pairToolCalls(ctx.messages);
      const problems = [...ctx.problems, ...toolProblems(session, ctx, pairing)].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));

      if (args.json || args.ndjson) {
        const messages = args.llm ? llm.messages : ctx.messages;
        const at = args.llm ? llm.from : ctx.sources.map((_, i) => i);
        const entries = at.map((i) => contextEntryRef(ctx.sources[i] as EntryRec, ctx.editedBy[i]));
        await writeOut(jsonChunks(session, leaf, ctx, messages, entries, args.json === true));
      } else {
        const doc = describeContext(session, leaf, path, ctx, llm.messages.length, { thinking: args.thinking, maxOutput: args.maxOutput, showEdits: args.showEdits === true });
        if (args.format === "markdown") await writeOut(contextMarkdown(doc));
        else await writeOut(contextText(doc, { style: styleFor(args) }));
      }
      for (const n of leafNotes(session, leaf)) process.stderr.write(n);
      for (const d of problems) if (d.severity !== "info") process.stderr.write(problemLine(d));
      problemSummary(session, buildTree(session).problems.filter((d) => d.severity !== "info").length);
    } finally {
      session.store.close();
    }
  },
};

/** `entries[i]` of `context --json`: the entry behind messages[i] and, for an edited message, the edit. */
export interface ContextEntryRef {
  id: string | null;
  line: number;
  type: string;
  edit?: { id: string | null; line: number };
}

function contextEntryRef(rec: EntryRec, edit: EntryRec | undefined): ContextEntryRef {
  const ref: ContextEntryRef = { id: rec.id ?? null, line: rec.line, type: rec.type };
  if (edit) ref.edit = { id: edit.id ?? null, line: edit.line };
  return ref;
}

function* jsonChunks(
  session: Session,
  leaf: EntryRec,
  ctx: { thinkingLevel: string; model: unknown },
  messages: readonly unknown[],
  entries: readonly ContextEntryRef[],
  asDocument: boolean,
): Generator<string> {
  if (!asDocument) {
    for (const m of messages) yield JSON.stringify(m) + "\n";
    return;
  }
  const head = JSON.stringify({ file: session.file, leaf: { id: leaf.id ?? null, line: leaf.line }, thinkingLevel: ctx.thinkingLevel, model: ctx.model });
  yield head.slice(0, -1) + ',"messages":[';
  let buf = "";
  for (let i = 0; i < messages.length; i++) {
    buf += (i === 0 ? "" : ",") + (JSON.stringify(messages[i]) ?? "null");
    if (buf.length > 1 << 16) {
      yield buf;
      buf = "";
    }
  }
  yield buf;
  yield '],"entries":';
  yield JSON.stringify(entries);
  yield "}\n";
}

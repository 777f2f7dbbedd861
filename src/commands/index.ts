import type { CommandModule } from "yargs";

// Each module has its own argument type; yargs only needs the common shape here.
// biome-ignore lint/suspicious/noExplicitAny: each command module declares its own argument type
export type AnyCommand = CommandModule<object, any>;

/**
 * Every subcommand, in the order `pisess --help` lists them, with its `command` and `describe` exactly as its module
 * declares them (test/cli/lazy-load.test.ts holds the two to each other). Adding a command means adding it here. Modules
 * are loaded on demand: a run of one command loads that command's code only, and `pisess --help` none (it lists
 * names and descriptions only), which keeps start-up short.
 */
export const commandLoaders: readonly (readonly [command: string, describe: string, load: () => Promise<AnyCommand>])[] = [
  ["tree <file>", "Show the session tree, like pi's /tree", async () => (await import("./tree.js")).treeCommand],
  ["path <file>", "List the entries from the root to a leaf", async () => (await import("./path.js")).pathCommand],
  [
    "context [file]",
    "Show exactly what the model saw at a leaf (pi's session context)",
    async () => (await import("./context.js")).contextCommand,
  ],
  [
    "export [file]",
    "Export a branch: one self-contained HTML page, Markdown, or a clean v3 session file",
    async () => (await import("./export.js")).exportCommand,
  ],
  [
    "diff <file> [a] [b]",
    "Show where two branches, or a fork and its parent, diverge",
    async () => (await import("./diff.js")).diffCommand,
  ],
  [
    "follow [file]",
    "Print entries as pi appends them to a session (like tail -f, in the tree's style)",
    async () => (await import("./follow.js")).followCommand,
  ],
  [
    "ls [dirs..]",
    "List sessions: name or first prompt, size, entries, leaves, fork parent",
    async () => (await import("./ls.js")).lsCommand,
  ],
  [
    "info <file>",
    "Summarise a session: header, shape, labels, models, tokens and cost (per model and per leaf)",
    async () => (await import("./info.js")).infoCommand,
  ],
  [
    "leaves <file>",
    "List every leaf: depth, last activity, last prompt, labels, own tokens and cost",
    async () => (await import("./leaves.js")).leavesCommand,
  ],
  [
    "show <file> <ref>",
    "Show one entry: its line, parent, children, label and content",
    async () => (await import("./show.js")).showCommand,
  ],
  [
    "labels <file>",
    "List the labels as pi resolves them (or, with --history, every label change)",
    async () => (await import("./labels.js")).labelsCommand,
  ],
  [
    "lineage <file>",
    "Show a session's fork ancestry (parentSession, legacy branchedFrom) and its forks",
    async () => (await import("./lineage.js")).lineageCommand,
  ],
  [
    "grep <pattern> [targets..]",
    "Search message text, thinking, tool calls and tool output across sessions (JS regex)",
    async () => (await import("./grep.js")).grepCommand,
  ],
  [
    "bloat <file>",
    "Where the bytes of a session file go: by kind, entry type, place; the largest entries and blocks",
    async () => (await import("./bloat.js")).bloatCommand,
  ],
  [
    "budget <file>",
    "The token budget of the context at a leaf: pi's estimate by part, checked against the tokens billed",
    async () => (await import("./budget.js")).budgetCommand,
  ],
  [
    "compactions <file>",
    "What each compaction on the path kept and took out of the model's view",
    async () => (await import("./compactions.js")).compactionsCommand,
  ],
  [
    "validate <inputs..>",
    "Report every defect in session files, with stable codes (for people and CI)",
    async () => (await import("./validate.js")).validateCommand,
  ],
  [
    "secrets [inputs..]",
    "Find secrets in sessions: where, from which tool call, and whether they were sent to the model",
    async () => (await import("./secrets.js")).secretsCommand,
  ],
  [
    "schema [name]",
    "Print one of the JSON Schemas validate uses (no name: list them)",
    async () => (await import("./schema.js")).schemaCommand,
  ],
  [
    "usage [targets..]",
    "Tokens and cost across sessions by day, week, month, model, project, session or leaf; fork copies counted once",
    async () => (await import("./usage.js")).usageCommand,
  ],
  [
    "tables [targets..]",
    "Write sessions, entries, messages, tool_calls, usage and leaves as flat tables (parquet or NDJSON) for SQL engines",
    async () => (await import("./tables.js")).tablesCommand,
  ],
  [
    "sql <query> [targets..]",
    "Run a SQL query (DuckDB) over the sessions as tables: sessions, entries, messages, tool_calls, usage, leaves",
    async () => (await import("./sql.js")).sqlCommand,
  ],
  [
    "index [targets..]",
    "Build or update the index database (DuckDB, in the cache dir) that usage and sql answer from",
    async () => (await import("./fleet-index.js")).indexCommand,
  ],
];

/**
 * The command modules a run needs: only the named one when the first argument names a command, all of them for
 * completion, none for `--version`; for `--help`, a typo or no command at all, each command as the help lists it.
 */
export async function loadCommands(argv: readonly string[]): Promise<AnyCommand[]> {
  const first = argv.find((a) => !a.startsWith("-"));
  const one = commandLoaders.find(([command]) => commandName(command) === first);
  if (one) return [await one[2]()];
  const help = argv.includes("--help") || argv.includes("-h");
  // `pisess --version` needs no command at all.
  if (!help && (argv.includes("--version") || argv.includes("-v"))) return [];
  // Completion asks each command's builder for its options.
  if (first === "completion" || argv.includes("--get-yargs-completions")) return Promise.all(commandLoaders.map(([, , load]) => load()));
  // Help, a typo (yargs suggests a name) or no command: yargs runs no builder or handler of a command not named, so
  // each command's usage and description is all it reads.
  return commandLoaders.map(([command, describe]) => listedOnly(command, describe));
}

/** The name a command string starts with ("tree <file>": "tree"). */
function commandName(command: string): string {
  return command.split(" ", 1)[0] as string;
}

/** A command as the top-level help lists it; never run (a run names its command, which loads the real module). */
function listedOnly(command: string, describe: string): AnyCommand {
  return {
    command,
    describe,
    handler: () => {
      throw new Error(`internal: ${commandName(command)} ran without its module (src/commands/index.ts)`);
    },
  };
}

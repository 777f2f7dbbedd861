import type { CommandModule } from "yargs";

// Each module has its own argument type; yargs only needs the common shape here.
// biome-ignore lint/suspicious/noExplicitAny: each command module declares its own argument type
export type AnyCommand = CommandModule<object, any>;

/**
 * Every subcommand, in the order `pisess --help` lists them. Adding a command means adding it here. Modules are
 * loaded on demand: a run of one command loads that command's code only, which keeps start-up short.
 */
export const commandLoaders: readonly (readonly [name: string, load: () => Promise<AnyCommand>])[] = [
  ["tree", async () => (await import("./tree.js")).treeCommand],
  ["path", async () => (await import("./path.js")).pathCommand],
  ["context", async () => (await import("./context.js")).contextCommand],
  ["export", async () => (await import("./export.js")).exportCommand],
  ["diff", async () => (await import("./diff.js")).diffCommand],
  ["follow", async () => (await import("./follow.js")).followCommand],
  ["ls", async () => (await import("./ls.js")).lsCommand],
  ["info", async () => (await import("./info.js")).infoCommand],
  ["leaves", async () => (await import("./leaves.js")).leavesCommand],
  ["show", async () => (await import("./show.js")).showCommand],
  ["labels", async () => (await import("./labels.js")).labelsCommand],
  ["lineage", async () => (await import("./lineage.js")).lineageCommand],
  ["grep", async () => (await import("./grep.js")).grepCommand],
  ["bloat", async () => (await import("./bloat.js")).bloatCommand],
  ["compactions", async () => (await import("./compactions.js")).compactionsCommand],
  ["validate", async () => (await import("./validate.js")).validateCommand],
  ["schema", async () => (await import("./schema.js")).schemaCommand],
  ["usage", async () => (await import("./usage.js")).usageCommand],
  ["tables", async () => (await import("./tables.js")).tablesCommand],
  ["sql", async () => (await import("./sql.js")).sqlCommand],
];

/**
 * The command modules a run needs: only the named one when the first argument names a command, all of them for
 * `--help`, completion, a typo (so yargs can suggest the right name) or no command at all; none for `--version`.
 */
export async function loadCommands(argv: readonly string[]): Promise<AnyCommand[]> {
  const first = argv.find((a) => !a.startsWith("-"));
  const one = commandLoaders.find(([name]) => name === first);
  if (one) return [await one[1]()];
  // `pisess --version` needs no command at all.
  if (!argv.includes("--help") && !argv.includes("-h") && (argv.includes("--version") || argv.includes("-v"))) return [];
  return Promise.all(commandLoaders.map(([, load]) => load()));
}

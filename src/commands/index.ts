import type { CommandModule } from "yargs";
import { pathCommand } from "./path.js";
import { treeCommand } from "./tree.js";

/** Every subcommand, in the order `pisess --help` lists them. Adding a command means adding it here. */
// Each module has its own argument type; yargs only needs the common shape here.
export const commands: CommandModule<object, any>[] = [treeCommand, pathCommand];

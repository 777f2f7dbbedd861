import type { CommandModule } from "yargs";
import { contextCommand } from "./context.js";
import { diffCommand } from "./diff.js";
import { grepCommand } from "./grep.js";
import { infoCommand } from "./info.js";
import { labelsCommand } from "./labels.js";
import { leavesCommand } from "./leaves.js";
import { lineageCommand } from "./lineage.js";
import { lsCommand } from "./ls.js";
import { showCommand } from "./show.js";
import { pathCommand } from "./path.js";
import { treeCommand } from "./tree.js";
import { validateCommand } from "./validate.js";
import { schemaCommand } from "./schema.js";

/** Every subcommand, in the order `pisess --help` lists them. Adding a command means adding it here. */
// Each module has its own argument type; yargs only needs the common shape here.
export const commands: CommandModule<object, any>[] = [treeCommand, pathCommand, contextCommand, diffCommand, lsCommand, infoCommand, leavesCommand, showCommand, labelsCommand, lineageCommand, grepCommand, validateCommand, schemaCommand];

// What `import yargs from "yargs"` means inside the bundled CLI (scripts/build-cli.mjs): yargs itself (running on
// the lazy platform shim), with `loadHelp` attached so the CLI can load the help machinery when a run shows help.
import Yargs from "yargs";
import { loadHelp } from "./yargs-shim.mjs";

Yargs.loadHelp = loadHelp;
export default Yargs;

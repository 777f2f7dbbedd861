// `npm run test:update [-- FILES…]`: runs the tests (all, or the files named) with PISESS_UPDATE_SNAPSHOTS=1, which
// makes test/snapshots/*.md and test/golden/* be written from this run's output instead of compared with it. Read
// the diff before committing. A plain `npm test` never writes them: a missing one fails.
import { spawnSync } from "node:child_process";

const build = spawnSync(process.execPath, ["scripts/build.mjs", "--quick", "--if-changed"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);
const r = spawnSync("npx", ["vitest", "run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, PISESS_UPDATE_SNAPSHOTS: "1" },
  shell: process.platform === "win32",
});
process.exit(r.status ?? 1);

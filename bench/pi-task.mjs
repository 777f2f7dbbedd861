// One pi task in its own process, for timing: `node bench/pi-task.mjs 1.6|0.73 tree|context|context-json FILE`.
//   tree          SessionManager.open + getTree
//   context       SessionManager.open + buildSessionContext
//   context-json  the same, and the context written to stdout as JSON (what `pisess context --json` does)
// pi 1.6.0's session code is imported by path (its package root needs Node 22; these modules run on 20).
// FILE must be a copy: SessionManager.open may rewrite a file (it does not for a v3 file with a valid header).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PACKAGES = {
  1.6: path.join(HERE, "node_modules", "@earendil-works", "pi-coding-agent"),
  0.73: path.join(HERE, "node_modules", "@mariozechner", "pi-coding-agent"),
};

const [version, mode, file] = process.argv.slice(2);
if (!file || !PACKAGES[version] || !["tree", "context", "context-json"].includes(mode)) {
  console.error("usage: node bench/pi-task.mjs 1.6|0.73 tree|context|context-json FILE");
  process.exit(2);
}
const { SessionManager } = await import(pathToFileURL(path.join(PACKAGES[version], "dist", "core", "session-manager.js")).href);
const sm = SessionManager.open(file, path.dirname(file));
if (mode === "tree") {
  const roots = sm.getTree();
  process.stdout.write(`${roots.length} roots, ${sm.getEntries().length} entries\n`);
} else if (mode === "context") {
  const ctx = sm.buildSessionContext();
  process.stdout.write(`${ctx.messages.length} messages\n`);
} else {
  process.stdout.write(`${JSON.stringify(sm.buildSessionContext())}\n`);
}

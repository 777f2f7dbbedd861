// One pi 0.73.1 task in its own process, for timing: `node bench/pi-task.mjs tree|context FILE`.
// FILE must be a copy: SessionManager.open may rewrite a file (it does not for a v3 file with a valid header).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PI = path.join(HERE, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "core", "session-manager.js");
const { SessionManager } = await import(pathToFileURL(PI).href);

const [mode, file] = process.argv.slice(2);
if (!file || (mode !== "tree" && mode !== "context")) {
  console.error("usage: node bench/pi-task.mjs tree|context FILE");
  process.exit(2);
}
const sm = SessionManager.open(file, path.dirname(file));
if (mode === "tree") {
  const roots = sm.getTree();
  process.stdout.write(`${roots.length} roots, ${sm.getEntries().length} entries\n`);
} else {
  const ctx = sm.buildSessionContext();
  process.stdout.write(`${ctx.messages.length} messages\n`);
}

// Preload (node -r) for test/cli/lazy-load.test.ts: at exit, writes the Node built-in modules the run loaded beyond
// those loaded before it, as `BUILTINS <json>` on fd 2 (written on the descriptor: process.stderr would make the very
// stream a test looks for).
"use strict";
const { writeSync } = require("node:fs");
const before = new Set(process.moduleLoadList);
process.on("exit", () => {
  const loaded = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith("NativeModule ")).map((m) => m.slice(13));
  writeSync(2, `BUILTINS ${JSON.stringify(loaded)}\n`);
});

// Preloaded by test/lazy-load.test.ts (node --import): writes "LOADED <url or file>" to stderr for every module the
// run loads, ES modules through a loader hook, CommonJS (and require of ES modules) through Module._load, and the
// bundle's files, which bin/pisess.js reads and compiles itself (with their code caches), through fs.readFileSync.
import fs, { writeSync } from "node:fs";
import { Module, register } from "node:module";

const hooks = `import { writeSync } from "node:fs";
export async function load(url, context, next) {
  writeSync(2, "LOADED " + url + "\\n");
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

const load = Module._load;
Module._load = function (request, parent, ...rest) {
  const out = load.call(this, request, parent, ...rest);
  try {
    writeSync(2, `LOADED ${Module._resolveFilename(request, parent)}\n`);
  } catch {}
  return out;
};

const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  const out = readFileSync.call(this, file, ...rest);
  if (typeof file === "string" && file.endsWith(".cjs")) writeSync(2, `LOADED ${file}\n`);
  return out;
};

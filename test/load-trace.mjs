// Preloaded by test/lazy-load.test.ts (node --import): writes "LOADED <url or file>" to stderr for every module the
// run loads, ES modules through a loader hook and CommonJS (and require of ES modules) through Module._load.
import { writeSync } from "node:fs";
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

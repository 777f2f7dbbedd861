#!/usr/bin/env node
// The bare floor: read the file, split it into lines, JSON.parse every line; nothing else.
//   node bench/floor.mjs whole FILE    readFileSync into one string + split("\n") (fails over ~512 MB, as pi does)
//   node bench/floor.mjs stream FILE   1 MiB chunks, split on the \n byte, decode and parse each line (any size)
import fs from "node:fs";

const [mode, file] = process.argv.slice(2);
let n = 0;
if (mode === "whole") {
  const text = fs.readFileSync(file, "utf8");
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      JSON.parse(line);
      n++;
    } catch {}
  }
} else if (mode === "stream") {
  let pending = null;
  const parse = (buf) => {
    const line = buf.toString("utf8");
    if (line.trim() === "") return;
    try {
      JSON.parse(line);
      n++;
    } catch {}
  };
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      if (nl === -1) break;
      if (pending) {
        parse(Buffer.concat([pending, chunk.subarray(from, nl)]));
        pending = null;
      } else parse(chunk.subarray(from, nl));
      from = nl + 1;
    }
    if (from < chunk.length) pending = pending ? Buffer.concat([pending, chunk.subarray(from)]) : Buffer.from(chunk.subarray(from));
  }
  if (pending) parse(pending);
} else {
  console.error("usage: node bench/floor.mjs whole|stream FILE");
  process.exit(2);
}
process.stdout.write(`${n} lines parsed\n`);

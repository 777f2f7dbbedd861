#!/usr/bin/env node
// Deterministic v3 sessions of extreme shapes for the benchmark and the scale test:
//   node bench/gen-shapes.mjs --shape chain --entries 1000000 --out FILE     (every entry the child of the previous)
//   node bench/gen-shapes.mjs --shape siblings --entries 100000 --out FILE   (one root with N-1 children)
//   node bench/gen-shapes.mjs --shape comb --entries 1000000 --out FILE      (a spine of N/100 entries, each the root
//       of a branch of 99 more: 98 messages and a label entry naming the branch's first entry, so N/100 leaves and
//       labels, one label on each leaf's path)
// Streams its output (bounded memory). Also importable: shapeLines(shape, entries) yields the lines.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);

function id(i) {
  return (0x10000000 + i).toString(16);
}

/** Lines (without "\n") of a session of the given shape: header first, then `entries` entries. */
/** Each branch of the comb: its spine entry, then this many more entries (the last a label). */
const COMB_TOOTH = 100;

function messageLine(i, parentId, ms) {
  const role = i % 2 === 0 ? "user" : "assistant";
  const message =
    role === "user"
      ? { role, content: `prompt ${i}: please continue`, timestamp: ms - 5 }
      : {
          role,
          content: [{ type: "text", text: `answer ${i}` }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: {
            input: 10,
            output: 5,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 15,
            cost: { input: 0.00003, output: 0.000075, cacheRead: 0, cacheWrite: 0, total: 0.000105 },
          },
          stopReason: "stop",
          timestamp: ms - 5,
        };
  return JSON.stringify({ type: "message", id: id(i), parentId, timestamp: new Date(ms).toISOString(), message });
}

function* combLines(entries) {
  let spine = null;
  for (let i = 0; i < entries; ) {
    const s = i;
    yield messageLine(s, spine, T0 + 1000 + s * 1000);
    spine = id(s);
    i++;
    let parent = spine;
    for (let k = 1; k < COMB_TOOTH && i < entries; k++, i++) {
      const ms = T0 + 1000 + i * 1000;
      if (k === COMB_TOOTH - 1)
        yield JSON.stringify({
          type: "label",
          id: id(i),
          parentId: parent,
          timestamp: new Date(ms).toISOString(),
          targetId: id(s + 1),
          label: `b${s / COMB_TOOTH}`,
        });
      else yield messageLine(i, parent, ms);
      parent = id(i);
    }
  }
}

export function* shapeLines(shape, entries) {
  if (shape !== "chain" && shape !== "siblings" && shape !== "comb") throw new Error(`unknown shape ${shape}`);
  yield JSON.stringify({
    type: "session",
    version: 3,
    id: "0197a000-0000-7000-8000-000000000001",
    timestamp: new Date(T0).toISOString(),
    cwd: "/home/dev/bench",
  });
  if (shape === "comb") {
    yield* combLines(entries);
    return;
  }
  for (let i = 0; i < entries; i++) {
    // siblings: a few share a timestamp, so the tie-break (file order) is exercised too
    const ms = T0 + 1000 + (shape === "siblings" ? Math.floor(i / 3) : i) * 1000;
    const parentId = i === 0 ? null : shape === "chain" ? id(i - 1) : id(0);
    yield messageLine(i, parentId, ms);
  }
}

export function writeShape(file, shape, entries) {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const fd = fs.openSync(file, "w");
  let buf = "";
  let bytes = 0;
  try {
    for (const line of shapeLines(shape, entries)) {
      buf += `${line}\n`;
      if (buf.length > 1 << 20) {
        bytes += fs.writeSync(fd, buf);
        buf = "";
      }
    }
    bytes += fs.writeSync(fd, buf);
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const a = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) a[argv[i].replace(/^--/, "")] = argv[i + 1];
  if (!a.shape || !a.entries || !a.out) {
    console.error("usage: node bench/gen-shapes.mjs --shape chain|siblings|comb --entries N --out FILE");
    process.exit(2);
  }
  const bytes = writeShape(a.out, a.shape, Number(a.entries));
  console.error(`gen-shapes: ${a.shape}, ${a.entries} entries, ${bytes} bytes -> ${a.out}`);
}

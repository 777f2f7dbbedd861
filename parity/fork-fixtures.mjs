#!/usr/bin/env node
// Writes fixtures/fork/pi16/: a parent session and forks of it, every line written by pi 1.6.0's own
// SessionManager (appendMessage, appendLabelChange, appendCompaction, appendContextEdit, createBranchedSession,
// forkFrom), in a temp dir. The only change made afterwards: each fork header's parentSession (an absolute temp
// path) is replaced by the parent's file name, so the fixtures resolve it beside themselves.
//
//   node parity/fork-fixtures.mjs [OUT_DIR]      (default: fixtures/fork/pi16)
//
// The clock is pi's `new Date()`, replaced by one that advances one second per call from 2026-03-01T10:00:00Z, so
// timestamps (and the label timestamps pi re-creates after a fork's copied path) are fixed; entry ids come from
// crypto.randomUUID, replaced by a counter; session ids (uuidv7) stay random.

import crypto from "node:crypto";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, "..", "fixtures", "fork", "pi16"));

let n = 0;
crypto.randomUUID = () => `${(0xa0000000 + ++n).toString(16)}-0000-4000-8000-000000000000`;
syncBuiltinESMExports();

const RealDate = Date;
let clock = RealDate.parse("2026-03-01T10:00:00.000Z");
globalThis.Date = class extends RealDate {
  constructor(...args) {
    if (args.length === 0) {
      super(clock);
      clock += 1000;
    } else super(...args);
  }
  static now() {
    return clock;
  }
};

const smUrl = pathToFileURL(
  path.join(here, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core", "session-manager.js"),
).href;
const { SessionManager } = await import(smUrl);

const cwd = "/home/u/app";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-fork-fixtures-"));

const usage = (cost) => ({
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
});
const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: clock });
const assistant = (text, cost, extra = []) => ({
  role: "assistant",
  content: [{ type: "text", text }, ...extra],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: usage(cost),
  stopReason: extra.length > 0 ? "toolUse" : "stop",
  timestamp: clock,
});
const toolResult = (id, text) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: clock,
});

// The parent: labels on the path (one relabelled later, one cleared), a context_edit and a compaction, then the
// fork point, then more turns.
const sm = SessionManager.create(cwd, tmp);
const u1 = sm.appendMessage(user("start the work"));
sm.appendMessage(assistant("started", 0.01));
sm.appendLabelChange(u1, "start");
sm.appendMessage(user("read the file"));
sm.appendMessage(assistant("reading", 0.02, [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.ts" } }]));
const tr = sm.appendMessage(toolResult("call_1", "a very long file body"));
const a2 = sm.appendMessage(assistant("read it", 0.03));
sm.appendContextEdit(tr, { content: "a shorter body" });
sm.appendLabelChange(a2, "checkpoint");
const u3 = sm.appendMessage(user("now the tests"));
sm.appendLabelChange(u3, "tmp");
sm.appendLabelChange(u3, "");
sm.appendMessage(assistant("tests pass", 0.04));
sm.appendCompaction("we read a.ts and ran the tests", u3, 150);
sm.appendLabelChange(u1, "begin");
sm.appendMessage(user("one more thing"));
const forkPoint = sm.appendMessage(assistant("done", 0.05));
sm.appendMessage(user("and after the fork, in the parent"));
sm.appendMessage(assistant("parent goes on", 0.06));
const parentFile = sm.getSessionFile();

// fork.jsonl: pi 1.6's /fork at the fork point (createBranchedSession on a SessionManager opened on a copy), then
// two turns in the fork.
const copyDir = fs.mkdtempSync(path.join(tmp, "copy-"));
const parentCopy = path.join(copyDir, path.basename(parentFile));
fs.copyFileSync(parentFile, parentCopy);
const fsm = SessionManager.open(parentCopy, tmp);
const forkFile = fsm.createBranchedSession(forkPoint);
fsm.appendMessage(user("in the fork"));
fsm.appendMessage(assistant("fork answer", 0.5));

// fork2.jsonl: a fork of the fork, at its last entry (the fork's own turns are copied too).
const fork2Copy = path.join(copyDir, path.basename(forkFile));
fs.copyFileSync(forkFile, fork2Copy);
const f2 = SessionManager.open(fork2Copy, tmp);
const fork2File = f2.createBranchedSession(f2.getLeafId());
f2.appendMessage(user("second generation"));
f2.appendMessage(assistant("fork2 answer", 0.7));

// clone.jsonl: `pi --fork` (SessionManager.forkFrom), which copies every entry of the parent, then one turn.
const cloneDir = fs.mkdtempSync(path.join(tmp, "clone-"));
const csm = SessionManager.forkFrom(parentCopy, cwd, cloneDir);
csm.appendMessage(user("in the clone"));
csm.appendMessage(assistant("clone answer", 0.9));
const cloneFile = csm.getSessionFile();

/** A file's lines with the header's parentSession replaced by `parentName` (nothing else is touched). */
function withParent(file, parentName) {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const header = JSON.parse(lines[0]);
  if (parentName !== undefined) header.parentSession = parentName;
  lines[0] = JSON.stringify(header);
  return lines.join("\n");
}

fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, "parent.jsonl"), fs.readFileSync(parentFile, "utf8"));
fs.writeFileSync(path.join(out, "fork.jsonl"), withParent(forkFile, "parent.jsonl"));
fs.writeFileSync(path.join(out, "fork2.jsonl"), withParent(fork2File, "fork.jsonl"));
fs.writeFileSync(path.join(out, "clone.jsonl"), withParent(cloneFile, "parent.jsonl"));
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`wrote parent.jsonl, fork.jsonl, fork2.jsonl, clone.jsonl to ${out}`);

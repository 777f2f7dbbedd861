#!/usr/bin/env node
// Parity oracle: runs pi's own session functions (pi 1.6.0 or pi 0.73.1) on a COPY of a session file and reports the
// result in the format of /work/shared/corpus/NAME.expected.json, with every entry expressed by its physical 1-based
// line.
//
// pi functions used, from node_modules/<package>/dist/core/ (imported by file path: pi 1.6.0's package root needs
// Node 22, these two files run on Node 20):
//   session-manager.js: SessionManager.open, sm.getEntries, sm.getTree, sm.getBranch, sm.getSessionName,
//                       sm.getLeafId, buildSessionContext, CURRENT_SESSION_VERSION (plus the manager's internal
//                       fileEntries / byId / labelsById, read only); 1.6 also buildSessionProjection (the context with
//                       each message's source entry) and buildContextEntries (the compaction-aware entry list)
//   messages.js:        convertToLlm (the function the agent's sdk.js hands to the Agent)
//
// Usage: node parity/oracle.mjs FILE [--pi 1.6|0.73] [--pretty]     (default --pi 1.6, the reference)

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));

async function loadPi(pkg) {
  const dir = path.join(HERE, "node_modules", ...pkg.split("/"));
  const core = (f) => import(pathToFileURL(path.join(dir, "dist", "core", f)).href);
  const [sm, msg] = await Promise.all([core("session-manager.js"), core("messages.js")]);
  return {
    version: JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version,
    SessionManager: sm.SessionManager,
    buildSessionContext: sm.buildSessionContext,
    buildSessionProjection: sm.buildSessionProjection,
    buildContextEntries: sm.buildContextEntries,
    CURRENT_SESSION_VERSION: sm.CURRENT_SESSION_VERSION,
    convertToLlm: msg.convertToLlm,
  };
}

/** The pi versions the oracle can run, by short key. */
export const PI = {
  0.73: await loadPi("@mariozechner/pi-coding-agent"),
  1.6: await loadPi("@earendil-works/pi-coding-agent"),
};
export const PI_KEYS = Object.keys(PI);
for (const [key, want] of [
  ["0.73", "0.73.1"],
  ["1.6", "1.6.0"],
]) {
  if (PI[key].version !== want)
    throw new Error(`parity/node_modules holds pi ${PI[key].version} for --pi ${key}, expected ${want} (run npm ci in parity/)`);
}
/** Short key ("0.73" | "1.6") for a full pi version string as written in expected.json ("0.73.1", "1.6.0"). */
export function piKeyOf(version) {
  const key = PI_KEYS.find((k) => PI[k].version === version);
  if (!key) throw new Error(`no pi ${version} in parity/node_modules (have ${PI_KEYS.map((k) => PI[k].version).join(", ")})`);
  return key;
}
export const CYCLE_NOTE = "pi's getBranch()/buildSessionContext() would never return for this leaf";

/** Recursively sort object keys (arrays keep order); drops undefined like JSON.stringify. */
export function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) {
      if (v[k] !== undefined) out[k] = sortKeys(v[k]);
    }
    return out;
  }
  return v;
}

/** Drops the ids pi invents for v1 files (mutates and returns doc), so that two answers compare by line. */
export function stripIds(doc) {
  const strip = (o, keys) => {
    if (o && typeof o === "object") for (const k of keys) delete o[k];
  };
  strip(doc.leaf, ["id"]);
  for (const e of doc.entries ?? []) strip(e, ["id", "parentId"]);
  for (const l of doc.labels ?? []) strip(l, ["targetId"]);
  for (const l of doc.leaves ?? []) strip(l, ["id"]);
  const stack = Array.from(doc.tree ?? []);
  while (stack.length) {
    const n = stack.pop();
    strip(n, ["id"]);
    for (const c of n.children ?? []) stack.push(c);
  }
  return doc;
}

const jsonClone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

function physicalLines(content) {
  const phys = content.split("\n");
  const lines = content === "" ? 0 : content.endsWith("\n") ? phys.length - 1 : phys.length;
  let crlfLines = 0;
  for (let i = 0; i < lines; i++) if (phys[i].endsWith("\r")) crlfLines++;
  return { phys, lines, crlfLines };
}

/**
 * pi 0.73's line handling (content.trim().split("\n"), skip blank, skip JSON.parse failures), keeping the physical
 * line number of each piece. Returns {lines, crlfLines, parsed: [{line, text, value}], skipped: [{line, reason}]}.
 */
function mapLines073(content) {
  const { lines, crlfLines } = physicalLines(content);
  const trimmedStart = content.trimStart();
  const lead = content.slice(0, content.length - trimmedStart.length);
  const offset = (lead.match(/\n/g) || []).length; // physical lines wholly before pi's first line
  const trimmed = content.trim();
  const piLines = trimmed.split("\n");
  const parsed = [];
  const skipped = [];
  const covered = new Set();
  for (let k = 0; k < piLines.length; k++) {
    const line = offset + k + 1;
    covered.add(line);
    const text = piLines[k];
    if (!text.trim()) {
      if (line <= lines) skipped.push({ line, reason: "blank" });
      continue;
    }
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      skipped.push({ line, reason: "malformed" });
      continue;
    }
    parsed.push({ line, text, value });
  }
  for (let line = 1; line <= lines; line++) {
    if (!covered.has(line)) skipped.push({ line, reason: "blank" });
  }
  skipped.sort((a, b) => a.line - b.line);
  return { lines, crlfLines, parsed, skipped };
}

/**
 * pi 1.6's line handling (loadEntriesFromFile: no trim; every "\n"-separated line, the last one without "\n"
 * included; skip blank, skip JSON.parse failures, skip falsy values).
 */
function mapLines16(content) {
  const { phys, lines, crlfLines } = physicalLines(content);
  const parsed = [];
  const skipped = [];
  for (let i = 0; i < lines; i++) {
    const text = phys[i];
    const line = i + 1;
    if (!text.trim()) {
      skipped.push({ line, reason: "blank" });
      continue;
    }
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      skipped.push({ line, reason: "malformed" });
      continue;
    }
    if (!value) {
      skipped.push({ line, reason: "falsy" });
      continue;
    }
    parsed.push({ line, text, value });
  }
  return { lines, crlfLines, parsed, skipped };
}

/** Walks parentId links from `start` like pi's getBranch/buildSessionContext, but stops on a repeat. */
function walk(start, byId, lineOf) {
  const seen = new Map(); // entry -> index in order
  const order = [];
  let cur = start;
  while (cur) {
    if (seen.has(cur)) {
      const cyc = order.slice(seen.get(cur)).map((e) => lineOf(e));
      return { cycle: cyc.sort((a, b) => a - b) };
    }
    seen.set(cur, order.length);
    order.push(cur);
    cur = cur.parentId ? byId.get(cur.parentId) : undefined;
  }
  return { cycle: null, order };
}

/** True when pi's getTree() would loop forever (a cycle reachable from a root in its node graph). */
function treeWouldHang(entries) {
  const nodeMap = new Map();
  for (const e of entries) nodeMap.set(e.id, { id: e.id, children: [] });
  const roots = [];
  for (const e of entries) {
    const node = nodeMap.get(e.id);
    if (e.parentId === null || e.parentId === e.id) roots.push(node);
    else {
      const parent = nodeMap.get(e.parentId);
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
  }
  // iterative DFS with colours over unique nodes
  const colour = new Map();
  for (const r of roots) {
    if (colour.get(r)) continue;
    const stack = [[r, 0]];
    colour.set(r, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [node, i] = top;
      if (i < node.children.length) {
        top[1]++;
        const c = node.children[i];
        const col = colour.get(c);
        if (col === 1) return true;
        if (!col) {
          colour.set(c, 1);
          stack.push([c, 0]);
        }
      } else {
        colour.set(node, 2);
        stack.pop();
      }
    }
  }
  return false;
}

/** The statuses of context_edit entries on a path (pi 1.6). */
export const EDIT_STATUSES = ["applied", "superseded", "summarized", "target-missing", "target-outside-context"];

/**
 * Compute pi's view of one session file. Never touches the original: pi gets a copy in a temp dir.
 * @param {string} file
 * @param {{pi?: "0.73" | "1.6", keepTemp?: boolean}} [opts]  pi: which pi runs (default "1.6", the reference)
 */
export function computeOracle(file, opts = {}) {
  const key = opts.pi ?? "1.6";
  const pi = PI[key];
  if (!pi) throw new Error(`unknown pi version ${key} (one of ${PI_KEYS.join(", ")})`);
  const v16 = key === "1.6";
  const buf = fs.readFileSync(file);
  const content = buf.toString("utf8");
  const map = v16 ? mapLines16(content) : mapLines073(content);
  const result = {
    oracle: { tool: "pisess-parity-oracle", pi: pi.version, currentSessionVersion: pi.CURRENT_SESSION_VERSION },
    file: {
      bytes: buf.length,
      bom: buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf,
      crlfLines: map.crlfLines,
      finalNewline: content.endsWith("\n"),
      lines: map.lines,
    },
  };
  if (v16) result.piVersion = pi.version;

  // Header as read (before pi's in-place migration mutates it)
  const first = map.parsed[0];
  const headerValid =
    first?.value && typeof first.value === "object" && first.value.type === "session" && typeof first.value.id === "string";
  result.header = first ? first.value : null;
  result.headerLine = first ? first.line : null;
  result.version = headerValid ? (first.value.version ?? 1) : null;

  // Run pi on a copy
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-oracle-"));
  const copy = path.join(tmp, "session.jsonl");
  fs.writeFileSync(copy, buf);
  let sm;
  try {
    sm = pi.SessionManager.open(copy, tmp);
  } catch (err) {
    // 1.6 refuses a file whose first kept value is not a header (0.73 threw on a `null` line); the message names
    // the copy, which is replaced by a fixed word so that the result does not depend on the temp dir.
    result.open = {
      ok: false,
      error: String(err?.message ?? err)
        .split(copy)
        .join("FILE"),
    };
    result.skipped = map.skipped;
    result.leaves = [];
    cleanup(tmp, opts);
    return sortKeys(jsonClone(result));
  }
  const after = fs.readFileSync(copy);
  const reset = !headerValid;
  const migrated = headerValid && (first.value.version ?? 1) < pi.CURRENT_SESSION_VERSION;
  result.open = { ok: true, reset, migrated, rewritesFile: !after.equals(buf) || reset || migrated };
  // 1.6 (since 0.84) completes a last line that has no "\n" (checked after the header, before any migration).
  if (v16) result.open.appendsNewline = headerValid && content !== "" && !content.endsWith("\n");
  result.idsSynthetic = headerValid && (first.value.version ?? 1) < 2;
  if (reset) {
    // pi threw the file's content away and wrote a fresh header; nothing else is comparable.
    result.skipped = map.skipped;
    result.leaves = [];
    cleanup(tmp, opts);
    return sortKeys(jsonClone(result));
  }

  const fileEntries = sm.fileEntries; // same objects, same order as pi's parse of the lines
  if (fileEntries.length !== map.parsed.length) {
    throw new Error(`oracle line mapping broke: pi ${pi.version} parsed ${fileEntries.length}, mapper ${map.parsed.length}`);
  }
  const lineOfObj = new Map();
  const skipped = [...map.skipped];
  fileEntries.forEach((e, i) => {
    lineOfObj.set(e, map.parsed[i].line);
    if (i > 0 && e && e.type === "session") skipped.push({ line: map.parsed[i].line, reason: "header" });
  });
  skipped.sort((a, b) => a.line - b.line);
  result.skipped = skipped;
  result.parse = { check: "ok", entries: fileEntries.length };
  const lineOf = (e) => (e ? (lineOfObj.get(e) ?? null) : null);

  const entries = sm.getEntries();
  const byId = sm.byId;
  const resolveLine = (id) => (id === null || id === undefined ? null : lineOf(byId.get(id)));

  result.entries = entries.map((e) => {
    const o = { line: lineOf(e), id: e?.id, parentId: e?.parentId, parentLine: resolveLine(e?.parentId), type: e?.type };
    if (o.type === "message") o.role = e.message?.role;
    if (o.type === "compaction") o.firstKeptLine = resolveLine(e.firstKeptEntryId);
    if (o.type === "label" || o.type === "context_edit") o.targetLine = resolveLine(e.targetId);
    if (o.type === "branch_summary") o.fromLine = resolveLine(e.fromId);
    return o;
  });

  const last = entries[entries.length - 1];
  result.leaf = { id: sm.getLeafId(), line: lineOf(last) };

  result.labels = [];
  for (const [targetId, label] of sm.labelsById) {
    result.labels.push({ targetId, targetLine: resolveLine(targetId), label });
  }
  // By target line (labels on missing targets last), as in the corpus; ties keep pi's map order.
  result.labels.sort((a, b) => (a.targetLine ?? Infinity) - (b.targetLine ?? Infinity));
  result.sessionName = sm.getSessionName() ?? null;

  // Tree
  if (treeWouldHang(entries)) {
    result.treeError = "cycle";
  } else {
    const toJson = (node) => ({
      line: lineOf(node.entry),
      id: node.entry?.id,
      label: node.label,
      children: node.children.map(toJson),
    });
    result.tree = sm.getTree().map(toJson);
  }

  // Leaves: every entry that no *other* entry resolves to as its parent, plus the default leaf.
  const named = new Set();
  for (const e of entries) {
    if (e?.parentId === null || e?.parentId === undefined) continue;
    const p = byId.get(e.parentId);
    if (p && p !== e) named.add(p);
  }
  const leafEntries = entries.filter((e) => !named.has(e));
  if (last && !leafEntries.includes(last)) leafEntries.push(last);
  result.leaves = leafEntries.map((L) => leafResult(L, L === last));

  function leafResult(L, isDefault) {
    const id = L?.id;
    const out = { line: lineOf(L), id };
    if (isDefault) out.default = true;
    // getBranch(id): startId = id ?? leafId; start = startId ? byId.get(startId) : undefined
    const startId = id ?? sm.getLeafId();
    const branchStart = startId ? byId.get(startId) : undefined;
    // context(entries, id, byId): null -> empty; truthy -> byId.get; else / not found -> last entry
    let ctxLeaf;
    if (id === null) ctxLeaf = null;
    else ctxLeaf = (id ? byId.get(id) : undefined) ?? last;
    const w1 = walk(branchStart, byId, lineOf);
    const w2 = ctxLeaf ? walk(ctxLeaf, byId, lineOf) : { cycle: null };
    if (w1.cycle || w2.cycle) {
      out.error = "cycle";
      out.cycleLines = w1.cycle ?? w2.cycle;
      out.note = CYCLE_NOTE;
      return out;
    }
    if (branchStart && lineOf(branchStart) !== out.line) out.resolvedLine = lineOf(branchStart);
    if (ctxLeaf !== undefined && lineOf(ctxLeaf) !== out.line) out.contextLeafLine = lineOf(ctxLeaf);
    const branch = sm.getBranch(id);
    out.path = branch.map(lineOf);
    let ctx;
    try {
      if (v16) {
        const projection = pi.buildSessionProjection(entries, id, byId);
        ctx = { thinkingLevel: projection.thinkingLevel, model: projection.model, messages: projection.messages };
        out.messageLines = projection.entries.flatMap((p) => p.messages.map(() => lineOf(p.sourceEntry)));
        const edits = editStatuses(branch, pi.buildContextEntries(entries, id, byId));
        if (edits.length) out.edits = edits;
      } else {
        ctx = pi.buildSessionContext(entries, id, byId);
      }
    } catch (err) {
      delete out.messageLines;
      out.contextError = String(err); // "TypeError: …", as in the corpus
      return out;
    }
    out.context = { thinkingLevel: ctx.thinkingLevel, model: ctx.model, messages: ctx.messages };
    try {
      out.llm = pi.convertToLlm(ctx.messages);
    } catch (err) {
      out.llmError = String(err);
    }
    return out;
  }

  /**
   * What became of each context_edit on the path (path order), by pi 1.6's rules (buildSessionProjection):
   * an edit counts only among the compaction-aware context entries ("summarized" otherwise); the last one per
   * targetId wins ("superseded"); it changes its target only when that entry is a context entry that pi projects,
   * i.e. not an older compaction inside the kept range ("target-outside-context"), and exists at all
   * ("target-missing").
   */
  function editStatuses(branch, contextEntries) {
    const inContext = new Set(contextEntries);
    const lastEdit = new Map();
    for (const e of contextEntries) if (e?.type === "context_edit") lastEdit.set(e.targetId, e);
    const projected = new Set(contextEntries.filter((e, i) => !(e?.type === "compaction" && i > 0)).map((e) => e?.id));
    const out = [];
    for (const e of branch) {
      if (e?.type !== "context_edit") continue;
      let status;
      if (!inContext.has(e)) status = "summarized";
      else if (!byId.has(e.targetId)) status = "target-missing";
      else if (lastEdit.get(e.targetId) !== e) status = "superseded";
      else if (!projected.has(e.targetId)) status = "target-outside-context";
      else status = "applied";
      out.push({ line: lineOf(e), targetLine: resolveLine(e.targetId), status });
    }
    return out;
  }

  cleanup(tmp, opts);
  return sortKeys(jsonClone(result));
}

function cleanup(tmp, opts) {
  if (!opts.keepTemp) fs.rmSync(tmp, { recursive: true, force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const piAt = args.indexOf("--pi");
  const piKey = piAt >= 0 ? args[piAt + 1] : "1.6";
  const file = args.find((a, i) => !a.startsWith("--") && (piAt < 0 || i !== piAt + 1));
  if (!file || !PI[piKey]) {
    console.error(`usage: node parity/oracle.mjs FILE [--pi ${PI_KEYS.join("|")}] [--pretty]`);
    process.exit(2);
  }
  const res = computeOracle(file, { pi: piKey });
  process.stdout.write(`${JSON.stringify(res, null, args.includes("--pretty") ? 2 : 0)}\n`);
}

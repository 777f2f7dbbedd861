#!/usr/bin/env node
// Parity oracle: runs pi 0.73.1's own session functions on a COPY of a session file and reports the result in the
// format of /work/shared/corpus/NAME.expected.json, with every entry expressed by its physical 1-based line.
//
// pi functions used (all from node_modules/@mariozechner/pi-coding-agent/dist/core/):
//   session-manager.js: SessionManager.open, sm.getEntries, sm.getHeader, sm.getTree, sm.getBranch,
//                       sm.getSessionName, sm.getLeafId, buildSessionContext, CURRENT_SESSION_VERSION
//                       (plus the manager's internal byId / labelsById maps, read only)
//   messages.js:        convertToLlm (the function the agent's sdk.js hands to the Agent)
//
// Usage: node parity/oracle.mjs FILE [--pretty]

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PI_DIR = path.join(HERE, "node_modules", "@mariozechner", "pi-coding-agent");
const PI_VERSION = JSON.parse(fs.readFileSync(path.join(PI_DIR, "package.json"), "utf8")).version;
const sm_mod = await import(pathToFileURL(path.join(PI_DIR, "dist", "core", "session-manager.js")).href);
const msg_mod = await import(pathToFileURL(path.join(PI_DIR, "dist", "core", "messages.js")).href);
const { SessionManager, buildSessionContext, CURRENT_SESSION_VERSION } = sm_mod;
const { convertToLlm } = msg_mod;

export const piVersion = PI_VERSION;
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

const jsonClone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/**
 * Replicates pi's line handling (content.trim().split("\n"), skip blank, skip JSON.parse failures) while keeping the
 * physical line number of each piece. Returns {physLines, parsed: [{line, text}], skippedRaw: [{line, reason}]}.
 */
function mapLines(content) {
	const phys = content.split("\n");
	const lines = content.endsWith("\n") ? phys.length - 1 : phys.length;
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
	let crlfLines = 0;
	for (let i = 0; i < lines; i++) if (phys[i].endsWith("\r")) crlfLines++;
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

/**
 * Compute pi's view of one session file. Never touches the original: pi gets a copy in a temp dir.
 * @param {string} file
 * @param {{keepTemp?: boolean}} [opts]
 */
export function computeOracle(file, opts = {}) {
	const buf = fs.readFileSync(file);
	const content = buf.toString("utf8");
	const map = mapLines(content);
	const result = {
		oracle: { tool: "pisess-parity-oracle", pi: PI_VERSION, currentSessionVersion: CURRENT_SESSION_VERSION },
		file: {
			bytes: buf.length,
			bom: buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf,
			crlfLines: map.crlfLines,
			finalNewline: content.endsWith("\n"),
			lines: map.lines,
		},
	};

	// Header as read (before pi's in-place migration mutates it)
	const first = map.parsed[0];
	const headerValid =
		first && first.value && typeof first.value === "object" && first.value.type === "session" && typeof first.value.id === "string";
	result.header = first ? first.value : null;
	result.headerLine = first ? first.line : null;
	result.version = headerValid ? (first.value.version ?? 1) : null;

	// Run pi on a copy
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-oracle-"));
	const copy = path.join(tmp, "session.jsonl");
	fs.writeFileSync(copy, buf);
	let sm;
	try {
		sm = SessionManager.open(copy, tmp);
	} catch (err) {
		result.open = { ok: false, error: String(err?.message ?? err) };
		cleanup(tmp, opts);
		return sortKeys(jsonClone(result));
	}
	const after = fs.readFileSync(copy);
	const reset = !headerValid;
	const migrated = headerValid && (first.value.version ?? 1) < CURRENT_SESSION_VERSION;
	result.open = { ok: true, reset, migrated, rewritesFile: !after.equals(buf) || reset || migrated };
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
		throw new Error(`oracle line mapping broke: pi parsed ${fileEntries.length}, mapper ${map.parsed.length}`);
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
		const o = { line: lineOf(e), id: e.id, parentId: e.parentId, parentLine: resolveLine(e.parentId), type: e.type };
		if (e.type === "message") o.role = e.message?.role;
		if (e.type === "compaction") o.firstKeptLine = resolveLine(e.firstKeptEntryId);
		if (e.type === "label") o.targetLine = resolveLine(e.targetId);
		if (e.type === "branch_summary") o.fromLine = resolveLine(e.fromId);
		return o;
	});

	const last = entries[entries.length - 1];
	result.leaf = { id: sm.getLeafId(), line: lineOf(last) };

	result.labels = [];
	for (const [targetId, label] of sm.labelsById) {
		result.labels.push({ targetId, targetLine: resolveLine(targetId), label });
	}
	result.sessionName = sm.getSessionName() ?? null;

	// Tree
	if (treeWouldHang(entries)) {
		result.treeError = "cycle";
	} else {
		const toJson = (node) => ({
			line: lineOf(node.entry),
			id: node.entry.id,
			label: node.label,
			children: node.children.map(toJson),
		});
		result.tree = sm.getTree().map(toJson);
	}

	// Leaves: every entry that no *other* entry resolves to as its parent, plus the default leaf.
	const named = new Set();
	for (const e of entries) {
		if (e.parentId === null || e.parentId === undefined) continue;
		const p = byId.get(e.parentId);
		if (p && p !== e) named.add(p);
	}
	const leafEntries = entries.filter((e) => !named.has(e));
	if (last && !leafEntries.includes(last)) leafEntries.push(last);
	result.leaves = leafEntries.map((L) => leafResult(L, L === last));

	function leafResult(L, isDefault) {
		const out = { line: lineOf(L), id: L.id };
		if (isDefault) out.default = true;
		// getBranch(L.id): startId = L.id ?? leafId; start = startId ? byId.get(startId) : undefined
		const startId = L.id ?? sm.getLeafId();
		const branchStart = startId ? byId.get(startId) : undefined;
		// buildSessionContext(entries, L.id, byId): null -> empty; truthy -> byId.get; else / not found -> last entry
		let ctxLeaf;
		if (L.id === null) ctxLeaf = null;
		else ctxLeaf = (L.id ? byId.get(L.id) : undefined) ?? last;
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
		out.path = sm.getBranch(L.id).map(lineOf);
		let ctx;
		try {
			ctx = buildSessionContext(entries, L.id, byId);
		} catch (err) {
			out.contextError = String(err?.message ?? err);
			return out;
		}
		out.context = { thinkingLevel: ctx.thinkingLevel, model: ctx.model, messages: ctx.messages };
		try {
			out.llm = convertToLlm(ctx.messages);
		} catch (err) {
			out.llmError = String(err?.message ?? err);
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
	const file = args.find((a) => !a.startsWith("--"));
	if (!file) {
		console.error("usage: node parity/oracle.mjs FILE [--pretty]");
		process.exit(2);
	}
	const res = computeOracle(file);
	process.stdout.write(`${JSON.stringify(res, null, args.includes("--pretty") ? 2 : 0)}\n`);
}

#!/usr/bin/env node
// Verifies that parity/oracle.mjs reproduces /work/shared/corpus/NAME.expected.json for every NAME.jsonl there.
// For files whose ids pi invents (v1), ids are compared by line only (id fields are dropped on both sides).
// Usage: node parity/check-oracle.mjs [CORPUS_DIR]

import fs from "node:fs";
import path from "node:path";
import { computeOracle } from "./oracle.mjs";
import { firstDiff } from "./diff.mjs";

const dir = process.argv[2] ?? process.env.PISESS_CORPUS ?? "/work/shared/corpus";
// Fields compared. `oracle` (tool identity) is not.
const FIELDS = ["version", "header", "headerLine", "skipped", "open", "idsSynthetic", "parse", "file", "entries",
	"leaf", "labels", "sessionName", "tree", "treeError", "leaves"];

function stripIds(doc) {
	const d = doc; // mutated in place (both sides are private copies)
	const strip = (o, keys) => { if (o && typeof o === "object") for (const k of keys) delete o[k]; };
	strip(d.leaf, ["id"]);
	for (const e of d.entries ?? []) strip(e, ["id", "parentId"]);
	for (const l of d.labels ?? []) strip(l, ["targetId"]);
	for (const l of d.leaves ?? []) strip(l, ["id"]);
	const stack = [...(d.tree ?? [])];
	while (stack.length) { const n = stack.pop(); strip(n, ["id"]); stack.push(...(n.children ?? [])); }
	return d;
}

let failed = 0;
let passed = 0;
const names = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();
for (const f of names) {
	const expFile = path.join(dir, f.replace(/\.jsonl$/, ".expected.json"));
	if (!fs.existsSync(expFile)) continue;
	let expected = JSON.parse(fs.readFileSync(expFile, "utf8"));
	let actual = computeOracle(path.join(dir, f));
	if (expected.idsSynthetic) {
		expected = stripIds(expected);
		actual = stripIds(actual);
	}
	let diff = null;
	let field;
	for (field of FIELDS) {
		if (!(field in expected) && !(field in actual)) continue;
		diff = firstDiff(expected[field], actual[field], `$.${field}`);
		if (diff) break;
	}
	const nLeaves = (expected.leaves ?? []).length;
	if (diff) {
		failed++;
		console.log(`FAIL ${f}: first difference at ${diff.path}\n  expected: ${diff.expected}\n  actual:   ${diff.actual}`);
	} else {
		passed++;
		console.log(`ok   ${f} (${nLeaves} leaves${expected.idsSynthetic ? ", ids compared by line" : ""})`);
	}
}
console.log(`check-oracle: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

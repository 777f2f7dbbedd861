#!/usr/bin/env node
// Parity suite: pisess vs pi 0.73.1.
// Generates sessions into parity/work/ (fixed seeds), adds every fixtures/corpus/*.jsonl, computes pi's answer with
// oracle.mjs, then asks pisess (through pisess-adapter.mjs) for every leaf's context, both the SessionContext view and
// the --llm (convertToLlm) view, and compares.
//
//   node parity/run.mjs [--count N] [--concurrency C] [--show K] [--strict] [--only SUBSTR]
//   PARITY_SELFTEST=1 node parity/run.mjs      (adapter answers from the oracle: must report all passing)
//
// One check = one (file, leaf, view). A check passes when:
//   - pi would hang on the leaf (parent cycle): pisess exits with code 1;
//   - otherwise pisess exits 0, doc.leaf.line is the leaf's line (and doc.leaf.id pi's id, except v1 where pi invents
//     ids), and doc.thinkingLevel / doc.model / doc.messages deep-equal pi's context (or convertToLlm output).
// Leaves where pi itself throws (contextError), or where pi resolves the leaf to another entry (duplicate or missing
// id: resolvedLine/contextLeafLine) are reported as skipped unless --strict; files pi would reset (bad header) are
// skipped.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { firstDiff, preview } from "./diff.mjs";
import { writeSession } from "./gen.mjs";
import { computeOracle } from "./oracle.mjs";
import { adapterMode, pisessContext, REPO_ROOT } from "./pisess-adapter.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WORK = path.join(HERE, "work");

function parseArgs(argv) {
	const o = { count: 200, concurrency: 2, show: 5, strict: false, only: null, fixtures: path.join(REPO_ROOT, "fixtures", "corpus") };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === "--count") o.count = Number(argv[++i]);
		else if (a === "--concurrency") o.concurrency = Number(argv[++i]);
		else if (a === "--show") o.show = Number(argv[++i]);
		else if (a === "--strict") o.strict = true;
		else if (a === "--only") o.only = argv[++i];
		else if (a === "--fixtures") o.fixtures = argv[++i];
		else {
			console.error(`unknown argument ${a}`);
			process.exit(2);
		}
	}
	if (!Number.isInteger(o.count) || o.count < 0) throw new Error("--count must be a non-negative integer");
	if (!Number.isInteger(o.concurrency) || o.concurrency < 1) throw new Error("--concurrency must be >= 1");
	return o;
}

// Fixed plan: session i -> seed, version, size. Mostly v3, then v2, then v1; sizes from tiny to ~1200 entries.
const VERSIONS = [3, 3, 2, 1, 3, 2, 3, 1];
const SIZES = [1, 3, 8, 20, 40, 80, 120, 200, 300, 450, 700, 1200];
export function plan(count) {
	const out = [];
	for (let i = 0; i < count; i++) {
		const seed = 1000 + i * 7919;
		const version = VERSIONS[i % VERSIONS.length];
		const entries = SIZES[(i * 5 + Math.floor(i / SIZES.length)) % SIZES.length];
		out.push({ seed, version, entries, file: path.join(WORK, `gen-${String(i).padStart(4, "0")}-v${version}-s${seed}-n${entries}.jsonl`) });
	}
	return out;
}

async function pool(items, n, fn) {
	let next = 0;
	const workers = Array.from({ length: Math.min(n, items.length) }, async () => {
		while (next < items.length) {
			const i = next++;
			await fn(items[i], i);
		}
	});
	await Promise.all(workers);
}

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const t0 = Date.now();
	fs.mkdirSync(WORK, { recursive: true });
	for (const f of fs.readdirSync(WORK)) if (/^gen-.*\.jsonl$/.test(f)) fs.rmSync(path.join(WORK, f));

	const files = [];
	for (const p of plan(opts.count)) {
		writeSession(p.file, p.seed, { version: p.version, entries: p.entries });
		files.push(p.file);
	}
	if (fs.existsSync(opts.fixtures)) {
		for (const f of fs.readdirSync(opts.fixtures).sort()) if (f.endsWith(".jsonl")) files.push(path.join(opts.fixtures, f));
	} else console.log(`parity: note: no fixtures dir ${opts.fixtures}`);
	const selected = opts.only ? files.filter((f) => f.includes(opts.only)) : files;
	console.log(`parity: ${selected.length} files (${opts.count} generated), adapter: ${adapterMode}, concurrency ${opts.concurrency}`);

	// Oracle for every file, then one job per (leaf, view)
	const jobs = [];
	const skips = [];
	for (const file of selected) {
		let res;
		try {
			res = computeOracle(file);
		} catch (err) {
			skips.push({ file, reason: `oracle failed: ${err.message}` });
			continue;
		}
		if (!res.open?.ok || res.open.reset) {
			skips.push({ file, reason: "pi resets/refuses this file (invalid header)" });
			continue;
		}
		for (const leaf of res.leaves) {
			if (!opts.strict && leaf.contextError) {
				skips.push({ file, line: leaf.line, reason: `pi throws: ${leaf.contextError}` });
				continue;
			}
			if (!opts.strict && (leaf.resolvedLine !== undefined || leaf.contextLeafLine !== undefined)) {
				skips.push({ file, line: leaf.line, reason: `pi resolves this leaf to line ${leaf.resolvedLine ?? leaf.contextLeafLine}` });
				continue;
			}
			for (const llm of [false, true]) jobs.push({ file, leaf, llm, idsSynthetic: !!res.idsSynthetic });
		}
	}

	let passed = 0;
	const failures = [];
	await pool(jobs, opts.concurrency, async (job) => {
		const { exitCode, doc, stderr } = await pisessContext(job.file, job.leaf.line, job.llm);
		const problem = judge(job, exitCode, doc, stderr);
		if (problem) failures.push({ ...job, ...problem });
		else passed++;
	});

	failures.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.leaf.line - b.leaf.line || Number(a.llm) - Number(b.llm)));
	for (const f of failures.slice(0, opts.show)) {
		console.log(`MISMATCH ${path.relative(process.cwd(), f.file)} leaf @${f.leaf.line}${f.llm ? " --llm" : ""}: ${f.what}`);
		if (f.diff) console.log(`  at ${f.diff.path}\n  pi:     ${f.diff.expected}\n  pisess: ${f.diff.actual}`);
		if (f.stderr) console.log(`  stderr: ${f.stderr.trim().split("\n").slice(0, 3).join(" | ").slice(0, 300)}`);
		console.log(`  repro: node bin/pisess.js context ${path.relative(REPO_ROOT, f.file)} --leaf @${f.leaf.line} --json${f.llm ? " --llm" : ""}`);
	}
	if (failures.length > opts.show) console.log(`... and ${failures.length - opts.show} more mismatches`);
	if (skips.length) {
		console.log(`parity: ${skips.length} skipped (not comparable${opts.strict ? "" : "; --strict to include leaves"})`);
		for (const s of skips.slice(0, 3)) console.log(`  skip ${path.relative(process.cwd(), s.file)}${s.line ? ` @${s.line}` : ""}: ${s.reason}`);
	}
	console.log(`parity: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	console.log(`parity: ${passed} passed, ${failures.length} failed`);
	process.exit(failures.length ? 1 : 0);
}

/** Returns null when pisess agrees with pi for this job, else {what, diff?, stderr?}. */
function judge(job, exitCode, doc, stderr) {
	const { leaf, llm } = job;
	if (leaf.error === "cycle") {
		if (exitCode === 1) return null;
		return { what: `pi never returns here (parent cycle through lines ${leaf.cycleLines.join(",")}); expected exit code 1, got ${exitCode}`, stderr };
	}
	if (leaf.contextError) {
		return { what: `pi throws (${leaf.contextError}); pisess exit ${exitCode}`, stderr };
	}
	if (exitCode !== 0) return { what: `exit code ${exitCode}, expected 0`, stderr };
	if (!doc || typeof doc !== "object") return { what: "stdout is not one JSON document", stderr };
	const expected = {
		leaf: job.idsSynthetic ? { line: leaf.line } : { id: leaf.id, line: leaf.line },
		thinkingLevel: leaf.context.thinkingLevel,
		model: leaf.context.model,
		messages: llm ? leaf.llm : leaf.context.messages,
	};
	const actual = {
		leaf: job.idsSynthetic ? { line: doc.leaf?.line } : { id: doc.leaf?.id, line: doc.leaf?.line },
		thinkingLevel: doc.thinkingLevel,
		model: doc.model,
		messages: doc.messages,
	};
	const diff = firstDiff(expected, actual);
	return diff ? { what: `${llm ? "convertToLlm output" : "SessionContext"} differs`, diff } : null;
}

export { judge, preview };

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main().catch((err) => {
		console.error(err?.stack ?? err);
		process.exit(2);
	});
}

// Adapter between the parity runner and pisess. Today it spawns the CLI; later it can import pisess in-process
// without touching run.mjs.
//
//   pisessContext(file, line, llm) -> {exitCode, doc, stderr}
//     runs `node bin/pisess.js context FILE --leaf @LINE --json [--llm]` from the repository root; doc is the parsed
//     stdout (null when it does not parse).
//
// PARITY_SELFTEST=1 answers from the oracle itself, so the runner's comparison logic can be tested before pisess exists
// (every comparison must pass).

import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, "..");
const BIN = process.env.PISESS_BIN ?? path.join(REPO_ROOT, "bin", "pisess.js");
const SELFTEST = process.env.PARITY_SELFTEST === "1";

export const adapterMode = SELFTEST ? "selftest (oracle answers itself)" : `spawn node ${path.relative(process.cwd(), BIN) || BIN}`;

const TIMEOUT_MS = Number(process.env.PARITY_TIMEOUT_MS ?? 30000);
const oracleCache = new Map(); // file -> result (small LRU)
async function selftestContext(file, line, llm) {
	const { computeOracle } = await import("./oracle.mjs");
	let res = oracleCache.get(file);
	if (!res) {
		res = computeOracle(file);
		oracleCache.set(file, res);
		if (oracleCache.size > 4) oracleCache.delete(oracleCache.keys().next().value);
	}
	const leaf = res.leaves.find((l) => l.line === line);
	if (!leaf || leaf.error || leaf.contextError) return { exitCode: 1, doc: null, stderr: "selftest: no context" };
	const doc = {
		file,
		leaf: { id: leaf.id, line: leaf.line },
		thinkingLevel: leaf.context.thinkingLevel,
		model: leaf.context.model,
		messages: llm ? leaf.llm : leaf.context.messages,
		entries: leaf.path,
	};
	return { exitCode: 0, doc: JSON.parse(JSON.stringify(doc)), stderr: "" };
}

function spawnContext(file, line, llm) {
	const args = [BIN, "context", file, "--leaf", `@${line}`, "--json"];
	if (llm) args.push("--llm");
	return new Promise((resolve) => {
		const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
		const out = [];
		const err = [];
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			child.kill("SIGKILL");
		}, TIMEOUT_MS);
		child.stdout.on("data", (b) => out.push(b));
		child.stderr.on("data", (b) => err.push(b));
		child.on("error", (e) => clearTimeout(timer) || resolve({ exitCode: -1, doc: null, stderr: String(e.message) }));
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			if (timedOut) return resolve({ exitCode: 124, doc: null, stderr: `timed out after ${TIMEOUT_MS} ms`, timedOut: true });
			const stdout = Buffer.concat(out).toString("utf8");
			let doc = null;
			try {
				doc = stdout.trim() ? JSON.parse(stdout) : null;
			} catch {
				doc = null;
			}
			resolve({ exitCode: code ?? (signal ? 128 : -1), doc, stderr: Buffer.concat(err).toString("utf8"), stdout });
		});
	});
}

/** @returns {Promise<{exitCode: number, doc: any, stderr: string}>} */
export async function pisessContext(file, line, llm) {
	return SELFTEST ? selftestContext(file, line, llm) : spawnContext(file, line, llm);
}

import type { Session } from "../src/model/session.js";
import type { FilterMode } from "../src/ops/view.js";
import type { PiEnv } from "../src/io/discover.js";
import { contextJsonChunks } from "../src/render/context-json.js";
import { contextDiffObject, type DiffJsonOptions, pathDiffObject } from "../src/render/diff-json.js";
import { grepHitObject } from "../src/render/grep.js";
import { infoJson, infoText } from "../src/render/info.js";
import { labelsJson, labelsNdjson } from "../src/render/labels.js";
import { lineageJson, lineageText } from "../src/render/lineage.js";
import { lsJson, lsNdjson } from "../src/render/ls.js";
import { showJson } from "../src/render/show.js";
import { leavesNdjson } from "../src/render/leaves.js";
import { makeStyle } from "../src/render/style.js";
import { treeJson, treeNdjson } from "../src/render/tree-json.js";
import { treeLines } from "../src/render/tree.js";
import { contextReport } from "../src/reports/context.js";
import { diffReport } from "../src/reports/diff.js";
import { grepReport, type GrepOptions } from "../src/reports/grep.js";
import { infoReport } from "../src/reports/info.js";
import { labelsReport } from "../src/reports/labels.js";
import { leavesReport } from "../src/reports/leaves.js";
import { lineageReport } from "../src/reports/lineage.js";
import { lsReport, type LsOptions } from "../src/reports/ls.js";
import { showReport } from "../src/reports/show.js";
import { openFile, openSession } from "../src/reports/open.js";
import { treeReport } from "../src/reports/tree.js";
import { pathReport } from "../src/reports/path.js";
import { readEntry } from "../src/model/session.js";

/**
 * The reports and renderers a command uses, called in-process: what the command writes on stdout and its exit
 * status, without a process. Tests that only need a command's data use these; the CLI itself (arguments, stderr,
 * exit codes, stdin) is tested by spawning it (helpers.ts runCli), at least once per command.
 */
export interface Out {
  stdout: string;
  code: number;
}

async function withSession<T>(file: string, detail: "skeleton" | "full", fn: (s: Session) => Promise<T> | T): Promise<T> {
  const session = await openSession(file, { detail });
  try {
    return await fn(session);
  } finally {
    session.store.close();
  }
}

export interface TreeArgs {
  leaf?: string;
  filter?: FilterMode;
  search?: string[];
  depth?: number;
  from?: string;
  output?: "text" | "json" | "ndjson";
  width?: number;
  color?: boolean;
}

/** `pisess tree FILE …`: treeReport, then tree-json.ts or tree.ts, as the tree command wires them. */
export function treeOut(file: string, a: TreeArgs = {}): Promise<Out> {
  const output = a.output ?? "text";
  const skeleton = output === "json" && a.filter === undefined && (a.search ?? []).length === 0;
  return withSession(file, skeleton ? "skeleton" : "full", (session) => {
    const { width, color, ...opts } = a;
    const r = treeReport(session, { ...opts, output });
    const { leaf, flat, view, rows } = r.data;
    let stdout = "";
    if (flat) stdout = [...treeJson(session, flat, leaf)].join("");
    else if (!view || !rows) throw new Error("tree report without a view");
    else if (output === "ndjson") stdout = [...treeNdjson(session, view, rows, leaf)].join("");
    else for (const l of treeLines(session, view, rows, { style: makeStyle(color === true), width, leaf })) stdout += `${l}\n`;
    return { stdout, code: r.exitCode };
  });
}

/** `pisess context FILE --leaf REF (--json | --ndjson) [--llm]`: contextReport, then context-json.ts. */
export function contextJsonOut(file: string, a: { leaf?: string; llm?: boolean; ndjson?: boolean } = {}): Promise<Out> {
  return withSession(file, "skeleton", (session) => {
    const r = contextReport(session, { leaf: a.leaf ?? "leaf", llm: a.llm === true });
    const { leaf, context: c } = r.data;
    if (c === null) return { stdout: "", code: r.exitCode };
    const chunks = contextJsonChunks(session.file, leaf, c.context, c.messages, c.sources, c.editedBy, a.ndjson !== true);
    return { stdout: [...chunks].join(""), code: r.exitCode };
  });
}

/** `pisess leaves FILE --ndjson`: leavesReport, then leaves.ts. */
export function leavesNdjsonOut(file: string, a: { includeCopied?: boolean } = {}): Promise<Out> {
  return withSession(file, "full", async (session) => {
    const r = await leavesReport(session, { includeCopied: a.includeCopied === true });
    return { stdout: leavesNdjson(r.data.leaves), code: r.exitCode };
  });
}

/**
 * What `pisess path FILE --ndjson` reads: pathReport, then every entry on the path read back whole. The command
 * builds these lines itself (src/commands/path.ts has no renderer in src/render), so this is for reading, and
 * tests that check the bytes spawn the CLI.
 */
export function pathNdjsonOut(file: string): Promise<Out> {
  return withSession(file, "skeleton", (session) => {
    const r = pathReport(session, {});
    let stdout = "";
    for (const rec of r.data.path ?? []) stdout += `${JSON.stringify({ line: rec.line, entry: readEntry(session, rec) })}\n`;
    return { stdout, code: r.exitCode };
  });
}

/** `pisess info FILE [--json] [--include-copied]`: infoReport, then info.ts (text without colour). */
export function infoOut(file: string, a: { json?: boolean; includeCopied?: boolean } = {}): Promise<Out> {
  return withSession(file, "full", async (session) => {
    const r = await infoReport(session, { includeCopied: a.includeCopied === true });
    return { stdout: a.json ? infoJson(r.data) : infoText(r.data, makeStyle(false)), code: r.exitCode };
  });
}

/** `pisess show FILE REF --json`: showReport, then show.ts. */
export function showJsonOut(file: string, ref: string): Promise<Out> {
  return withSession(file, "full", (session) => {
    const r = showReport(session, { ref });
    if (!("entry" in r.data)) throw new Error("show report without an entry");
    return { stdout: showJson(r.data.entry), code: r.exitCode };
  });
}

/** `pisess labels FILE [--history] (--json | --ndjson)`: labelsReport, then labels.ts. */
export function labelsOut(file: string, a: { history?: boolean; ndjson?: boolean } = {}): Promise<Out> {
  return withSession(file, "full", (session) => {
    const r = labelsReport(session, { history: a.history === true });
    const d = r.data;
    const rows = d.history !== undefined ? d.history : d.labels;
    const stdout = a.ndjson ? labelsNdjson(rows) : labelsJson(d.file, d.history !== undefined ? "history" : "labels", rows);
    return { stdout, code: r.exitCode };
  });
}

/** `pisess lineage FILE [--json]`: lineageReport, then lineage.ts (text without colour). */
export async function lineageOut(file: string, env: PiEnv, a: { json?: boolean } = {}): Promise<Out> {
  const r = await lineageReport({ file, env });
  return { stdout: a.json ? lineageJson(r.data) : lineageText(r.data, makeStyle(false)), code: r.exitCode };
}

/** `pisess ls … (--json | --ndjson)`: lsReport, then ls.ts. */
export async function lsOut(o: LsOptions, a: { ndjson?: boolean } = {}): Promise<Out> {
  const r = await lsReport(o);
  return { stdout: a.ndjson ? lsNdjson(r.data.sessions) : lsJson(r.data.sessions), code: r.exitCode };
}

/** `pisess grep … --ndjson`: grepReport, one grep.ts hit object per line. */
export async function grepNdjsonOut(o: GrepOptions): Promise<Out> {
  const r = await grepReport(o);
  let stdout = "";
  for (const { file, hits } of r.data.files) for (const hit of hits) stdout += `${JSON.stringify(grepHitObject(file, hit))}\n`;
  return { stdout, code: r.exitCode };
}

/**
 * `pisess diff FILE A [B] [--context] --json` (one pair): diffReport, then diff-json.ts, with the file names and
 * lineage the command passes. `--leaves --json` frames the pairs in the command itself (src/commands/diff.ts), so
 * tests of it spawn the CLI.
 */
export async function diffJsonOut(file: string, a: { a?: string; b?: string; context?: boolean } = {}): Promise<Out> {
  const r = await diffReport({ file, ...a, open: openFile });
  let stdout = "";
  for (const item of r.data.items) {
    const o: DiffJsonOptions = {};
    if (item.file !== undefined) o.file = item.file;
    if (item.files) o.files = item.files;
    if (item.files && item.lineage) o.lineage = item.lineage;
    if (item.kind === "contexts") stdout += `${JSON.stringify(contextDiffObject(item.diff, o))}\n`;
    else if (item.kind === "paths") stdout += `${JSON.stringify(pathDiffObject(item.diff, o))}\n`;
  }
  return { stdout, code: r.exitCode };
}

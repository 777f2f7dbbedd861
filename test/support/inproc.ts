import { runCli } from "./helpers.js";
import type { Session } from "../../src/model/session.js";
import type { PiEnv } from "../../src/io/discover.js";
import { contextJsonChunks } from "../../src/render/context-json.js";
import { DiffLeavesFrame, diffItemChunks, LEAVES_MAX_ENTRIES } from "../../src/render/diff.js";
import type { DiffTextOptions } from "../../src/render/diff-text.js";
import { GrepOutput } from "../../src/render/grep.js";
import { infoJson, infoText } from "../../src/render/info.js";
import { labelsJson, labelsNdjson } from "../../src/render/labels.js";
import { lineageJson, lineageText } from "../../src/render/lineage.js";
import { lsJson, lsNdjson } from "../../src/render/ls.js";
import { showJson } from "../../src/render/show.js";
import { leavesNdjson } from "../../src/render/leaves.js";
import { makeStyle } from "../../src/render/style.js";
import { treeJson, treeNdjson } from "../../src/render/tree-json.js";
import { lineChunks, treeLines } from "../../src/render/tree.js";
import { entryJson } from "../../src/model/store-text.js";
import { pathJsonChunks, pathTextLines } from "../../src/render/path.js";
import { validateText } from "../../src/render/validate-text.js";
import { contextReport } from "../../src/reports/context.js";
import { diffReport } from "../../src/reports/diff.js";
import { grepReport, type GrepOptions } from "../../src/reports/grep.js";
import { infoReport } from "../../src/reports/info.js";
import { labelsReport } from "../../src/reports/labels.js";
import { leavesReport } from "../../src/reports/leaves.js";
import { lineageReport } from "../../src/reports/lineage.js";
import { lsReport, type LsOptions } from "../../src/reports/ls.js";
import { showReport } from "../../src/reports/show.js";
import { openFile, openSession } from "../../src/reports/open.js";
import { type TreeOptions, treeReport, treeJsonReport } from "../../src/reports/tree.js";
import { pathReport } from "../../src/reports/path.js";
import { validateReport } from "../../src/reports/validate.js";

/**
 * The reports and renderers a command uses, called in-process: what the command writes on stdout and its exit
 * status, without a process. Each runner calls the same src/render functions as its command (nothing here renders
 * on its own), so its bytes are the command's. Tests that only need a command's data use these; `cliOut` (below)
 * runs the whole CLI in process for argument and message checks; the binary itself (stdin, TTY, closed pipes, the
 * process's exit status) is tested by spawning it (helpers.ts spawnCli), at least once per command.
 */
export interface Out {
  stdout: string;
  code: number;
}

async function withSession<D extends "skeleton" | "spend" | "full", T>(
  file: string,
  detail: D,
  fn: (s: Session<D>) => Promise<T> | T,
): Promise<T> {
  const session = await openSession(file, { detail });
  try {
    return await fn(session);
  } finally {
    session.store.close();
  }
}

/** The tree command's options: the report's (but `stream`), and the text renderer's width and colour. */
export type TreeArgs = Omit<TreeOptions, "stream"> & { width?: number; color?: boolean };

/** `pisess tree FILE …`: treeReport, then tree-json.ts or tree.ts, as the tree command wires them. */
export function treeOut(file: string, a: TreeArgs = {}): Promise<Out> {
  const output = a.output ?? "text";
  const skeleton = output === "json" && a.filter === undefined && (a.search ?? []).length === 0;
  const { width, color, ...opts } = a;
  if (skeleton)
    return withSession(file, "skeleton", (session) => {
      const r = treeJsonReport(session, opts.leaf !== undefined ? { leaf: opts.leaf } : {});
      if (!r.data.flat) throw new Error("tree report without the tree");
      return { stdout: [...treeJson(session, r.data.flat, r.data.leaf)].join(""), code: r.exitCode };
    });
  return withSession(file, "full", (session) => {
    const r = treeReport(session, { ...opts, output });
    const { leaf, flat, view, rows } = r.data;
    let stdout = "";
    if (flat) stdout = [...treeJson(session, flat, leaf)].join("");
    else if (!view || !rows) throw new Error("tree report without a view");
    else if (output === "ndjson") stdout = [...treeNdjson(session, view, rows, leaf)].join("");
    else stdout = [...lineChunks(treeLines(session, view, rows, { style: makeStyle(color === true), width, leaf }))].join("");
    return { stdout, code: r.exitCode };
  });
}

/** `pisess context FILE --leaf REF (--json | --ndjson) [--llm]`: contextReport, then context-json.ts. */
export function contextJsonOut(file: string, a: { leaf?: string; llm?: boolean; ndjson?: boolean } = {}): Promise<Out> {
  return withSession(file, "skeleton", (session) => {
    const r = contextReport(session, { leaf: a.leaf ?? "leaf", llm: a.llm === true, output: "json" });
    const { leaf, context: c } = r.data;
    if (c === null) return { stdout: "", code: r.exitCode };
    const chunks = contextJsonChunks(session.file, leaf, c.context, c.messages, c.sources, c.editedBy, a.ndjson !== true, c.messageJson);
    return { stdout: [...chunks].join(""), code: r.exitCode };
  });
}

/** `pisess leaves FILE --ndjson`: leavesReport, then leaves.ts. */
export function leavesNdjsonOut(file: string, a: { includeCopied?: boolean } = {}): Promise<Out> {
  return withSession(file, "spend", async (session) => {
    const r = await leavesReport(session, { includeCopied: a.includeCopied === true });
    return { stdout: leavesNdjson(r.data.leaves), code: r.exitCode };
  });
}

/** `pisess path FILE [--leaf REF] [--json | --ndjson]`: pathReport, then path.ts (text without colour). */
export function pathOut(file: string, a: { leaf?: string; output?: "text" | "json" | "ndjson"; width?: number } = {}): Promise<Out> {
  const output = a.output ?? "text";
  if (output !== "text")
    return withSession(file, "skeleton", (session) => {
      const r = pathReport(session, { leaf: a.leaf ?? "leaf" });
      const { leaf, path } = r.data;
      if (path === null) return { stdout: "", code: r.exitCode };
      const chunks = pathJsonChunks(session.file, leaf, path, (rec) => entryJson(session, rec), output === "json");
      return { stdout: [...chunks].join(""), code: r.exitCode };
    });
  return withSession(file, "full", (session) => {
    const r = pathReport(session, { leaf: a.leaf ?? "leaf" });
    const { leaf, path } = r.data;
    if (path === null) return { stdout: "", code: r.exitCode };
    const chunks = leaf ? pathTextLines(session, path, leaf, { style: makeStyle(false), width: a.width }) : [];
    return { stdout: [...chunks].join(""), code: r.exitCode };
  });
}

/** `pisess path FILE --ndjson`. */
export function pathNdjsonOut(file: string): Promise<Out> {
  return pathOut(file, { output: "ndjson" });
}

/** `pisess info FILE [--json] [--include-copied]`: infoReport, then info.ts (text without colour). */
export function infoOut(file: string, a: { json?: boolean; includeCopied?: boolean } = {}): Promise<Out> {
  return withSession(file, "spend", async (session) => {
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
  return withSession(file, "skeleton", (session) => {
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

/** `pisess grep … [--json | --ndjson]`: grepReport, then grep.ts (text without colour). */
export async function grepOut(o: GrepOptions, format: "text" | "json" | "ndjson" = "text"): Promise<Out> {
  const r = await grepReport(o);
  const out = new GrepOutput(format, makeStyle(false));
  let stdout = out.head();
  for (const { file, hits } of r.data.files) stdout += out.file(file, hits);
  return { stdout: stdout + out.tail(), code: r.exitCode };
}

/** `pisess grep … --ndjson`. */
export function grepNdjsonOut(o: GrepOptions): Promise<Out> {
  return grepOut(o, "ndjson");
}

/** `pisess diff FILE A [B] [--context] [--leaves] [--json]`: diffReport, then diff.ts (text without colour, no cut). */
export async function diffOut(
  file: string,
  a: {
    a?: string;
    b?: string;
    context?: boolean;
    leaves?: boolean;
    allEntries?: boolean;
    json?: boolean;
    sideBySide?: boolean;
    width?: number;
  } = {},
): Promise<Out> {
  const json = a.json === true;
  const textOptions = (pair: Pick<DiffTextOptions, "files" | "lineage">): DiffTextOptions => ({
    style: makeStyle(false),
    width: a.width,
    sideBySide: a.sideBySide === true,
    ...pair,
  });
  const maxEntries = a.leaves === true && a.allEntries !== true ? LEAVES_MAX_ENTRIES : undefined;
  const frame = new DiffLeavesFrame(json, textOptions, maxEntries);
  let stdout = "";
  const r = await diffReport({
    file,
    ...(a.a !== undefined ? { a: a.a } : {}),
    ...(a.b !== undefined ? { b: a.b } : {}),
    leaves: a.leaves === true,
    context: a.context === true,
    ...(maxEntries !== undefined ? { maxEntries } : {}),
    open: openFile,
    ...(a.leaves
      ? {
          onItem: async (item, head) => {
            stdout += frame.item(item, head).join("");
          },
        }
      : {}),
  });
  const d = r.data;
  if (d.problems.length === 0) return { stdout, code: r.exitCode };
  if (a.leaves) stdout += frame.end(d.file !== undefined && d.active ? { file: d.file, active: d.active } : undefined).join("");
  else for (const item of d.items) stdout += diffItemChunks(item, json, textOptions).join("");
  return { stdout, code: r.exitCode };
}

/** `pisess diff FILE A [B] [--context] --json` (one pair). */
export function diffJsonOut(file: string, a: { a?: string; b?: string; context?: boolean } = {}): Promise<Out> {
  return diffOut(file, { ...a, json: true });
}

/** `pisess validate INPUTS [--quiet]` (text): validateReport, then validate-text.ts. */
export async function validateOut(inputs: string[], o: { quiet?: boolean; strict?: boolean; color?: boolean } = {}): Promise<Out> {
  const r = await validateReport({ inputs, quiet: o.quiet === true, strict: o.strict === true, open: openFile });
  return { stdout: validateText(r.data.shown, r.data.summary, makeStyle(o.color === true), r.data.hidden), code: r.exitCode };
}

/**
 * The whole CLI (src/cli.ts main: argument parsing, the command, its stderr lines and exit status) run in this
 * process, stdout and stderr captured: helpers.ts runCli, under the name these tests have always used.
 */
export function cliOut(args: string[]): Promise<Out & { stderr: string }> {
  return runCli(args);
}

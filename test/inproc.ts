import type { Session } from "../src/model/session.js";
import type { FilterMode } from "../src/ops/view.js";
import { contextJsonChunks } from "../src/render/context-json.js";
import { leavesNdjson } from "../src/render/leaves.js";
import { makeStyle } from "../src/render/style.js";
import { treeJson, treeNdjson } from "../src/render/tree-json.js";
import { treeLines } from "../src/render/tree.js";
import { contextReport } from "../src/reports/context.js";
import { leavesReport } from "../src/reports/leaves.js";
import { openSession } from "../src/reports/open.js";
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
export function leavesNdjsonOut(file: string): Promise<Out> {
  return withSession(file, "full", async (session) => {
    const r = await leavesReport(session, {});
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

import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { cwdFolderName, listSessionFiles, readHeader, sessionsDir } from "../io/discover.js";
import { loadSession } from "../model/load.js";
import { leafRecs } from "../ops/leaves.js";
import { sessionTotals } from "../ops/totals.js";
import { lsJson, lsNdjson, lsText, type LsRow } from "../render/ls.js";
import { CliError, ioReason, styleFor, writeOut, type GlobalArgs } from "./common.js";
import { forkParent } from "./info.js";

const SORTS = ["modified", "created", "size", "name"] as const;
type SortKey = (typeof SORTS)[number];

interface LsArgs extends GlobalArgs {
  dirs?: string[];
  allProjects?: boolean;
  sort: SortKey;
  limit?: number;
  json?: boolean;
  ndjson?: boolean;
}

/** Where the glance commands look when given no paths: the cwd's folder, or the whole sessions dir. */
export async function defaultSessionRoot(all: boolean): Promise<string> {
  const dir = await sessionsDir(process.env);
  return all ? dir : join(dir, cwdFolderName(process.cwd()));
}

/** Session files under the given files/directories (recursive), each once, in the order found. */
export async function collectFiles(targets: string[], onError: (path: string, reason: string) => void): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const t of targets) {
    let files: string[];
    try {
      const st = await stat(t);
      files = st.isDirectory() ? await listSessionFiles(t) : [t];
    } catch (err) {
      onError(t, ioReason(err));
      continue;
    }
    for (const f of files) {
      if (!seen.has(f)) {
        seen.add(f);
        out.push(f);
      }
    }
  }
  return out;
}

interface Candidate {
  path: string;
  mtimeMs: number;
  bytes: number;
  created?: number;
}

export const lsCommand: CommandModule<object, LsArgs> = {
  command: "ls [dirs..]",
  describe: "List sessions: name or first prompt, size, entries, leaves, fork parent",
  builder: (y: Argv) =>
    y
      .positional("dirs", { describe: "Folders (searched recursively) or files; default: the sessions of the current directory", type: "string", array: true })
      .option("all-projects", { alias: "a", describe: "Every project folder in the sessions dir", type: "boolean" })
      .option("sort", { describe: "Order (newest / largest first; name: A→Z)", choices: SORTS, default: "modified" as SortKey })
      .option("limit", { alias: "n", describe: "Show at most N sessions", type: "number" })
      .option("json", { describe: 'One document {"sessions":[…]}', type: "boolean" })
      .option("ndjson", { describe: "One session object per line", type: "boolean" })
      .conflicts("json", "ndjson")
      .example("$0 ls", "sessions of the current directory, newest first")
      .example("$0 ls --all-projects --sort size -n 10", "the ten largest sessions anywhere")
      .example("$0 ls -a --ndjson | jq -r 'select(.leaves > 1) | .path'", "sessions that branch") as unknown as Argv<LsArgs>,
  handler: async (args) => {
    let failed = false;
    const fail = (path: string, reason: string): void => {
      failed = true;
      process.stderr.write(`pisess: ${path}: ${reason}\n`);
    };
    if (args.limit !== undefined && (!Number.isInteger(args.limit) || args.limit < 0)) throw new CliError("--limit wants a whole number ≥ 0");
    const explicit = (args.dirs ?? []).length > 0;
    if (explicit && args.allProjects) throw new CliError("--all-projects takes no folders");
    let targets: string[];
    let root: string | undefined;
    if (explicit) targets = args.dirs ?? [];
    else {
      root = await defaultSessionRoot(args.allProjects === true);
      try {
        await stat(root);
      } catch {
        process.stderr.write(`pisess: no sessions folder ${root}${args.allProjects ? "" : ` for ${process.cwd()}`}\n`);
        await writeOut([args.json ? lsJson([]) : ""]);
        return;
      }
      targets = [root];
    }
    const files = await collectFiles(targets, fail);
    const candidates: Candidate[] = [];
    for (const f of files) {
      try {
        const st = await stat(f);
        candidates.push({ path: f, mtimeMs: st.mtimeMs, bytes: st.size });
      } catch (err) {
        fail(f, ioReason(err));
      }
    }
    const byPath = (a: Candidate, b: Candidate) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    // Sort keys known before loading let --limit stop early; only "name" needs every session loaded.
    if (args.sort === "created") {
      for (const c of candidates) {
        const h = await readHeader(c.path);
        const t = h?.timestamp !== undefined ? Date.parse(h.timestamp) : NaN;
        c.created = Number.isFinite(t) ? t : -Infinity;
      }
      candidates.sort((a, b) => (b.created as number) - (a.created as number) || byPath(a, b));
    } else if (args.sort === "size") candidates.sort((a, b) => b.bytes - a.bytes || byPath(a, b));
    else candidates.sort((a, b) => b.mtimeMs - a.mtimeMs || byPath(a, b));
    const limit = args.limit !== undefined && args.limit >= 0 ? args.limit : Infinity;
    const stopEarly = args.sort !== "name";
    const progress = process.stderr.isTTY === true;
    const rows: LsRow[] = [];
    let skipped = 0;
    let done = 0;
    for (const c of candidates) {
      if (stopEarly && rows.length >= limit) break;
      done++;
      if (progress) process.stderr.write(`\r\u001b[2Kpisess ls: ${done}/${candidates.length}`);
      const row = await summarize(c, fail);
      if (row === null) skipped++;
      else if (row !== undefined) rows.push(row);
    }
    if (progress) process.stderr.write("\r\u001b[2K");
    if (!stopEarly) {
      const key = (r: LsRow) => (r.name ?? r.firstMessage ?? "").toLowerCase();
      rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.path < b.path ? -1 : 1));
    }
    const shown = rows.slice(0, limit);
    if (skipped > 0) process.stderr.write(`pisess: skipped ${skipped} file${skipped === 1 ? "" : "s"} without a session header\n`);
    if (args.json) await writeOut([lsJson(shown)]);
    else if (args.ndjson) await writeOut([lsNdjson(shown)]);
    else await writeOut([lsText(shown, styleFor(args), { showCwd: args.allProjects === true || explicit, ...(root !== undefined ? { relativeTo: root } : {}) })]);
    if (failed) process.exitCode = 2;
  },
};

/** Loads one session, summarises it and drops it. undefined: unreadable (reported); null: no header. */
async function summarize(c: Candidate, fail: (path: string, reason: string) => void): Promise<LsRow | null | undefined> {
  let session;
  try {
    session = await loadSession({ kind: "file", path: c.path });
  } catch (err) {
    fail(c.path, ioReason(err));
    return undefined;
  }
  try {
    const h = session.header;
    if (!h || typeof h.id !== "string") return null;
    let firstMessage: string | undefined;
    for (const rec of session.entries) {
      if (rec.type === "message" && rec.role === "user" && rec.text !== undefined && rec.text.trim() !== "") {
        firstMessage = rec.text;
        break;
      }
    }
    const parent = typeof h.parentSession === "string" ? h.parentSession : typeof h.branchedFrom === "string" ? h.branchedFrom : undefined;
    // As info counts it: entries a fork copied from a readable parent file are left out.
    const spend = sessionTotals(session, (await forkParent(session))?.copied);
    const row: LsRow = {
      path: c.path,
      id: h.id,
      cwd: typeof h.cwd === "string" ? h.cwd : null,
      created: typeof h.timestamp === "string" ? h.timestamp : null,
      modified: new Date(c.mtimeMs).toISOString(),
      entries: session.entries.length,
      leaves: leafRecs(session).length,
      bytes: c.bytes,
      version: session.version,
      problems: session.diagnostics.filter((d) => d.severity !== "info").length,
      totals: spend.totals,
      byKind: spend.byKind,
    };
    if (session.sessionName !== undefined) row.name = session.sessionName;
    if (firstMessage !== undefined) row.firstMessage = firstMessage;
    if (parent !== undefined) row.parentSession = parent;
    // Key order as documented.
    return {
      path: row.path,
      id: row.id,
      cwd: row.cwd,
      ...(row.name !== undefined ? { name: row.name } : {}),
      ...(row.firstMessage !== undefined ? { firstMessage: row.firstMessage } : {}),
      created: row.created,
      modified: row.modified,
      entries: row.entries,
      leaves: row.leaves,
      bytes: row.bytes,
      version: row.version,
      ...(row.parentSession !== undefined ? { parentSession: row.parentSession } : {}),
      problems: row.problems,
      totals: row.totals,
      byKind: row.byKind,
    };
  } finally {
    session.store.close();
  }
}

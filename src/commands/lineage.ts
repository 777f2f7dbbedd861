import { stat } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { readHeader, sessionsDir, type HeaderInfo } from "../io/discover.js";
import { lineageJson, lineageNdjson, lineageText, type LineageAncestor, type LineageFork, type LineageReport } from "../render/lineage.js";
import { collectFiles } from "./ls.js";
import { CliError, ioReason, styleFor, writeOut, type GlobalArgs } from "./common.js";

interface LineageArgs extends GlobalArgs {
  file: string;
  forksIn?: string[];
  json?: boolean;
  ndjson?: boolean;
}

function parentRef(h: HeaderInfo): { ref: string; legacy: boolean } | null {
  if (typeof h.parentSession === "string" && h.parentSession !== "") return { ref: h.parentSession, legacy: false };
  if (typeof h.branchedFrom === "string" && h.branchedFrom !== "") return { ref: h.branchedFrom, legacy: true };
  return null;
}

function resolveRef(ref: string, child: string): string {
  return isAbsolute(ref) ? resolve(ref) : resolve(dirname(child), ref);
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

export const lineageCommand: CommandModule<object, LineageArgs> = {
  command: "lineage <file>",
  describe: "Show a session's fork ancestry (parentSession, legacy branchedFrom) and its forks",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file", type: "string", demandOption: true })
      .option("forks-in", { describe: "A folder to search for forks, repeatable (default: the whole sessions dir)", type: "string", requiresArg: true, coerce: (v: unknown) => (Array.isArray(v) ? v : [v]).map(String) })
      .option("json", { describe: 'One document {"file","id","ancestors","forks","missing","cycle","searched"}', type: "boolean" })
      .option("ndjson", { describe: 'One object per ancestor and fork, with "relation"', type: "boolean" })
      .conflicts("json", "ndjson")
      .example("$0 lineage fork.jsonl", "parents up to the original, and forks of this file")
      .example("$0 lineage fork.jsonl --json | jq -r '.ancestors[-1].path'", "the original session") as unknown as Argv<LineageArgs>,
  handler: async (args) => {
    const file = resolve(args.file);
    try {
      const st = await stat(file);
      if (st.isDirectory()) throw new CliError(`${args.file}: is a directory (expected a session .jsonl file)`);
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw new CliError(`${args.file}: ${ioReason(err)}`);
    }
    const self = await readHeader(file);
    const ancestors: LineageAncestor[] = [];
    const missing: string[] = [];
    let cycle = false;
    const onChain = new Set<string>([file]);
    let cur: { path: string; header: HeaderInfo | undefined } = { path: file, header: self };
    for (let generation = 1; cur.header; generation++) {
      const p = parentRef(cur.header);
      if (!p) break;
      const path = resolveRef(p.ref, cur.path);
      if (onChain.has(path)) {
        cycle = true;
        break;
      }
      onChain.add(path);
      const exists = await isFile(path);
      const header = exists ? await readHeader(path) : undefined;
      ancestors.push({ generation, path, ref: p.ref, legacyBranchedFrom: p.legacy, exists, id: header?.id ?? null });
      if (!exists) {
        missing.push(path);
        break;
      }
      cur = { path, header };
    }

    const searched = args.forksIn && args.forksIn.length > 0 ? args.forksIn.map((d) => resolve(d)) : [await sessionsDir(process.env)];
    const files = await collectFiles(searched, () => undefined);
    // parent path → its forks, from every header found.
    const children = new Map<string, { path: string; id: string; legacy: boolean }[]>();
    for (const f of files) {
      const h = await readHeader(f);
      const p = h ? parentRef(h) : null;
      if (!h || !p) continue;
      const key = resolveRef(p.ref, f);
      const list = children.get(key) ?? [];
      list.push({ path: resolve(f), id: h.id, legacy: p.legacy });
      children.set(key, list);
    }
    const forks: LineageFork[] = [];
    const seen = new Set<string>([file]);
    let frontier = [file];
    for (let generation = 1; frontier.length > 0; generation++) {
      const next: string[] = [];
      for (const parent of frontier) {
        for (const c of (children.get(parent) ?? []).sort((a, b) => (a.path < b.path ? -1 : 1))) {
          if (seen.has(c.path)) continue;
          seen.add(c.path);
          forks.push({ generation, path: c.path, id: c.id, parent, legacyBranchedFrom: c.legacy });
          next.push(c.path);
        }
      }
      frontier = next;
    }
    const report: LineageReport = { file, id: self?.id ?? null, ancestors, forks, missing, cycle, searched };
    if (args.json) await writeOut([lineageJson(report)]);
    else if (args.ndjson) await writeOut([lineageNdjson(report)]);
    else await writeOut([lineageText(report, styleFor(args))]);
    if (missing.length > 0 || cycle) process.exitCode = 1;
  },
};

import { stat } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { loadSession } from "../model/load.js";
import type { Session } from "../model/session.js";
import { treeShape } from "../ops/leaves.js";
import { copiedMask, sessionFacts, sessionTotals } from "../ops/totals.js";
import { buildTree } from "../ops/tree.js";
import { infoJson, infoText, type InfoReport } from "../render/info.js";
import { openInput, problemSummary, styleFor, writeOut, type GlobalArgs } from "./common.js";

interface InfoArgs extends GlobalArgs {
  file: string;
  includeCopied?: boolean;
  json?: boolean;
}

export interface ForkParent {
  /** parentSession, else the legacy branchedFrom, as written in the header. */
  ref: string;
  legacy: boolean;
  /** Resolved against the fork's folder when relative. */
  path: string;
  exists: boolean;
  /** Entries copied from the parent (by index), when the parent could be read. */
  copied: Uint8Array | undefined;
}

/** The parent a fork names in its header, whether it exists, and which entries were copied from it. */
export async function forkParent(session: Session): Promise<ForkParent | null> {
  const h = session.header;
  if (!h) return null;
  const legacy = typeof h.parentSession !== "string" && typeof h.branchedFrom === "string";
  const ref = typeof h.parentSession === "string" ? h.parentSession : legacy ? (h.branchedFrom as string) : undefined;
  if (ref === undefined || ref === "") return null;
  const path = isAbsolute(ref) || session.path === undefined ? ref : resolve(dirname(session.path), ref);
  let exists = false;
  try {
    exists = (await stat(path)).isFile();
  } catch {
    exists = false;
  }
  let copied: Uint8Array | undefined;
  if (exists) {
    try {
      const parent = await loadSession({ kind: "file", path });
      try {
        copied = copiedMask(session, parent);
      } finally {
        parent.store.close();
      }
    } catch {
      copied = undefined;
    }
  }
  return { ref, legacy, path, exists, copied };
}

export const infoCommand: CommandModule<object, InfoArgs> = {
  command: "info <file>",
  describe: "Summarise a session: header, shape, labels, models, tokens and cost (per model and per leaf)",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .option("include-copied", { describe: "Count entries a fork copied from its parent file in the totals", type: "boolean" })
      .option("json", { describe: "One JSON document (see README: info --json)", type: "boolean" })
      .example("$0 info session.jsonl", "the summary")
      .example("$0 info session.jsonl --json | jq .totals.cost", "the session's cost, fork copies left out")
      .example("$0 info session.jsonl --json | jq '.leaves[].ownTotals.cost'", "each leaf's own cost") as unknown as Argv<InfoArgs>,
  handler: async (args) => {
    const session = await openInput(args.file);
    try {
      const include = args.includeCopied === true;
      const tree = buildTree(session);
      const parent = await forkParent(session);
      const mask = parent?.copied;
      const totals = sessionTotals(session, mask, include);
      const shape = treeShape(session, tree, include || !mask ? {} : { exclude: mask });
      const facts = sessionFacts(session);
      const h = session.header;
      const refOf = (r: { id: string | undefined; line: number }) => ({ id: r.id ?? null, line: r.line });
      const report: InfoReport = {
        file: session.file,
        header: h
          ? {
              version: session.version,
              id: typeof h.id === "string" ? h.id : null,
              cwd: typeof h.cwd === "string" ? h.cwd : null,
              created: typeof h.timestamp === "string" ? h.timestamp : null,
              parentSession: parent ? parent.ref : null,
              legacyBranchedFrom: parent ? parent.legacy : false,
              parentExists: parent ? parent.exists : null,
            }
          : null,
        name: session.sessionName ?? null,
        entries: facts.entries,
        byType: facts.byType,
        byRole: facts.byRole,
        roots: shape.roots.map(refOf),
        defaultLeaf: session.defaultLeaf ? refOf(session.defaultLeaf) : null,
        branchPoints: shape.branchPoints.map((b) => ({ ...refOf(b.rec), children: b.children })),
        maxDepth: shape.maxDepth,
        compactions: facts.compactions,
        labels: [...session.labels].map(([targetId, label]) => ({ targetId, targetLine: session.byId.get(targetId)?.line ?? null, label })),
        modelsUsed: facts.modelsUsed.map((m) => ({ provider: m.provider, model: m.model })),
        totals: totals.totals,
        byKind: totals.byKind,
        models: totals.models.map((m) => ({
          provider: m.provider,
          model: m.model,
          assistantMessages: m.assistantMessages,
          input: m.input,
          output: m.output,
          cacheRead: m.cacheRead,
          cacheWrite: m.cacheWrite,
          cost: m.cost,
          cacheWrite1h: m.cacheWrite1h,
          reasoning: m.reasoning,
          byKind: m.byKind,
        })),
        copied:
          parent && totals.copied
            ? {
                parent: parent.path,
                entries: totals.copied.entries,
                assistantMessages: totals.copied.assistantMessages,
                firstLine: totals.copied.firstLine,
                lastLine: totals.copied.lastLine,
                totals: totals.copied.totals,
                byKind: totals.copied.byKind,
                included: include,
              }
            : null,
        leaves: shape.leaves.map((l) => ({
          ...refOf(l.rec),
          depth: l.depth,
          isDefault: l.isDefault,
          forkPoint: l.forkPoint ? refOf(l.forkPoint) : null,
          cycle: l.cycle,
          totals: l.totals,
          ownTotals: l.ownTotals,
          byKind: l.byKind,
          ownByKind: l.ownByKind,
        })),
        duration:
          facts.start !== null && facts.end !== null
            ? { start: new Date(facts.start).toISOString(), end: new Date(facts.end).toISOString(), ms: facts.end - facts.start }
            : null,
        problems: session.diagnostics.filter((d) => d.severity !== "info").length + tree.problems.filter((d) => d.severity !== "info").length,
      };
      await writeOut([args.json ? infoJson(report) : infoText(report, styleFor(args))]);
      problemSummary(session, tree.problems.filter((d) => d.severity !== "info").length);
    } finally {
      session.store.close();
    }
  },
};

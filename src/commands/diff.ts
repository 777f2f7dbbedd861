import { realpathSync, statSync } from "node:fs";
import { leafRecs } from "../ops/leaves.js";
import { resolve } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { readEntry, type Session } from "../model/session.js";
import type { EntryRec } from "../model/types.js";
import {
  chooseAlign,
  diffContexts,
  diffPaths,
  lineageOf,
  sidePath,
  type Align,
  type FileSide,
  type Lineage,
  type SideInput,
} from "../ops/diff.js";
import { buildTree } from "../ops/tree.js";
import { contextDiffObject, pathDiffObject, type DiffJsonOptions } from "../render/diff-json.js";
import { contextDiffText, pathDiffText, SIDE_BY_SIDE_MIN, type DiffTextOptions } from "../render/diff-text.js";
import { sanitizeLine } from "../render/sanitize.js";
import { CliError, entryRef, openInput, problemSummary, styleFor, terminalWidth, writeOut, type GlobalArgs } from "./common.js";

interface DiffArgs extends GlobalArgs {
  file: string;
  a?: string;
  b?: string;
  leaves?: boolean;
  context?: boolean;
  json?: boolean;
  sideBySide?: boolean;
  width?: number;
}

function isExistingFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function absPathOf(file: string): string | undefined {
  if (file === "-") return undefined;
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}

function input(session: Session, leaf: EntryRec | null): SideInput {
  return { session, leaf, read: (rec) => readEntry(session, rec) };
}

/** Root → leaf, or exit 2 naming the cycle. */
function pathOrFail(session: Session, leaf: EntryRec | null): EntryRec[] {
  const r = sidePath(session, leaf);
  if (r.ok) return r.path;
  const lines = r.cycle.map((c) => c.line).join(" → ");
  throw new CliError(`${sanitizeLine(session.file)}: the path of line ${r.leaf.line} runs into a parent cycle (lines ${lines}); cannot compare it`, 2);
}

function structuralProblems(session: Session): number {
  return buildTree(session).problems.filter((d) => d.severity !== "info").length;
}

interface Pair {
  left: SideInput;
  right: SideInput;
  /** Set for two files. */
  files?: { left: string; right: string };
  lineage?: Lineage;
  single?: string;
}

async function comparePair(pair: Pair, args: DiffArgs, out: string[]): Promise<boolean> {
  const lp = pathOrFail(pair.left.session, pair.left.leaf);
  const rp = pathOrFail(pair.right.session, pair.right.leaf);
  const align: Align = chooseAlign(pair.left.session, pair.right.session, lp, rp);
  const jsonOpts: DiffJsonOptions = {};
  if (pair.single !== undefined) jsonOpts.file = pair.single;
  if (pair.files) {
    jsonOpts.files = pair.files;
    if (pair.lineage) jsonOpts.lineage = pair.lineage;
  }
  const textOpts = textOptions(args, pair);
  if (args.context) {
    const { buildContext } = await import("../ops/context.js");
    const lc = buildContext(pair.left.session, lp, pair.left.read);
    const rc = buildContext(pair.right.session, rp, pair.right.read);
    const d = diffContexts({ ...pair.left, context: lc }, { ...pair.right, context: rc }, align);
    if (args.json) out.push(JSON.stringify(contextDiffObject(d, jsonOpts)) + "\n");
    else out.push(...contextDiffText(d, textOpts));
    return !d.same;
  }
  const d = diffPaths(pair.left, lp, pair.right, rp, align);
  if (args.json) out.push(JSON.stringify(pathDiffObject(d, jsonOpts)) + "\n");
  else out.push(...pathDiffText(d, textOpts));
  return !d.same;
}

function textOptions(args: DiffArgs, pair: Pair): DiffTextOptions {
  const width = terminalWidth(args.width);
  let sideBySide = args.sideBySide === true;
  if (sideBySide && width !== undefined && width < SIDE_BY_SIDE_MIN) {
    sideBySide = false;
  }
  const o: DiffTextOptions = { style: styleFor(args), width, sideBySide };
  if (pair.files) o.files = pair.files;
  if (pair.lineage) o.lineage = pair.lineage;
  return o;
}

export const diffCommand: CommandModule<object, DiffArgs> = {
  command: "diff <file> [a] [b]",
  describe: "Show where two branches, or a fork and its parent, diverge",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file (- for stdin)", type: "string", demandOption: true })
      .positional("a", { describe: "An entry reference (left side), or a second session file", type: "string" })
      .positional("b", { describe: "A second entry reference (right side; default: the active leaf)", type: "string" })
      .option("leaves", { describe: "Compare every leaf with the active path (the default leaf)", type: "boolean" })
      .option("context", { describe: "Compare what the model saw at the two leaves (as pisess context builds it)", type: "boolean" })
      .option("json", { describe: "One JSON document (with --leaves: one holding every pair)", type: "boolean" })
      .option("side-by-side", { describe: "Divergent entries in two columns (needs 100+ columns)", type: "boolean" })
      .option("width", { describe: "Cut lines to N columns (default: terminal width on a TTY, else no cut)", type: "number" })
      .conflicts("json", "side-by-side")
      .example("$0 diff session.jsonl @40 @52", "the branches ending at lines 40 and 52")
      .example("$0 diff session.jsonl label:try-a", "the branch at label try-a against the active leaf")
      .example("$0 diff session.jsonl --leaves", "every leaf against the active path")
      .example("$0 diff fork.jsonl parent.jsonl", "a forked file against its parent")
      .example("$0 diff session.jsonl @40 @52 --context", "what the model saw at each of the two leaves")
      .example("$0 diff session.jsonl @40 @52 --json | jq '.right.entries | length'", "how many entries the right side adds")
      .epilogue("Exit codes: 0 the paths are the same, 1 they differ, 2 errors (as diff(1)).") as unknown as Argv<DiffArgs>,
  handler: async (args) => {
    const out: string[] = [];
    let differ = false;
    if (args.leaves) {
      if (args.a !== undefined) throw new CliError("--leaves takes one file and no entry references");
      const session = await openInput(args.file);
      try {
        differ = await leavesMode(session, args, out);
        await writeOut(out);
        problemSummary(session, structuralProblems(session));
      } finally {
        session.store.close();
      }
      process.exitCode = process.exitCode === 2 ? 2 : differ ? 1 : 0;
      return;
    }
    if (args.a === undefined) {
      throw new CliError("name two entries (FILE A B), one entry to compare with the active leaf (FILE A), a second file (FILE1 FILE2), or use --leaves");
    }
    const twoFiles = (args.a === "-" && args.file !== "-") || (args.a !== "-" && isExistingFile(args.a));
    if (twoFiles) {
      if (args.b !== undefined) throw new CliError(`${sanitizeLine(args.a)} is a file: comparing two files takes no entry references`);
      const left = await openInput(args.file);
      let right: Session | undefined;
      try {
        right = await openInput(args.a);
        const files = { left: left.file, right: right.file };
        const lf: FileSide = { file: left.file, absPath: absPathOf(args.file), session: left };
        const rf: FileSide = { file: right.file, absPath: absPathOf(args.a), session: right };
        const pair: Pair = { left: input(left, left.defaultLeaf), right: input(right, right.defaultLeaf), files, lineage: lineageOf(lf, rf) };
        differ = await comparePair(pair, args, out);
        await writeOut(out);
        problemSummary(left, structuralProblems(left));
        problemSummary(right, structuralProblems(right));
      } finally {
        left.store.close();
        right?.store.close();
      }
    } else {
      const session = await openInput(args.file);
      try {
        // FILE A B: A left, B right. FILE A: the active leaf left, A right.
        const a = entryRef(session, args.a);
        const leftRec = args.b !== undefined ? a : session.defaultLeaf;
        const rightRec = args.b !== undefined ? entryRef(session, args.b) : a;
        differ = await comparePair({ left: input(session, leftRec), right: input(session, rightRec), single: session.file }, args, out);
        await writeOut(out);
        problemSummary(session, structuralProblems(session));
      } finally {
        session.store.close();
      }
    }
    process.exitCode = differ ? 1 : 0;
  },
};

/** Every leaf against the active path; a leaf whose path runs into a cycle is reported on stderr (exit 2). */
async function leavesMode(session: Session, args: DiffArgs, out: string[]): Promise<boolean> {
  const active = session.defaultLeaf;
  if (!active) throw new CliError(`${sanitizeLine(session.file)}: the session has no entries`);
  pathOrFail(session, active);
  const others = leafRecs(session).filter((l) => l !== active);
  let differ = false;
  let failed = 0;
  const items: string[] = [];
  for (const leaf of others) {
    const r = sidePath(session, leaf);
    if (!r.ok) {
      failed++;
      process.stderr.write(
        `pisess: ${sanitizeLine(session.file)}: the path of line ${leaf.line} runs into a parent cycle (lines ${r.cycle.map((c) => c.line).join(" → ")}); skipped\n`,
      );
      if (args.json) items.push(JSON.stringify({ leaf: { id: leaf.id ?? null, line: leaf.line }, error: "cycle", cycle: r.cycle.map((c) => c.line) }));
      continue;
    }
    const chunks: string[] = [];
    const pair: Pair = { left: input(session, active), right: input(session, leaf) };
    differ = (await comparePair(pair, args, chunks)) || differ;
    if (args.json) items.push(chunks.join("").trimEnd());
    else {
      if (out.length > 0) out.push("\n");
      out.push(...chunks);
    }
  }
  if (args.json) {
    out.push(JSON.stringify({ file: session.file, active: { id: active.id ?? null, line: active.line } }).slice(0, -1) + ',"diffs":[' + items.join(",") + "]}\n");
  } else if (others.length === 0) {
    out.push("only one leaf: nothing to compare\n");
  }
  if (failed > 0) process.exitCode = 2;
  return differ;
}

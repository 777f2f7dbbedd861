import type { EntryRec } from "../model/detail.js";
import type { ContextDiff, Lineage, PathDiff } from "../ops/diff.js";
import {
  type ContextDiffJson,
  contextDiffObject,
  type DiffJsonOptions,
  type DiffRefJson,
  type PathDiffJson,
  pathDiffObject,
} from "./diff-json.js";
import { contextDiffText, type DiffTextOptions, pathDiffText } from "./diff-text.js";
import { openArrayMember } from "./json.js";

/** One comparison as the diff report gives it (the structure of reports/diff.ts's DiffItem). */
export type DiffPair = { file?: string; files?: { left: string; right: string }; lineage?: Lineage } & (
  | { kind: "paths"; diff: PathDiff }
  | { kind: "contexts"; diff: ContextDiff }
);

/** A --leaves comparison left out because the leaf's path runs into a parent cycle. */
export type DiffCycleItem = { kind: "cycle"; leaf: EntryRec; cycle: number[] };

/** An item of `diff --leaves --json`'s "diffs" for a leaf whose path runs into a parent cycle. */
export interface DiffCycleJson {
  leaf: DiffRefJson;
  error: "cycle";
  /** The lines of the entries on the cycle. */
  cycle: number[];
}

/** `diff --leaves --json`: every leaf against the active one. */
export interface DiffLeavesJson {
  file: string;
  active: DiffRefJson;
  diffs: (PathDiffJson | ContextDiffJson | DiffCycleJson)[];
}

/** The text options of one comparison (the command's, with the pair's file names and lineage). */
export type TextOptionsFor = (pair: { files?: { left: string; right: string }; lineage?: Lineage }) => DiffTextOptions;

function jsonOptions(pair: DiffPair, maxEntries: number | undefined): DiffJsonOptions {
  const o: DiffJsonOptions = {};
  if (pair.file !== undefined) o.file = pair.file;
  if (pair.files) {
    o.files = pair.files;
    if (pair.lineage) o.lineage = pair.lineage;
  }
  if (maxEntries !== undefined) o.maxEntries = maxEntries;
  return o;
}

/** `diff --json` for one comparison: the document, then a newline. */
function diffPairJson(pair: DiffPair, maxEntries: number | undefined): string {
  const opts = jsonOptions(pair, maxEntries);
  const o = pair.kind === "contexts" ? contextDiffObject(pair.diff, opts) : pathDiffObject(pair.diff, opts);
  return `${JSON.stringify(o)}\n`;
}

/**
 * One comparison, as `diff` prints it: a JSON document or text lines. Nothing for a cycle. `maxEntries`: list at
 * most that many divergent entries per side (diff --leaves).
 */
export function diffItemChunks(item: DiffPair | DiffCycleItem, json: boolean, textOptions: TextOptionsFor, maxEntries?: number): string[] {
  if (item.kind === "cycle") return [];
  if (json) return [diffPairJson(item, maxEntries)];
  const o = textOptions(item);
  const opts = maxEntries === undefined ? o : { ...o, maxEntries };
  return item.kind === "contexts" ? [...contextDiffText(item.diff, opts)] : [...pathDiffText(item.diff, opts)];
}

/** `diff --leaves` lists this many divergent entries per side unless told to list them all (--all-entries). */
export const LEAVES_MAX_ENTRIES = 10;

/** What `diff --leaves` names at the top: the file and its active leaf. */
export interface DiffLeavesHead {
  file: string;
  active: EntryRec;
}

/**
 * `diff --leaves`, written one comparison at a time: the head (the JSON document's opening, once the file and its
 * active leaf are known) before the first item, each item, and the end. Text separates comparisons by a blank line
 * and leaves cycles to the diagnostics on stderr; JSON lists them as {"leaf","error":"cycle","cycle"}. `maxEntries`:
 * list at most that many divergent entries per side (undefined: all).
 */
export class DiffLeavesFrame {
  private count = 0;
  private seen = 0;
  private started = false;

  constructor(
    private readonly json: boolean,
    private readonly textOptions: TextOptionsFor,
    private readonly maxEntries?: number,
  ) {}

  /** The head, the first time only. */
  private head(head: DiffLeavesHead | undefined): string[] {
    if (this.started || head === undefined) return [];
    this.started = true;
    const { file, active } = head;
    return this.json ? [openArrayMember(JSON.stringify({ file, active: { id: active.id ?? null, line: active.line } }), "diffs")] : [];
  }

  item(item: DiffPair | DiffCycleItem, head: DiffLeavesHead): string[] {
    const out = this.head(head);
    this.seen++;
    const sep = this.count > 0 ? (this.json ? "," : "\n") : "";
    if (item.kind === "cycle") {
      if (!this.json) return out;
      this.count++;
      const c: DiffCycleJson = { leaf: { id: item.leaf.id ?? null, line: item.leaf.line }, error: "cycle", cycle: item.cycle };
      out.push(sep, JSON.stringify(c));
      return out;
    }
    this.count++;
    const chunks = diffItemChunks(item, this.json, this.textOptions, this.maxEntries);
    if (this.json) out.push(sep, chunks.join("").trimEnd());
    else {
      out.push(sep);
      for (const c of chunks) out.push(c);
    }
    return out;
  }

  /** The end, after the head when no item wrote it (`head` undefined: the session had no active path to name). */
  end(head: DiffLeavesHead | undefined): string[] {
    const out = this.head(head);
    if (this.json) out.push("]}\n");
    else if (this.seen === 0) out.push("only one leaf: nothing to compare\n");
    return out;
  }
}

import type { EntryRec } from "../model/types.js";
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

function jsonOptions(pair: DiffPair): DiffJsonOptions {
  const o: DiffJsonOptions = {};
  if (pair.file !== undefined) o.file = pair.file;
  if (pair.files) {
    o.files = pair.files;
    if (pair.lineage) o.lineage = pair.lineage;
  }
  return o;
}

/** `diff --json` for one comparison: the document, then a newline. */
function diffPairJson(pair: DiffPair): string {
  const o = pair.kind === "contexts" ? contextDiffObject(pair.diff, jsonOptions(pair)) : pathDiffObject(pair.diff, jsonOptions(pair));
  return `${JSON.stringify(o)}\n`;
}

/** One comparison, as `diff` prints it: a JSON document or text lines. Nothing for a cycle. */
export function diffItemChunks(item: DiffPair | DiffCycleItem, json: boolean, textOptions: TextOptionsFor): string[] {
  if (item.kind === "cycle") return [];
  if (json) return [diffPairJson(item)];
  return item.kind === "contexts" ? [...contextDiffText(item.diff, textOptions(item))] : [...pathDiffText(item.diff, textOptions(item))];
}

/**
 * `diff --leaves`, written one comparison at a time: the head (the JSON document's opening, once the file and its
 * active leaf are known), each item, and the end. Text separates comparisons by a blank line and leaves cycles to
 * the diagnostics on stderr; JSON lists them as {"leaf","error":"cycle","cycle"}.
 */
export class DiffLeavesFrame {
  private count = 0;
  private seen = 0;

  constructor(
    private readonly json: boolean,
    private readonly textOptions: TextOptionsFor,
  ) {}

  head(file: string, active: EntryRec): string {
    return this.json ? `${JSON.stringify({ file, active: { id: active.id ?? null, line: active.line } }).slice(0, -1)},"diffs":[` : "";
  }

  item(item: DiffPair | DiffCycleItem): string[] {
    this.seen++;
    const sep = this.count > 0 ? (this.json ? "," : "\n") : "";
    if (item.kind === "cycle") {
      if (!this.json) return [];
      this.count++;
      const c: DiffCycleJson = { leaf: { id: item.leaf.id ?? null, line: item.leaf.line }, error: "cycle", cycle: item.cycle };
      return [sep, JSON.stringify(c)];
    }
    this.count++;
    const out = diffItemChunks(item, this.json, this.textOptions);
    return this.json ? [sep, out.join("").trimEnd()] : [sep, ...out];
  }

  end(): string {
    if (this.json) return "]}\n";
    return this.seen === 0 ? "only one leaf: nothing to compare\n" : "";
  }
}

/**
 * The wire types of every `--json` / `--ndjson` output, named: scripts/gen-output-schemas.mjs generates
 * schemas/output/*.json from these (and test/output-schemas.test.ts validates every command's output against them).
 * Types only. Where a renderer already has a named type it is re-exported; the rest name what a renderer builds
 * as a plain object (tree --ndjson, validate, usage, follow) or wraps around named rows (leaves, labels, ls, sql).
 */
import type { FileResult, ValidateSummary } from "../check/summary.js";
import type { Diagnostic, Severity } from "../model/types.js";
import type { BloatData } from "../ops/bloat.js";
import type { CompactionsData } from "../ops/compactions.js";
import type { SqlValue } from "../ops/fleet-tables.js";
import type { GroupKey, UsageSums } from "../ops/fleet-usage.js";
import type { FollowSpend } from "../ops/follow.js";
import type { ContextJson } from "./context-json.js";
import type { DiffCycleJson, DiffLeavesJson } from "./diff.js";
import type { ContextDiffJson, PathDiffJson } from "./diff-json.js";
import type { GrepHitJson, GrepJson } from "./grep.js";
import type { IndexJson } from "./index-update.js";
import type { LineageAncestor, LineageFork } from "../ops/lineage.js";
import type { BudgetReport } from "../reports/budget.js";
import type { InfoReport } from "../reports/info.js";
import type { LabelChange, LabelRow } from "../reports/labels.js";
import type { LeafRow } from "../reports/leaves.js";
import type { LineageCopy, LineageReport } from "../reports/lineage.js";
import type { LsRow } from "../reports/ls.js";
import type { PathItemJson, PathJson } from "./path.js";
import type { ShowReport } from "../reports/show.js";
import type { ShowSkippedJson } from "./show.js";
import type { SecretsJson } from "./secrets.js";
import type { TreeJsonDocument } from "./tree-json.js";

export type {
  BloatData,
  BudgetReport,
  CompactionsData,
  ContextJson,
  DiffCycleJson,
  DiffLeavesJson,
  GrepHitJson,
  GrepJson,
  IndexJson,
  InfoReport,
  LabelChange,
  LabelRow,
  LeafRow,
  LineageReport,
  LsRow,
  PathItemJson,
  PathJson,
  SecretsJson,
  TreeJsonDocument,
};

/** `tree --ndjson`: one shown entry (tree-json.ts treeNdjson), keys in this order. */
export interface TreeNdjsonLine {
  id: string | null;
  line: number;
  /** As written (after pi's v1 migration); null when missing. */
  parentId: string | null;
  /** Depth in the shown tree. */
  depth: number;
  type: string;
  /** Message entries only. */
  role?: string;
  label?: string;
  /** On the path from the root to the leaf. */
  onPath: boolean;
  isLeaf: boolean;
  /** The children's ids (null for a child without an id), in pi's getTree order. */
  children: (string | null)[];
  /** Set where pisess cut a parent cycle open to show it. */
  cycle?: true;
}

/** `context --ndjson`: one message per line, as pi builds the context (with --llm: after pi's convertToLlm). */
export interface ContextNdjsonLine {
  /** user, assistant, toolResult, …: the message as pi holds it. */
  role: string;
  [key: string]: unknown;
}

/** `diff --json` for one comparison: of two paths, or (a fork against its parent, --context) of two contexts. */
export type DiffJson = PathDiffJson | ContextDiffJson;

/** `diff --leaves --json`'s items (re-exported for the schema's definitions). */
export type DiffLeavesItem = PathDiffJson | ContextDiffJson | DiffCycleJson;

/** `show --json`: the entry, or (for a line the loader skipped) the line and its diagnostics. */
export type ShowJson = ShowReport | ShowSkippedJson;

/** `leaves --json`. */
export interface LeavesJson {
  file: string;
  leaves: LeafRow[];
}

/** `labels --json`. */
export interface LabelsJson {
  file: string;
  labels: LabelRow[];
}

/** `labels --history --json`. */
export interface LabelsHistoryJson {
  file: string;
  history: LabelChange[];
}

/** `lineage --ndjson`: one ancestor or fork per line, with its relation. */
export type LineageNdjsonLine =
  | ({ relation: "ancestor" } & LineageAncestor & { copied: LineageCopy | null })
  | ({ relation: "fork" } & LineageFork & { copied: LineageCopy | null });

/** `ls --json`. */
export interface LsJson {
  sessions: LsRow[];
}

/** A finding as `validate --format json` writes it (validate-json.ts diagJson): optional keys left out. */
export interface DiagnosticJson {
  code: string;
  severity: Severity;
  /** 1-based physical line, or null for a finding about the whole file. */
  line: number | null;
  column?: number;
  entryId?: string;
  /** The message as text (not sanitized). */
  message: string;
  args: Diagnostic["args"];
}

/** `validate --format json`. */
export interface ValidateJson {
  files: {
    file: FileResult["file"];
    /** The input could not be read. */
    error?: string;
    diagnostics: DiagnosticJson[];
  }[];
  summary: ValidateSummary;
}

/** `validate --format ndjson`: one finding per line, with its file first. */
export interface ValidateNdjsonLine extends DiagnosticJson {
  file: string;
}

/** A SARIF level as pisess writes it. */
type SarifLevel = "error" | "warning" | "note";

interface SarifPhysicalLocation {
  artifactLocation: { uri: string };
  region?: { startLine: number; startColumn?: number };
}

/**
 * `validate --format sarif`: the subset of SARIF 2.1.0 (https://json.schemastore.org/sarif-2.1.0.json) that
 * validate-sarif.ts writes.
 */
export interface SarifLog {
  $schema: "https://json.schemastore.org/sarif-2.1.0.json";
  version: "2.1.0";
  runs: {
    tool: {
      driver: {
        name: "pisess";
        version: string;
        semanticVersion: string;
        informationUri: string;
        rules: {
          id: string;
          name: string;
          shortDescription: { text: string };
          helpUri: string;
          defaultConfiguration: { level: SarifLevel };
        }[];
      };
    };
    invocations: {
      executionSuccessful: boolean;
      toolExecutionNotifications: {
        level: "error";
        message: { text: string };
        locations: { physicalLocation: SarifPhysicalLocation }[];
      }[];
    }[];
    columnKind: "utf16CodeUnits";
    results: {
      ruleId: string;
      /** -1 for a code that is not in the rules. */
      ruleIndex: number;
      level: SarifLevel;
      message: { text: string };
      locations: { physicalLocation: SarifPhysicalLocation }[];
      properties?: { entryId?: string; args: Diagnostic["args"] };
    }[];
  }[];
}

/** `usage --ndjson`: one row; the group keys named in --by (null: none), then the sums, then (--breakdown) models. */
export type UsageRowJson = Partial<Record<GroupKey, string | null>> &
  UsageSums & {
    /** With --breakdown: the same sums per "provider/model", most expensive first. */
    models?: (UsageSums & { model: string })[];
  };

/** `usage --json`. */
export interface UsageJson {
  by: GroupKey[];
  rows: UsageRowJson[];
  totals: UsageSums;
}

/** `sql --ndjson`: one row, keyed by column name. */
export type SqlRowJson = Record<string, SqlValue>;

/** `sql --json`. */
export interface SqlJson {
  columns: string[];
  rows: SqlRowJson[];
}

/** `follow --ndjson`: the fields of `tree --ndjson` as of when the entry was appended, its spend and the entry. */
export type FollowNdjsonLine = TreeNdjsonLine & {
  /** The entry's tokens and cost where it counts in the totals, else null. */
  spend: FollowSpend | null;
  /** The entry as migrated in memory. */
  entry: Record<string, unknown>;
};

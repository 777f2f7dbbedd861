/**
 * pisess as a library: the same index, operations and reports the CLI uses, read-only.
 *
 *   import { openSession, infoReport } from "pisess";
 *   const session = await openSession("session.jsonl");
 *   const { data, diagnostics, exitCode } = await infoReport(session);
 *
 * Every command is a report here (infoReport, lsReport, lineageReport, …): a function of parsed options that
 * returns data, never prints, and never reads process.
 */
export { openSession, openFile, type OpenSession } from "./reports/open.js";
export { readLines, LineSplitter, type RawLine, type Source } from "./model/store-text.js";
export { agentDir, sessionsDir, cwdFolderName, listSessionFiles, mostRecentSession, readHeader } from "./io/discover.js";
export { loadSession, type LoadOptions } from "./model/load.js";
export { readEntry, v1Id, CURRENT_VERSION, KNOWN_ENTRY_TYPES, type Session } from "./model/session.js";
export { CODES, type Code, type CodeArgs } from "./model/codes.js";
export type { Diagnostic, Header, Severity, Usage } from "./model/types.js";
export type { Detail, EntryRec, Rec } from "./model/detail.js";
export { buildTree, resolveParent, type SessionTree, type TreeNode } from "./ops/tree.js";
export { pathTo, type PathResult } from "./ops/path.js";
export { resolveRef, findByLine, type RefResult } from "./ops/refs.js";
export { buildView, layoutRows, searchableText, FILTER_MODES, type FilterMode, type ViewOptions, type SessionView } from "./ops/view.js";
export { formatMessage } from "./render/diagnostics.js";
export { buildContext, type SessionContext } from "./ops/context.js";
export { convertToLlm, COMPACTION_PREFIX, BRANCH_PREFIX } from "./ops/llm.js";
export { diffPaths, type PathDiff } from "./ops/diff.js";
export { computeStats, type EntryStats } from "./ops/stats.js";
export { sessionTotals, type SessionTotals, type Totals } from "./ops/totals.js";
export { leafRecs } from "./ops/leaves.js";
export { checkSession, type CheckOptions } from "./check/validate.js";
export { diagnosticLine } from "./render/diagnostics.js";
export { forkParentRef, resolveForkRef, collectFiles, defaultSessionRoot } from "./io/discover.js";
export { forkParent, type ForkParent } from "./ops/fork.js";
export { problemCount, sessionProblems } from "./ops/problems.js";
export { ancestorsOf, forksOf, type LineageAncestor, type LineageFork } from "./ops/lineage.js";
export { grepSession, type GrepHit, type GrepQuery } from "./ops/grep.js";
export { ReportError, type Report } from "./reports/report.js";
export { entryRef } from "./reports/refs.js";
export { treeReport, type TreeOptions, type TreeData } from "./reports/tree.js";
export { pathReport, type PathOptions, type PathData } from "./reports/path.js";
export {
  contextReport,
  resolveSessionFile,
  type ContextData,
  type ContextOptions,
  type ContextOutput,
  type HeldMessage,
  type JsonContext,
  type ShownContext,
  type ValuesContext,
} from "./reports/context.js";
export { type ChangedEntry, exportJsonl, exportFacts, htmlPayload, type JsonlExport } from "./reports/export.js";
export type { HtmlPayload } from "./reports/export.js";
export { diffReport, type DiffOptions, type DiffData, type DiffItem } from "./reports/diff.js";
export { lsReport, LS_SORTS, type LsOptions, type LsData, type LsSort, type IoFailure } from "./reports/ls.js";
export { infoReport, type InfoOptions } from "./reports/info.js";
export { leavesReport, type LeavesOptions, type LeavesData } from "./reports/leaves.js";
export { showReport, type ShowOptions, type ShowData } from "./reports/show.js";
export { labelsReport, type LabelsOptions, type LabelsData } from "./reports/labels.js";
export { lineageReport, type LineageOptions } from "./reports/lineage.js";
export { grepReport, type GrepOptions, type GrepData } from "./reports/grep.js";
export { validateReport, type ValidateOptions, type ValidateData } from "./reports/validate.js";
export {
  secretsReport,
  type SecretsOptions,
  type SecretsData,
  type SecretFinding,
  type SecretGroup,
  type SecretRequest,
} from "./reports/secrets.js";
export { redactSession, type RedactOptions, type RedactFacts } from "./reports/redact.js";
export { schemaReport, type SchemaOptions, type SchemaData } from "./reports/schema.js";
export { bloatReport, type BloatOptions, type BloatData } from "./reports/bloat.js";
export { compactionsReport, type CompactionsOptions, type CompactionsData } from "./reports/compactions.js";
export { budgetReport, type BudgetOptions, type BudgetReport } from "./reports/budget.js";
export type { InfoReport } from "./reports/info.js";
export type { LineageReport } from "./reports/lineage.js";
export type { ContextJson } from "./render/context-json.js";
export { contextFacts, type ContextFacts, type CompactionFacts, type EditFacts } from "./ops/context-facts.js";
export {
  describeContext,
  describeContextStream,
  type ContextDisplay,
  type ContextDisplayOptions,
  type ContextDisplayStream,
  type DisplayMessage,
  type DisplaySource,
  type Part,
} from "./render/context-display.js";
export type { PathJson, PathItemJson } from "./render/path.js";
export type { DiffLeavesJson, DiffCycleJson } from "./render/diff.js";
export type { PathDiffJson, ContextDiffJson } from "./render/diff-json.js";
export type { GrepJson, GrepHitJson } from "./render/grep.js";
export type { ShowSkippedJson } from "./render/show.js";
export { usageReport, type UsageOptions, type UsageData } from "./reports/usage.js";
export { tablesReport, type TablesOptions, type TablesData } from "./reports/tables.js";
export { indexReport, type IndexData } from "./reports/fleet-index.js";
export { sqlReport, type SqlOptions, type SqlData } from "./reports/sql.js";
export { TABLES, TABLE_NAMES, tableSchema, type TableName } from "./ops/fleet-tables.js";
export {
  followSession,
  followContextTokens,
  FollowContextSize,
  ThrottledContextSize,
  projectSessionFolder,
  type FollowOptions,
  type FollowEvent,
} from "./reports/follow.js";
export { FollowState, type FollowStep, type FollowSpend, type FollowTotals, type Announcement } from "./ops/follow.js";
export { FileTail, TailFile, type TailEvent } from "./io/tail.js";
export { LIVE_WINDOW_MS, type HeldTail } from "./model/store-text.js";

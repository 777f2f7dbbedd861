import { readFileSync, statSync } from "node:fs";
import { Readable } from "node:stream";
import { timestampRegression } from "../check/structure.js";
import { checkSession } from "../check/validate.js";
import { loadSession } from "../model/load.js";
import { readEntry, type Session } from "../model/session.js";
import { entryTime } from "../model/time.js";
import type { Diagnostic, Header } from "../model/types.js";
import type { EntryRec, Rec } from "../model/detail.js";
import { buildContext, type SessionContext } from "../ops/context.js";
import {
  type EntryPatchKind,
  exportEntries,
  exportHeader,
  type ExportHeaderFacts,
  keepNothingPatch,
  LeaveOutEffect,
  timestampPatch,
} from "../ops/export-jsonl.js";
import { pathTo } from "../ops/path.js";
import { cycleProblem } from "../ops/tree.js";
import { toJson } from "../model/json-text.js";
import { type InfoReport, infoReport } from "./info.js";
import { entryRef } from "./refs.js";
import { ReportError, type Report } from "./report.js";

/** The header facts every export format shows: `pisess info`'s report and validate's findings counted by code. */
export interface ExportFacts {
  info: InfoReport;
  /** The file's modification time (ISO), where it is a file. */
  modified: string | null;
  /** Format version and the entry types and roles of later pi versions found in the file. */
  features: string[];
  /** validate's findings (warnings and errors) by code, most frequent first. */
  problems: { code: string; severity: string; count: number }[];
}

export interface JsonlExport {
  leaf: EntryRec;
  /** The lines of the new file, each without its newline. */
  lines: string[];
  /** Entries of the path left out, each with the finding that made it go (line = the original's line). */
  leftOut: Diagnostic[];
  /** Entries written with a field changed so that the finding goes while the context stays: the finding and the change. */
  changed: ChangedEntry[];
  /** Findings about the new file that neither leaving out nor changing could fix without changing the context. */
  remaining: Diagnostic[];
  /** Whether pisess builds the same context at the new file's last entry as at the leaf of the original. */
  sameContext: boolean;
}

/** A finding the export fixed by changing a field (line = the original's line), and which change it made. */
export type ChangedEntry = Diagnostic & { patch: EntryPatchKind };

/**
 * What the HTML page embeds: the index (entry records), each entry's line once, and what is per leaf already
 * (totals). The page rebuilds the session from these and runs the same ops modules, bundled, to build contexts.
 */
export interface HtmlPayload {
  file: string;
  header: Header | null;
  headerLine: number | null;
  version: number;
  recs: Rec<"full">[];
  lines: string[];
  byId: [string, number][];
  labels: [string, string][];
  sessionName: string | null;
  defaultLeaf: number | null;
  leaf: number;
  facts: [string, string][];
  leaves: { index: number; input: number; output: number; cacheRead: number; cacheWrite: number; cost: number }[];
  imagesDropped: boolean;
}

/**
 * What the exporter hands exportHtml: the payload with its lines produced one at a time, so that the lines of a
 * 100 MB session are never all held as strings (nor as one JSON string of them).
 */
export type HtmlPayloadSource = Omit<HtmlPayload, "lines"> & { lines: Iterable<string> };

/** Entry types and roles that only some pi versions write, shown as "features seen". */
const FEATURE_TYPES = ["usage", "context_edit", "custom_message", "session_info", "label", "compaction", "branch_summary"];
const FEATURE_ROLES = ["system", "bashExecution", "custom", "branchSummary", "compactionSummary"];

export async function exportFacts(session: Session<"full">, modified: string | null): Promise<ExportFacts> {
  const info = (await infoReport(session)).data;
  const features = [`v${String(session.version)}`];
  for (const t of FEATURE_TYPES) if ((info.byType[t] ?? 0) > 0) features.push(t);
  for (const r of FEATURE_ROLES) if ((info.byRole[r] ?? 0) > 0) features.push(`role ${r}`);
  const counts = new Map<string, { code: string; severity: string; count: number }>();
  for (const d of checkSession(session)) {
    if (d.severity === "info") continue;
    const c = counts.get(d.code) ?? { code: d.code, severity: d.severity, count: 0 };
    c.count++;
    counts.set(d.code, c);
  }
  const problems = [...counts.values()].sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1));
  return { info, modified, features, problems };
}

/** The path root → leaf, or the cycle diagnostic when there is none (exit 1). */
export function exportPath(session: Session, leafRef: string): { leaf: EntryRec; path: EntryRec[] | null; diagnostics: Diagnostic[] } {
  const leaf = entryRef(session, leafRef);
  const r = pathTo(session, leaf);
  if (!r.ok) return { leaf, path: null, diagnostics: [cycleProblem(session.file, r.cycle)] };
  return { leaf, path: r.path, diagnostics: [] };
}

function contextKey(session: Session, path: EntryRec[]): string {
  return keyOf(buildContext(session, path, (rec) => readEntry(session, rec)));
}

/** What a context compares by: its messages and settings, as JSON text on any stack. */
function keyOf(c: SessionContext): string {
  return toJson([c.messages, c.thinkingLevel, c.model]) as string;
}

/** The field change that fixes finding `d` on `rec` without changing the context, where there is one. */
function fieldPatch(d: Diagnostic, rec: EntryRec): { kind: EntryPatchKind; fields: Record<string, unknown> } | null {
  const fields =
    d.code === "first-kept-missing" || d.code === "first-kept-off-path"
      ? keepNothingPatch(rec)
      : d.code === "timestamp-regression"
        ? timestampPatch(rec, d.args.previous)
        : null;
  if (fields === null) return null;
  return { kind: d.code === "timestamp-regression" ? "timestamp-lifted" : "keep-nothing", fields };
}

/**
 * `pisess export --format jsonl`: the path as a clean v3 file. The candidate file is loaded and validated in memory
 * with the same checks `pisess validate` runs; an entry with a warning or an error is left out (rechained) when that
 * leaves the context as it was, else a field that no message carries is changed (a dangling firstKeptEntryId to pi's own "keep nothing", a
 * timestamp earlier than the entry above to that entry's), else it
 * stays and is reported. Repeated until nothing changes; then the context at the new file's last entry is compared
 * with the original's at the leaf.
 */
export async function exportJsonl(session: Session, leafRef: string, header: ExportHeaderFacts): Promise<Report<JsonlExport | null>> {
  const { leaf, path, diagnostics } = exportPath(session, leafRef);
  if (path === null) return { data: null, diagnostics, exitCode: 1 };
  const leaveOut = new Set<EntryRec>();
  const patches = new Map<EntryRec, Record<string, unknown>>();
  // Entries whose finding stays: leaving them out would change the context and no field change fixes them (a tool
  // result that answers no call, a message pi sends although its schema is wrong).
  const keep = new Set<EntryRec>();
  const leftOut: Diagnostic[] = [];
  const changed: ChangedEntry[] = [];
  const headLine = toJson(exportHeader(session, header)) as string;
  // Whether leaving an entry out changes the context: known without a rebuild for most entries (LeaveOutEffect),
  // rebuilt and compared for the others; the effect takes in each context a rebuild accepts.
  const read = (rec: EntryRec) => readEntry(session, rec);
  const effect = new LeaveOutEffect(session, path, read);
  const first = buildContext(session, path, read);
  const want = keyOf(first);
  effect.update(first, leaveOut);
  const rebuild = (): boolean => {
    const c = buildContext(
      session,
      path.filter((r) => !leaveOut.has(r)),
      read,
    );
    if (keyOf(c) !== want) return false;
    effect.update(c, leaveOut);
    return true;
  };
  const unchanged = (rec: EntryRec): boolean => {
    const changes = effect.changes(rec);
    return changes === null ? rebuild() : !changes;
  };
  /** Leaves out, changes or keeps the entry of finding `d` (`kept`: the entries the checked copy holds); true when
   * the export changed. */
  const handle = (d: Diagnostic, rec: EntryRec, kept: EntryRec[]): boolean => {
    if (leaveOut.has(rec) || keep.has(rec)) return false;
    leaveOut.add(rec);
    if (unchanged(rec)) {
      leftOut.push({ ...d, file: session.file, line: rec.line });
      return true;
    }
    // An edit pi applies although its writer would refuse it: leaving out the edit and its target together gives
    // the same context when the edit only removed the target's messages.
    const target =
      d.code === "context-edit-not-editable" && typeof d.args.targetLine === "number" ? kept[d.args.targetLine - 2] : undefined;
    // A target an earlier finding already left out stays out (its left-out line is reported).
    if (target !== undefined && !keep.has(target) && !leaveOut.has(target)) {
      leaveOut.add(target);
      if (rebuild()) {
        leftOut.push({ ...d, file: session.file, line: rec.line }, { ...d, file: session.file, line: target.line });
        return true;
      }
      leaveOut.delete(target);
    }
    leaveOut.delete(rec);
    const patch = patches.has(rec) ? null : fieldPatch(d, rec);
    if (patch !== null) {
      patches.set(rec, patch.fields);
      changed.push({ ...d, file: session.file, line: rec.line, patch: patch.kind });
      return true;
    }
    keep.add(rec);
    return false;
  };
  /** checkTimeOrder over the entries as the next copy holds them (lifted timestamps, left-out entries gone). */
  const timeOrderSweep = (): void => {
    let prev: { time: number; line: number; timestamp: string } | null = null;
    let line = 1;
    const kept = path.filter((r) => !leaveOut.has(r));
    for (const rec of kept) {
      line++;
      const lifted = patches.get(rec)?.timestamp;
      const timestamp = typeof lifted === "string" ? lifted : String(rec.timestamp);
      const time = typeof lifted === "string" ? entryTime(lifted) : rec.time;
      if (Number.isNaN(time)) continue;
      if (prev && time < prev.time && !keep.has(rec) && handle(timestampRegression("export", line, rec, timestamp, prev), rec, kept)) {
        if (leaveOut.has(rec)) {
          line--;
          continue;
        }
        const now = patches.get(rec)?.timestamp;
        prev = { time: typeof now === "string" ? entryTime(now) : time, line, timestamp: typeof now === "string" ? now : timestamp };
        continue;
      }
      prev = { time, line, timestamp };
    }
  };
  for (;;) {
    const kept = path.filter((r) => !leaveOut.has(r));
    const lines = [headLine];
    for (const o of exportEntries(session, path, leaveOut, patches)) lines.push(toJson(o) as string);
    const name = "export";
    const copy = await loadSession({ kind: "stream", name, stream: Readable.from([`${lines.join("\n")}\n`]) }, { name });
    const found = checkSession(copy, { fileExists: () => true }).filter((d) => d.severity !== "info");
    const entryOf = (d: Diagnostic) => (d.line !== null && d.line >= 2 ? kept[d.line - 2] : undefined);
    let progress = false;
    for (const d of found) {
      const rec = entryOf(d);
      if (rec !== undefined && handle(d, rec, kept)) progress = true;
    }
    // A lifted timestamp can be later than the next entry's: that regression would be found next round, and the
    // one it lifts the round after (a round each, every round a whole export and validation). Found now instead.
    if (progress) timeOrderSweep();
    if (!progress) {
      const last = copy.defaultLeaf;
      const copyPath = last ? pathTo(copy, last) : null;
      const same = copyPath?.ok === true && contextKey(copy, copyPath.path) === want;
      copy.store.close();
      const remaining = found.map((d) => {
        const rec = entryOf(d);
        return { ...d, file: session.file, line: rec ? rec.line : null };
      });
      const exitCode = remaining.length > 0 || !same ? 1 : 0;
      return { data: { leaf, lines, leftOut, changed, remaining, sameContext: same }, diagnostics: [], exitCode };
    }
    copy.store.close();
  }
}

/** The entries of the branch root → leaf, read whole one at a time (for the Markdown export). */
export function* branchEntries(session: Session, path: readonly EntryRec[]): Generator<{ rec: EntryRec; entry: Record<string, unknown> }> {
  for (const rec of path) yield { rec, entry: readEntry(session, rec) };
}

/** An entry line with every image block's data emptied (--no-images); other lines stay exactly as found. */
function dropImages(line: string): string {
  if (!line.includes('"image"')) return line;
  const o = JSON.parse(line) as unknown;
  // An explicit stack: content can nest deeper than a recursive walk's stack goes.
  const stack: unknown[] = [o];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (typeof v === "object" && v !== null) {
      const e = v as Record<string, unknown>;
      if (e.type === "image" && typeof e.data === "string") e.data = "";
      for (const x of Object.values(e)) stack.push(x);
    }
  }
  return toJson(o) as string;
}

/** By default the HTML page cuts strings longer than this (characters) in the entries it embeds (--body-limit). */
export const BODY_LIMIT_DEFAULT = 256 * 1024;

/**
 * How many entries the page may cut strings in: those whose line is longer than `limit` (bytes: a string of more
 * characters than the limit needs a line of more bytes). Known before the lines are written, for the page's note.
 */
export function entriesOverLimit(session: Session, limit: number): number {
  if (limit <= 0) return 0;
  let n = 0;
  for (const r of session.entries) if (r.length > limit) n++;
  return n;
}

/** `s` cut to about `limit` characters (never inside a surrogate pair), saying how much was cut. */
function cutString(s: string, limit: number): string {
  const end = (s.charCodeAt(limit - 1) & 0xfc00) === 0xd800 ? limit - 1 : limit;
  return `${s.slice(0, end)}\n… [${s.length - end} more characters not embedded: pisess export --body-limit 0 embeds all]`;
}

/**
 * An entry line with every string longer than `limit` cut (cutString), image data left whole (--no-images drops
 * it); a line with none stays exactly as found. Only a line longer than the limit can hold such a string.
 */
function cutLongStrings(line: string, limit: number): string {
  if (limit <= 0 || line.length <= limit) return line;
  const o = JSON.parse(line) as unknown;
  let cut = false;
  // An explicit stack: content can nest deeper than a recursive walk's stack goes.
  const stack: unknown[] = [o];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (typeof v !== "object" || v === null) continue;
    const c = v as Record<string, unknown>;
    const image = !Array.isArray(v) && c.type === "image";
    for (const k of Object.keys(c)) {
      const x = c[k];
      if (typeof x === "string") {
        if (x.length > limit && !(image && k === "data")) {
          c[k] = cutString(x, limit);
          cut = true;
        }
      } else if (typeof x === "object" && x !== null) stack.push(x);
    }
  }
  return cut ? (toJson(o) as string) : line;
}

/** Each entry's line, read when written (the session must stay open until the page is). */
function* entryLines(session: Session, images: boolean, bodyLimit: number): Generator<string> {
  for (const r of session.entries) {
    const line = session.store.rawLine(r);
    yield cutLongStrings(images ? line : dropImages(line), bodyLimit);
  }
}

export function htmlPayload(
  session: Session<"full">,
  leaf: EntryRec,
  facts: ExportFacts,
  rows: [string, string][],
  images: boolean,
  bodyLimit = BODY_LIMIT_DEFAULT,
): HtmlPayloadSource {
  const byId = [...session.byId].map(([id, rec]) => [id, rec.index] as [string, number]);
  const byLine = new Map(session.entries.map((r) => [r.line, r]));
  const leaves = facts.info.leaves.map((l) => {
    const rec = byLine.get(l.line) as EntryRec;
    const t = l.totals;
    return { index: rec.index, input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite, cost: t.cost };
  });
  return {
    file: session.file,
    header: session.header,
    headerLine: session.headerLine,
    version: session.version,
    recs: session.entries,
    lines: entryLines(session, images, bodyLimit),
    byId,
    labels: [...session.labels],
    sessionName: session.sessionName ?? null,
    defaultLeaf: session.defaultLeaf?.index ?? null,
    leaf: leaf.index,
    facts: rows,
    leaves,
    imagesDropped: !images,
  };
}

/** The browser bundle (scripts/build-web.mjs); dist/ and src/ both sit one level below the package root. */
const BUNDLE = new URL("../../dist/web/export-app.bundle.js", import.meta.url);

/** The HTML page's script, built by `npm run build`. */
export function readBundle(): string {
  try {
    return readFileSync(BUNDLE, "utf8");
  } catch {
    throw new ReportError("the HTML viewer is not built (dist/web/export-app.bundle.js); run npm run build");
  }
}

export function fileModified(path: string): string {
  return statSync(path).mtime.toISOString();
}

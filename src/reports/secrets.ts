import type { FileResult } from "../check/summary.js";
import { ioReason } from "../io/errors.js";
import { diag } from "../model/codes.js";
import type { EntryRec } from "../model/detail.js";
import { isObject, type Obj } from "../model/json.js";
import { readEntry, type Session } from "../model/session.js";
import type { Diagnostic, Severity } from "../model/types.js";
import type { BatchLinter, SecretHit, SecretPattern } from "../check/secrets.js";
import { type PlaceKind, placeOf, pointerOf, reachesModel, stringAt, toolCallWords } from "../ops/secret-places.js";
import type { SentTo } from "../ops/secrets-sent.js";
import type { OpenSession } from "./open.js";
import type { WorkerLinter } from "./secrets-pool.js";
import { ReportError, type Report } from "./report.js";
import { expandInputs, NO_FILES } from "./validate.js";

export interface SecretsOptions {
  /** Session files, directories (every *.jsonl below) or "-". */
  inputs: string[];
  patterns?: readonly SecretPattern[];
  allow?: readonly RegExp[];
  /** Put the values themselves in the findings (`--show-secret`); masked otherwise. */
  showSecret?: boolean;
  /** Lowest severity that makes the exit status 1: warning (default) any secret, error only those sent. */
  failOn?: Severity;
  allowEmpty?: boolean;
  allowUnreadable?: boolean;
  /**
   * Worker threads that lint while this one reads (0: none); default one where there is a core to spare. A session
   * too small to fill a batch of strings starts none.
   */
  threads?: number;
  open: OpenSession;
  isStdin?: (input: string) => boolean;
  displayName?: (input: string) => string;
}

/** An assistant turn: one request pi made to the model. */
export interface SecretRequest {
  line: number;
  model: string | null;
  provider: string | null;
  /** The entry's timestamp as written. */
  time: string | null;
}

/** One place a secret was found. */
export interface SecretFinding {
  file: string;
  line: number;
  /** The entry's id; null for the header or an entry without one. */
  entryId: string | null;
  /** The entry's type, "header", or "line" for a line that holds no entry. */
  entryType: string;
  pointer: string;
  place: PlaceKind;
  /** What produced a tool result or bash output ("read .env", "bash env"), secrets in it masked. */
  from: string | null;
  rule: string;
  /** The first 4 characters and the length: all of the value shown without --show-secret. */
  masked: string;
  length: number;
  /** Only with --show-secret. */
  value?: string;
  /** Requests to the model whose context held it. */
  requests: number;
  first: SecretRequest | null;
  last: SecretRequest | null;
  /** Later compaction and branch summaries that repeat the value (and whether they were sent themselves). */
  repeatedIn: { line: number; type: string; sent: boolean }[];
}

/** One secret: a value (per rule) with every place it was found. */
export interface SecretGroup {
  rule: string;
  masked: string;
  length: number;
  value?: string;
  /** Indexes into `findings` of the data. */
  places: number[];
  /** The most requests any one place was sent in. */
  requests: number;
}

export interface SecretsFileSummary {
  file: string;
  error?: string;
  findings: number;
  /** Findings that reached the model. */
  sent: number;
  /** Findings per rule. */
  byRule: Record<string, number>;
}

export interface SecretsData {
  findings: SecretFinding[];
  secrets: SecretGroup[];
  files: SecretsFileSummary[];
  /** The same findings as diagnostics (secret-sent, secret-unsent), per file: validate's renderers take them. */
  results: FileResult[];
  notes: string[];
}

/** `pisess secrets`: every secret in the sessions, whether each reached the model and where it came from. */
export async function secretsReport(opts: SecretsOptions): Promise<Report<SecretsData>> {
  const [{ exitStatus }] = await Promise.all([import("../check/summary.js")]);
  const isStdin = opts.isStdin ?? ((i: string) => i === "-");
  if (opts.inputs.filter((i) => isStdin(i)).length > 1) throw new ReportError("stdin (-) can be read only once");
  const notes: string[] = [];
  const inputs = await expandInputs(opts.inputs, isStdin, notes, opts.allowEmpty === true);
  const findings: SecretFinding[] = [];
  const files: SecretsFileSummary[] = [];
  const results: FileResult[] = [];
  const remote = await lintPool(opts);
  try {
    for (const input of inputs) await scanInput(input, opts, remote, { notes, findings, files, results });
  } finally {
    await remote?.close();
  }
  const data: SecretsData = { findings, secrets: groupSecrets(findings, opts.showSecret === true), files, results, notes };
  const counted = opts.allowUnreadable === true ? results.filter((r) => r.ioError === undefined || r.ioError === NO_FILES) : results;
  for (const f of findings) if (opts.showSecret !== true) delete f.value;
  return {
    data,
    diagnostics: results.flatMap((r) => r.diagnostics),
    exitCode: exitStatus(counted, { failOn: opts.failOn ?? "warning", maxWarnings: -1 }),
  };
}

/** The worker threads that lint batches, when asked for and their module is there (it is beside the built code). */
async function lintPool(opts: SecretsOptions): Promise<WorkerLinter | undefined> {
  const [{ lintThreads, WorkerLinter }, { workerModule }] = await Promise.all([import("./secrets-pool.js"), import("./pool.js")]);
  const n = lintThreads(opts.threads);
  const url = n > 0 ? await workerModule("secrets-worker.js") : undefined;
  return url === undefined ? undefined : new WorkerLinter(url, n, opts.patterns ?? []);
}

interface Collected {
  notes: string[];
  findings: SecretFinding[];
  files: SecretsFileSummary[];
  results: FileResult[];
}

async function scanInput(
  input: { name: string; ioError?: string },
  opts: SecretsOptions,
  remote: BatchLinter | undefined,
  { notes, findings, files, results }: Collected,
): Promise<void> {
  const displayName = opts.displayName ?? ((i: string) => i);
  const name = displayName(input.name);
  const failed = (reason: string) => {
    results.push({ file: name, diagnostics: [], ioError: reason });
    files.push({ file: name, error: reason, findings: 0, sent: 0, byRule: {} });
  };
  if (input.ioError !== undefined) {
    notes.push(`${name}: ${input.ioError}`);
    failed(input.ioError);
    return;
  }
  let found: SecretFinding[];
  try {
    found = await scanFile(input.name, opts, remote);
  } catch (err) {
    if (err instanceof ReportError) {
      notes.push(err.message);
      failed(err.message.startsWith(`${name}: `) ? err.message.slice(name.length + 2) : err.message);
      return;
    }
    if ((err as NodeJS.ErrnoException)?.code === undefined) throw err;
    notes.push(`${name}: ${ioReason(err)}`);
    failed(ioReason(err));
    return;
  }
  for (const f of found) findings.push(f);
  const byRule: Record<string, number> = {};
  for (const f of found) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
  files.push({ file: found[0]?.file ?? name, findings: found.length, sent: found.filter((f) => f.requests > 0).length, byRule });
  results.push({ file: found[0]?.file ?? name, diagnostics: found.map((f) => findingDiagnostic(f, opts.showSecret === true)) });
}

function findingDiagnostic(f: SecretFinding, show: boolean): Diagnostic {
  const args = {
    rule: f.rule,
    pointer: f.pointer,
    place: f.place,
    from: f.from,
    masked: f.masked,
    length: f.length,
    requests: f.requests,
    firstRequest: f.first?.line ?? null,
    lastRequest: f.last?.line ?? null,
    repeatedIn: f.repeatedIn.map((r) => r.line),
    value: show ? (f.value ?? null) : null,
  };
  const extra = f.entryId === null ? {} : { entryId: f.entryId };
  return f.requests > 0 ? diag("secret-sent", f.file, f.line, args, extra) : diag("secret-unsent", f.file, f.line, args, extra);
}

/** The same value under the same rule is one secret, wherever it was found (in any of the files). */
function groupSecrets(findings: readonly SecretFinding[], show: boolean): SecretGroup[] {
  const groups = new Map<string, SecretGroup>();
  findings.forEach((f, i) => {
    const k = `${f.rule}\u0000${f.value ?? ""}`;
    let g = groups.get(k);
    if (g === undefined) {
      g = { rule: f.rule, masked: f.masked, length: f.length, places: [], requests: 0 };
      if (show && f.value !== undefined) g.value = f.value;
      groups.set(k, g);
    }
    g.places.push(i);
    g.requests = Math.max(g.requests, f.requests);
  });
  return [...groups.values()];
}

/** The first four characters: what a finding shows of its value. */
export function maskValue(value: string): string {
  return Array.from(value).slice(0, 4).join("");
}

/** Scans one session file: loads it once (every entry's strings scanned as the loader parses it), then places them. */
async function scanFile(input: string, opts: SecretsOptions, remote: BatchLinter | undefined): Promise<SecretFinding[]> {
  const [{ SecretScanner }, { buildTree }, { requestsHolding }] = await Promise.all([
    import("../check/secrets.js"),
    import("../ops/tree.js"),
    import("../ops/secrets-sent.js"),
  ]);
  const scanner = new SecretScanner({
    ...(opts.patterns ? { patterns: opts.patterns } : {}),
    ...(opts.allow ? { allow: opts.allow } : {}),
    ...(remote ? { remote } : {}),
  });
  // The check detail: every line is parsed whole for the scan anyway, and its records are the skeleton's and
  // little more, where a skeleton load parsed whole fills every field (1 GB: 240 against 430 MB of records).
  const session = await opts.open(input, { detail: "check", onEntry: (rec, value) => scanner.add(rec.index, value) });
  try {
    if (session.header !== null) scanner.add(HEADER_OWNER, session.header);
    await addUnparsed(session, scanner);
    const hits = await scanner.finish();
    if (hits.length === 0) return [];
    const bodies = new Map<number, Obj>();
    const read = (rec: EntryRec): Obj => {
      let o = bodies.get(rec.index);
      if (o === undefined) {
        o = readEntry(session, rec);
        bodies.set(rec.index, o);
      }
      return o;
    };
    const owners = [...new Set(hits.map((h) => h.owner))].filter((o) => o >= 0).map((o) => session.entries[o] as EntryRec);
    const tree = buildTree(session);
    // Contexts read entries again without keeping them: only the few entries that hold secrets stay in `bodies`.
    const sent = requestsHolding(session, tree, owners, (rec) => readEntry(session, rec));
    const values = new Set(hits.map((h) => h.value));
    const found = hits.map((h) => placed(session, h, read, sent, values));
    addRepeats(found, hits);
    // In file order: the lines no entry holds were scanned last.
    return found.sort((a, b) => a.line - b.line);
  } finally {
    session.store.close();
  }
}

/** The owner of the header's hits; a line that holds no entry (malformed JSON) is owner -1 - LINE. */
const HEADER_OWNER = -1;

/**
 * Lines pi drops (not JSON, or JSON but not an object) are in no request, but they are in the file, and a copy of
 * it: scanned as plain text (where the session is a file; a stream's dropped lines are not kept).
 */
async function addUnparsed(session: Session, scanner: { add(owner: number, value: unknown): void }): Promise<void> {
  const lines = new Set(session.skipped.filter((s) => s.reason === "malformed" || s.reason === "non-object").map((s) => s.line));
  if (lines.size === 0 || session.path === undefined) return;
  const { linesTextAt } = await import("../model/store-text.js");
  for (const [line, text] of await linesTextAt(session.path, lines)) scanner.add(HEADER_OWNER - line, text);
}

function placed(
  session: Session,
  h: SecretHit,
  read: (rec: EntryRec) => Obj,
  sent: ReadonlyMap<EntryRec, SentTo>,
  values: ReadonlySet<string>,
): SecretFinding {
  const rec = h.owner >= 0 ? (session.entries[h.owner] as EntryRec) : null;
  const unparsed = h.owner < HEADER_OWNER ? HEADER_OWNER - h.owner : null;
  const entry = rec === null ? null : read(rec);
  // The scan walked the line as parsed (before migration, which moves no string): its place is found the same way.
  const scanned: unknown = rec !== null ? JSON.parse(session.store.rawLine(rec)) : unparsed !== null ? h.text : session.header;
  const at = stringAt(scanned, h.ordinal);
  const pointer = at === null ? "" : pointerOf(at);
  const place: PlaceKind = entry !== null ? placeOf(entry, pointer) : unparsed !== null ? "unparsed-line" : "header";
  const reaches = entry !== null && reachesModel(entry, pointer);
  const to = rec !== null && reaches ? sent.get(rec) : undefined;
  const request = (a: EntryRec | null | undefined): SecretRequest | null => (a ? requestOf(a, read(a)) : null);
  const from = rec === null || entry === null ? null : producedBy(session, rec, entry, place, read);
  return {
    file: session.file,
    line: rec?.line ?? unparsed ?? session.headerLine ?? 1,
    entryId: unparsed !== null ? null : (rec?.id ?? (typeof session.header?.id === "string" ? session.header.id : null)),
    entryType: rec !== null ? rec.type : unparsed !== null ? "line" : "header",
    pointer,
    place,
    from: from === null ? null : shorten(maskAll(from, values)),
    rule: h.rule,
    masked: maskValue(h.value),
    length: h.value.length,
    value: h.value,
    requests: to?.requests ?? 0,
    first: request(to?.first),
    last: request(to?.last),
    repeatedIn: [],
  };
}

function requestOf(rec: EntryRec, o: Obj): SecretRequest {
  const m = isObject(o.message) ? o.message : {};
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  return { line: rec.line, model: str(m.model), provider: str(m.provider), time: str(o.timestamp) };
}

/** Words of a tool call, masked first (a cut must not leave half a secret unmasked), then cut to 80 characters. */
function shorten(s: string): string {
  const cs = Array.from(s);
  return cs.length > 80 ? `${cs.slice(0, 79).join("")}…` : s;
}

/** Every secret value in a text shown as its mask (a tool call's words can quote the secret it printed). */
function maskAll(text: string, values: ReadonlySet<string>): string {
  let out = text;
  for (const v of values) if (out.includes(v)) out = out.split(v).join(`${maskValue(v)}…`);
  return out;
}

/** For a tool result: the tool call it answers (the nearest assistant turn above it with that call id); for bash output, its command. */
function producedBy(session: Session, rec: EntryRec, entry: Obj, place: PlaceKind, read: (rec: EntryRec) => Obj): string | null {
  const m = isObject(entry.message) ? entry.message : null;
  if (m === null) return null;
  if (m.role === "bashExecution" && place === "bash-output") return `bash ${typeof m.command === "string" ? m.command : ""}`.trim();
  if (m.role !== "toolResult" || typeof m.toolCallId !== "string") return null;
  const id = m.toolCallId;
  // Bounded by the number of entries: a parent cycle ends the walk instead of looping.
  let steps = session.entries.length;
  for (let cur = parentOf(session, rec); cur !== null && steps-- > 0; cur = parentOf(session, cur)) {
    if (cur.type !== "message" || cur.role !== "assistant") continue;
    const am = read(cur).message;
    const content = isObject(am) && Array.isArray(am.content) ? am.content : [];
    for (const b of content) {
      if (isObject(b) && b.type === "toolCall" && b.id === id) return toolCallWords(String(b.name), b.arguments);
    }
  }
  return typeof m.toolName === "string" ? m.toolName : null;
}

/** The parent pi resolves (last duplicate of the id wins). */
function parentOf(session: Session, rec: EntryRec): EntryRec | null {
  if (typeof rec.parentId !== "string") return null;
  const p = session.byId.get(rec.parentId);
  return p === undefined || p === rec ? null : p;
}

/** Marks, on each finding, the later compaction and branch summaries that hold the same value. */
function addRepeats(found: SecretFinding[], hits: readonly SecretHit[]): void {
  const summaries = new Set(found.filter((f) => f.place === "compaction-summary" || f.place === "branch-summary"));
  if (summaries.size === 0) return;
  found.forEach((f, i) => {
    const v = (hits[i] as SecretHit).value;
    for (let j = 0; j < found.length; j++) {
      const s = found[j] as SecretFinding;
      if (!summaries.has(s) || s.line <= f.line || (hits[j] as SecretHit).value !== v) continue;
      if (!f.repeatedIn.some((r) => r.line === s.line)) f.repeatedIn.push({ line: s.line, type: s.entryType, sent: s.requests > 0 });
    }
  });
}

import { diag } from "../model/codes.js";
import { isObject } from "../model/json.js";
import { KNOWN_ROLES } from "../model/roles.js";
import { parseEntry, type Session } from "../model/session.js";
import { messageMissing, unknownRole } from "../ops/problems.js";
import type { Diagnostic } from "../model/types.js";
import type { EntryRec } from "../model/detail.js";
import { loadCatalogue, schemaErrors, type Catalogue, type SchemaError } from "./schemas.js";

/**
 * The per-line checks: schemas, lone surrogates, unknown keys (strict), message shape and usage totals. One entry
 * at a time is parsed (re-read by its byte range), checked and dropped, so memory stays bounded on any file size.
 */

interface ContentOptions {
  strict?: boolean;
  /** Called now and then with the byte offset reached. */
  onProgress?: (bytes: number) => void;
}

const ROLE_SCHEMA: Record<string, string> = {
  system: "message-system",
  user: "message-user",
  assistant: "message-assistant",
  toolResult: "message-toolResult",
  bashExecution: "message-bashExecution",
  custom: "message-custom",
  hookMessage: "message-custom",
};
const BLOCK_SCHEMA: Record<string, string> = {
  text: "block-text",
  image: "block-image",
  thinking: "block-thinking",
  toolCall: "block-toolCall",
};

/** A JSON pointer segment. */
function seg(key: string | number): string {
  return `/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A raw line can only hold a lone surrogate through a \u escape (decoded UTF-8 never yields one). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

function loneEscape(s: string): string {
  const m = LONE.exec(s);
  const code = m ? m[0].charCodeAt(0) : 0;
  return `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Every string (and key) holding a lone surrogate, as [pointer, escape]. Iterative. */
function findLoneSurrogates(value: unknown): [string, string][] {
  const found: [string, string][] = [];
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === "string") {
      if (LONE.test(v)) found.push([path || "/", loneEscape(v)]);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path + seg(i)]);
    } else if (isObject(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        if (LONE.test(k)) found.push([path + seg(k), loneEscape(k)]);
        stack.push([v[k], path + seg(k)]);
      }
    }
  }
  return found;
}

/** Keys an object holds that its schema does not name, as [pointer of the object, key, schema]. */
function unknownKeys(cat: Catalogue, o: Record<string, unknown>, schema: string, path: string, out: [string, string, string][]): void {
  const known = cat.knownKeys.get(schema);
  if (!known) return;
  for (const k of Object.keys(o)) if (!known.has(k)) out.push([path || "/", k, schema]);
}

function blockKeys(cat: Catalogue, content: unknown, path: string, out: [string, string, string][]): void {
  if (!Array.isArray(content)) return;
  content.forEach((b, i) => {
    if (isObject(b) && typeof b.type === "string" && BLOCK_SCHEMA[b.type]) {
      unknownKeys(cat, b, BLOCK_SCHEMA[b.type] as string, path + seg(i), out);
    }
  });
}

function usageKeys(cat: Catalogue, u: unknown, path: string, out: [string, string, string][]): void {
  if (!isObject(u)) return;
  unknownKeys(cat, u, "usage", path, out);
  if (isObject(u.cost)) unknownKeys(cat, u.cost, "usage-cost", `${path}/cost`, out);
}

function messageKeys(cat: Catalogue, m: Record<string, unknown>, path: string, version: number, out: [string, string, string][]): void {
  const role = typeof m.role === "string" ? m.role : "";
  const schema = ROLE_SCHEMA[role];
  if (schema === undefined || (role === "hookMessage" && version >= 3)) return;
  unknownKeys(cat, m, schema, path, out);
  blockKeys(cat, m.content, `${path}/content`, out);
  if (role === "assistant" || role === "toolResult") usageKeys(cat, m.usage, `${path}/usage`, out);
}

function entryUnknownKeys(cat: Catalogue, o: Record<string, unknown>, version: number): [string, string, string][] {
  const out: [string, string, string][] = [];
  const type = typeof o.type === "string" ? o.type : "";
  // Unknown entry types have their own fields: only the warning about the type itself.
  if (!cat.knownKeys.has(`entry-${type}`) || type === "") return out;
  unknownKeys(cat, o, `entry-${type}`, "", out);
  if (type === "custom_message") blockKeys(cat, o.content, "/content", out);
  if (type === "compaction" || type === "branch_summary" || type === "usage") usageKeys(cat, o.usage, "/usage", out);
  if (type === "compaction" && isObject(o.systemMessage)) messageKeys(cat, o.systemMessage, "/systemMessage", version, out);
  if (type === "context_edit" && isObject(o.replacement)) blockKeys(cat, o.replacement.content, "/replacement/content", out);
  if (type === "message" && isObject(o.message)) messageKeys(cat, o.message, "/message", version, out);
  return out;
}

function num(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

/** Assistant usage: totalTokens against its four parts, cost.total against its four parts. */
function usageProblems(u: unknown): { field: string; found: number; expected: number }[] {
  if (!isObject(u)) return [];
  const out: { field: string; found: number; expected: number }[] = [];
  const parts = [u.input, u.output, u.cacheRead, u.cacheWrite];
  if (num(u.totalTokens) && parts.every(num)) {
    const sum = (parts as number[]).reduce((a, b) => a + b, 0);
    if (sum !== u.totalTokens) out.push({ field: "totalTokens", found: u.totalTokens, expected: sum });
  }
  const c = u.cost;
  if (isObject(c)) {
    const cp = [c.input, c.output, c.cacheRead, c.cacheWrite];
    if (num(c.total) && cp.every(num)) {
      const sum = (cp as number[]).reduce((a, b) => a + b, 0);
      // Prices are floating point: allow rounding noise, far below a millionth of a cent.
      if (Math.abs(sum - c.total) > 1e-9 + 1e-9 * Math.abs(c.total)) {
        out.push({ field: "cost.total", found: c.total, expected: Number(sum.toPrecision(12)) });
      }
    }
  }
  return out;
}

/**
 * Drops schema errors that a more specific code already reports for the same line, so each defect is
 * reported once.
 */
function covered(e: SchemaError, rec: EntryRec, version: number, messageMissing: boolean): boolean {
  const top = e.path === "" ? (e.missing !== undefined ? `/${e.missing}` : "") : e.path;
  if (messageMissing && (top === "/message" || top.startsWith("/message/"))) return true;
  // missing-id (loader), dangling-parent and invalid-timestamp (tree) cover these fields.
  if (version >= 2 && rec.id === undefined && top === "/id") return true;
  // Only an absent parentId: one of the wrong type (5, {}) is a schema violation as well as a dangling parent.
  if (version >= 2 && rec.parentId === undefined && top === "/parentId" && e.missing !== undefined) return true;
  if (Number.isNaN(rec.time) && top === "/timestamp") return true;
  // context-edit-no-replacement and context-edit-bad-replacement cover the replacement's own shape.
  if (rec.type === "context_edit" && (top === "/replacement" || top === "/replacement/content")) return true;
  return false;
}

function schemaDiags(out: Diagnostic[], file: string, line: number, errors: SchemaError[], entryId: string | undefined): void {
  for (const e of errors) {
    const path = e.missing !== undefined ? `${e.path}/${e.missing}` : e.path || "/";
    out.push(
      diag("schema-violation", file, line, { path, keyword: e.keyword, message: e.message }, entryId === undefined ? {} : { entryId }),
    );
  }
}

/** Header: schema (minus the id, which header-invalid-id covers), lone surrogates and, when strict, unknown keys. */
export function checkHeader(session: Session, opts: ContentOptions, out: Diagnostic[]): void {
  const h = session.header;
  const line = session.headerLine;
  if (!h || line === null) return;
  const cat = loadCatalogue();
  if (!cat.header(h)) {
    // header-invalid-id and version-unknown (loader) cover these fields.
    const versionReported = session.diagnostics.some((d) => d.code === "version-unknown");
    const errors = schemaErrors(cat.header.errors).filter(
      (e) => !(e.path === "/id" || e.missing === "id") && !(versionReported && e.path === "/version"),
    );
    schemaDiags(out, session.file, line, errors, undefined);
  }
  for (const [path, esc] of findLoneSurrogates(h)) out.push(diag("lone-surrogate", session.file, line, { path, escape: esc }));
  if (opts.strict) {
    const found: [string, string, string][] = [];
    unknownKeys(cat, h, "header", "", found);
    for (const [path, key, schema] of found) out.push(diag("unknown-key", session.file, line, { key, path, schema }));
  }
}

/**
 * The lone-surrogate findings of a whole session, header and entries: the output filter writes each as U+FFFD, and a
 * command whose output held one reports them (commands/common.ts). Only lines with a surrogate escape are parsed.
 */
export function loneSurrogateFindings(session: Session): Diagnostic[] {
  const out: Diagnostic[] = [];
  const h = session.header;
  if (h && session.headerLine !== null)
    for (const [path, esc] of findLoneSurrogates(h))
      out.push(diag("lone-surrogate", session.file, session.headerLine, { path, escape: esc }));
  for (const rec of session.entries) {
    const raw = session.store.rawLine(rec);
    if (!SURROGATE_ESCAPE.test(raw)) continue;
    for (const [path, esc] of findLoneSurrogates(parseEntry(session, rec, raw)))
      out.push(diag("lone-surrogate", session.file, rec.line, { path, escape: esc }, entryExtra(rec)));
  }
  return out;
}

/** A finding's entry id, made only when there is a finding (most entries have none). */
function entryExtra(rec: EntryRec): { entryId?: string } {
  return rec.id === undefined ? {} : { entryId: rec.id };
}

/** The per-entry checks of one entry: its record, its whole parsed value and its text. */
export type EntryCheck = (rec: EntryRec, o: Record<string, unknown>, raw: string, at: { file: string; version: number }) => void;

/** The content checks of one entry at a time, adding their findings to `out` (the loader's onEntry runs them). */
export function entryChecker(opts: ContentOptions, out: Diagnostic[]): EntryCheck {
  const cat = loadCatalogue();
  return (rec, o, raw, { file, version }) => {
    const noMessage = rec.type === "message" && !isObject(o.message);
    if (noMessage) out.push(messageMissing(file, rec, o.message));
    if (!cat.entry(o)) {
      const errors = schemaErrors(cat.entry.errors).filter((e) => !covered(e, rec, version, noMessage));
      schemaDiags(out, file, rec.line, errors, rec.id);
    }
    if (SURROGATE_ESCAPE.test(raw)) {
      for (const [path, esc] of findLoneSurrogates(o))
        out.push(diag("lone-surrogate", file, rec.line, { path, escape: esc }, entryExtra(rec)));
    }
    if (rec.type === "message" && isObject(o.message)) {
      const m = o.message;
      if (typeof m.role === "string" && !KNOWN_ROLES.has(m.role) && !(m.role === "hookMessage" && version < 3)) {
        out.push(unknownRole(file, rec, m.role));
      }
      if (m.role === "assistant") {
        for (const p of usageProblems(m.usage)) out.push(diag("usage-inconsistent", file, rec.line, p, entryExtra(rec)));
      }
    }
    if (opts.strict) {
      for (const [path, key, schema] of entryUnknownKeys(cat, o, version)) {
        out.push(diag("unknown-key", file, rec.line, { key, path, schema }, entryExtra(rec)));
      }
    }
  };
}

/** Every entry of a loaded session, in file order, one at a time: each line read back and parsed again. */
export function checkEntries(session: Session, opts: ContentOptions, out: Diagnostic[]): void {
  const check = entryChecker(opts, out);
  const at = { file: session.file, version: session.version };
  let lastProgress = 0;
  for (const rec of session.entries) {
    if (opts.onProgress && rec.offset - lastProgress > 8 << 20) {
      lastProgress = rec.offset;
      opts.onProgress(rec.offset);
    }
    const raw = session.store.rawLine(rec);
    let o: unknown;
    try {
      o = JSON.parse(raw);
    } catch {
      continue; // changed since the loader read it; nothing reliable to say
    }
    if (isObject(o)) check(rec, o, raw, at);
  }
}

import { Readable } from "node:stream";
import type { SecretPattern } from "../check/secrets.js";
import { loadSession } from "../model/load.js";
import { readEntry, type Session } from "../model/session.js";
import { toJson } from "../model/json-text.js";
import { linesTextAt } from "../model/store-text.js";
import { type RedactCounts, type RedactRules, redactOrder, redactString, redactValue } from "../ops/redact.js";

export interface RedactOptions {
  /** The scan's own options, as `pisess secrets` takes them. */
  patterns?: readonly SecretPattern[];
  allow?: readonly RegExp[];
  /** `--redact-pattern`: more to mask, found by no rule. */
  redactPatterns?: readonly RegExp[];
}

/** What the facts header says of a redaction: masks made, per rule (most first), and distinct values found. */
export interface RedactFacts {
  masked: number;
  byRule: { rule: string; count: number }[];
  values: number;
}

/**
 * `export --redact`: the session again, every value `pisess secrets` finds in it (same scan) and every
 * --redact-pattern match masked as [REDACTED:rule], in every string but the structure's (ids, links, types, roles,
 * times: src/ops/redact.ts). The same lines in the same order, so ids, tree, usage and costs stay; the exports read
 * it as they read the original. Held in memory, as a session read from stdin is.
 */
export async function redactSession(session: Session, opts: RedactOptions): Promise<{ session: Session<"full">; facts: RedactFacts }> {
  const { SecretScanner } = await import("../check/secrets.js");
  const scanner = new SecretScanner({
    ...(opts.patterns ? { patterns: opts.patterns } : {}),
    ...(opts.allow ? { allow: opts.allow } : {}),
  });
  for (const rec of session.entries) scanner.add(rec.index, readEntry(session, rec));
  if (session.header !== null) scanner.add(-1, session.header);
  const values = new Map<string, string>();
  for (const h of await scanner.finish()) if (!values.has(h.value)) values.set(h.value, h.rule);
  const rules: RedactRules = { values, patterns: opts.redactPatterns ?? [] };
  const counts: RedactCounts = new Map();
  const lines = await redactedLines(session, rules, counts);
  const name = session.file;
  const redacted = await loadSession({ kind: "stream", name, stream: Readable.from(lines) }, { name });
  const byRule = [...counts].map(([rule, count]) => ({ rule, count })).sort((a, b) => b.count - a.count || (a.rule < b.rule ? -1 : 1));
  return { session: redacted, facts: { masked: byRule.reduce((n, r) => n + r.count, 0), byRule, values: values.size } };
}

/** Every line of the session, masked, each with its newline: entries and the header re-written where a mask changed them. */
async function redactedLines(session: Session, rules: RedactRules, counts: RedactCounts): Promise<string[]> {
  const order = redactOrder(rules);
  const byLine = new Map<number, string>();
  const nothing = order.length === 0 && rules.patterns.length === 0;
  for (const rec of session.entries) {
    const raw = session.store.rawLine(rec);
    if (nothing) {
      byLine.set(rec.line, raw);
      continue;
    }
    const o = JSON.parse(raw) as Record<string, unknown>;
    byLine.set(rec.line, redactValue(o, rules, counts, order) ? (toJson(o) as string) : raw);
  }
  if (session.header !== null && session.headerLine !== null) {
    const h = structuredClone(session.header) as Record<string, unknown>;
    const changed = !nothing && redactValue(h, rules, counts, order);
    byLine.set(session.headerLine, changed ? (toJson(h) as string) : JSON.stringify(session.header));
  }
  // Lines that hold no entry (blank, malformed) stay where they were, masked as text.
  const others = new Set(session.skipped.filter((s) => !byLine.has(s.line)).map((s) => s.line));
  const texts = session.path === undefined ? new Map<number, string>() : await linesTextAt(session.path, others);
  for (const line of others) byLine.set(line, redactString(texts.get(line) ?? "", rules, counts, order));
  const last = [...byLine.keys()].reduce((m, l) => Math.max(m, l), 0);
  const out: string[] = [];
  for (let l = 1; l <= last; l++) out.push(`${byLine.get(l) ?? ""}\n`);
  return out;
}

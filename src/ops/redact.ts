import { isObject } from "../model/json.js";

/** What redaction masks: each value with the rule that found it, and patterns of the user's. */
export interface RedactRules {
  values: ReadonlyMap<string, string>;
  /** `--redact-pattern`: every match is masked as [REDACTED:redact-pattern]. */
  patterns: readonly RegExp[];
}

/** The rule name the masks of `--redact-pattern` carry. */
export const PATTERN_RULE = "redact-pattern";

/**
 * Keys whose values are the session's structure, not its content: ids and the links between entries (a tool
 * result's call, an edit's target, a compaction's cut), types, roles and times. Masking one would change the tree
 * or the pairing, so they stay as they are.
 */
const STRUCTURE_KEYS: ReadonlySet<string> = new Set([
  "id",
  "parentId",
  "targetId",
  "firstKeptEntryId",
  "fromId",
  "toolCallId",
  "type",
  "role",
  "timestamp",
  "version",
  "parentSession",
]);

/** Counts of masks made, per rule. */
export type RedactCounts = Map<string, number>;

/** Masks every value and pattern match in one string; counts each mask. */
export function redactString(s: string, rules: RedactRules, counts: RedactCounts, order: readonly string[]): string {
  let out = s;
  for (const v of order) {
    if (!out.includes(v)) continue;
    const rule = rules.values.get(v) as string;
    const parts = out.split(v);
    counts.set(rule, (counts.get(rule) ?? 0) + parts.length - 1);
    out = parts.join(`[REDACTED:${rule}]`);
  }
  for (const p of rules.patterns) {
    out = out.replace(new RegExp(p.source, p.flags.includes("g") ? p.flags : `${p.flags}g`), (m) => {
      if (m.length === 0) return m;
      counts.set(PATTERN_RULE, (counts.get(PATTERN_RULE) ?? 0) + 1);
      return `[REDACTED:${PATTERN_RULE}]`;
    });
  }
  return out;
}

/** The values to look for, longest first: a value holding another is masked whole. */
export function redactOrder(rules: RedactRules): string[] {
  return [...rules.values.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Masks, in place, every string of a parsed entry (values and object keys) but those of the structure keys.
 * Iterative: content nests deeper than a recursive walk's stack goes. Returns whether anything changed.
 */
export function redactValue(value: Record<string, unknown>, rules: RedactRules, counts: RedactCounts, order: readonly string[]): boolean {
  let changed = false;
  const stack: unknown[] = [value];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === "string") {
          const r = redactString(x, rules, counts, order);
          if (r !== x) {
            v[i] = r;
            changed = true;
          }
        } else if (x !== null && typeof x === "object") stack.push(x);
      }
      continue;
    }
    if (!isObject(v)) continue;
    for (const k of Object.keys(v)) {
      const x = v[k];
      const key = STRUCTURE_KEYS.has(k) ? k : redactString(k, rules, counts, order);
      if (key !== k) {
        delete v[k];
        v[key] = x;
        changed = true;
      }
      if (typeof x === "string" && !STRUCTURE_KEYS.has(k)) {
        const r = redactString(x, rules, counts, order);
        if (r !== x) {
          v[key] = r;
          changed = true;
        }
      } else if (x !== null && typeof x === "object") stack.push(x);
    }
  }
  return changed;
}

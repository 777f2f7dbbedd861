import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintCoreConfig, SecretLintRuleCreator } from "@secretlint/types";
import { entryStrings } from "../ops/secret-places.js";

/** A `--pattern NAME=REGEX`: a rule of the user's, run by the same engine as the preset's. */
export interface SecretPattern {
  name: string;
  regex: RegExp;
}

export interface SecretScanOptions {
  patterns?: readonly SecretPattern[];
  /** Values matching any of these are known test values, not findings (`--allow`). */
  allow?: readonly RegExp[];
}

/**
 * One value a rule matched: in which scanned value (`owner`), which string of it (its ordinal in entryStrings's
 * walk: stringAt gives its place), and where in that string.
 */
export interface SecretHit {
  owner: number;
  ordinal: number;
  text: string;
  /** Offsets in `text` (UTF-16 code units). */
  start: number;
  end: number;
  rule: string;
  value: string;
}

const PRESET_PREFIX = "@secretlint/secretlint-rule-";
const PATTERN_PREFIX = "pisess-pattern/";
/**
 * The preset's comment filter is left out: it honours `secretlint-disable` comments in the scanned text, and in a
 * session that text is whatever a tool printed or a user pasted — a session must not be able to hide its secrets.
 */
const FILTER_RULE = `${PRESET_PREFIX}filter-comments`;
/** The AWS rule finds access key ids (AKIA…) only when asked: in a session an id next to its secret is half a key. */
const AWS_RULE = `${PRESET_PREFIX}aws`;

/** The short ids of the preset's rules (aws, github, privatekey, …): what `--pattern` names may not reuse. */
export const PRESET_RULE_IDS: readonly string[] = presetRules
  .map((r) => r.meta.id)
  .filter((id) => id !== FILTER_RULE)
  .map((id) => id.slice(PRESET_PREFIX.length));

/** A --pattern as a secretlint rule: the engine runs it beside the preset's, on the same sources. */
function patternRule(p: SecretPattern): SecretLintRuleCreator {
  const flags = p.regex.flags.includes("g") ? p.regex.flags : `${p.regex.flags}g`;
  return {
    messages: { FOUND: { en: (a: { name: string }) => `pattern ${a.name} matched` } },
    meta: { id: `${PATTERN_PREFIX}${p.name}`, type: "scanner", recommended: false, supportedContentTypes: ["text"] },
    create(context) {
      const t = context.createTranslator({ FOUND: { en: (a: { name: string }) => `pattern ${a.name} matched` } });
      return {
        file(source) {
          for (const m of source.content.matchAll(new RegExp(p.regex.source, flags))) {
            if (m[0].length === 0) continue;
            context.report({ message: t("FOUND", { name: p.name }), range: [m.index, m.index + m[0].length] });
          }
        },
      };
    },
  };
}

function shortRule(ruleId: string): string {
  if (ruleId.startsWith(PATTERN_PREFIX)) return ruleId.slice(PATTERN_PREFIX.length);
  return ruleId.startsWith(PRESET_PREFIX) ? ruleId.slice(PRESET_PREFIX.length) : ruleId;
}

/** Characters of strings batched into one secretlint source: the engine's set-up per call costs as much as ~20 KB. */
const BATCH_CHARS = 1 << 20;
/** No preset rule matches fewer characters (basic auth in a URL, the shortest, takes 15). */
const PRESET_MIN_CHARS = 8;

interface Piece {
  owner: number;
  ordinal: number;
  text: string;
  /** Offset of the string in the batch's text. */
  start: number;
}

/**
 * The secrets scan: every string of every value added, batched into secretlint sources (the strings of many
 * entries, one per line), each match mapped back to its string. A match that runs across two strings (a rule's
 * pattern spanning the line between them) is not one: those strings are linted again one by one.
 */
export class SecretScanner {
  private readonly config: SecretLintCoreConfig;
  private readonly allow: readonly RegExp[];
  private readonly minChars: number;
  private pieces: Piece[] = [];
  private parts: string[] = [];
  private chars = 0;
  private readonly pending: Promise<void>[] = [];
  private readonly hits: SecretHit[] = [];

  constructor(opts: SecretScanOptions = {}) {
    silenceProfiler();
    const rules = presetRules
      .filter((r) => r.meta.id !== FILTER_RULE)
      .map((rule) => ({ id: rule.meta.id, rule, ...(rule.meta.id === AWS_RULE ? { options: { enableIDScanRule: true } } : {}) }));
    const own = (opts.patterns ?? []).map((p) => ({ id: `${PATTERN_PREFIX}${p.name}`, rule: patternRule(p) }));
    this.config = { rules: [...rules, ...own] };
    this.allow = (opts.allow ?? []).map((r) => new RegExp(r.source, r.flags.replace(/[gy]/g, "")));
    this.minChars = own.length > 0 ? 1 : PRESET_MIN_CHARS;
  }

  /** Scans every string of `value` (an entry, a header); `owner` comes back on its hits. */
  add(owner: number, value: unknown): void {
    entryStrings(value, this.minChars, (ordinal, text) => {
      this.pieces.push({ owner, ordinal, text, start: this.chars });
      this.parts.push(text);
      this.chars += text.length + 1;
    });
    if (this.chars >= BATCH_CHARS) this.flush();
  }

  /** Every hit, in the order the values were added. */
  async finish(): Promise<SecretHit[]> {
    this.flush();
    await Promise.all(this.pending);
    return this.hits.sort((a, b) => a.owner - b.owner || comparePlace(a, b));
  }

  private flush(): void {
    if (this.pieces.length === 0) return;
    const pieces = this.pieces;
    const text = this.parts.join("\n");
    this.pieces = [];
    this.parts = [];
    this.chars = 0;
    this.pending.push(this.lint(pieces, text));
  }

  private async lint(pieces: Piece[], text: string): Promise<void> {
    const result = await lintSource({
      source: { filePath: "session", content: text, contentType: "text" },
      options: { config: this.config, noPhysicFilePath: true },
    });
    const again = new Set<Piece>();
    for (const m of result.messages) {
      const [start, end] = m.range;
      const piece = pieceAt(pieces, start);
      if (piece === undefined) continue;
      const from = start - piece.start;
      if (end - piece.start > piece.text.length) {
        for (let i = pieces.indexOf(piece); i < pieces.length && (pieces[i] as Piece).start < end; i++) again.add(pieces[i] as Piece);
        continue;
      }
      this.keep(piece, from, end - piece.start, shortRule(m.ruleId), false);
    }
    for (const piece of again) {
      const alone = await lintSource({
        source: { filePath: "session", content: piece.text, contentType: "text" },
        options: { config: this.config, noPhysicFilePath: true },
      });
      for (const m of alone.messages) this.keep(piece, m.range[0], m.range[1], shortRule(m.ruleId), true);
    }
  }

  /** `again`: the piece was linted alone after a match across strings; what the batch found in it is there already. */
  private keep(piece: Piece, start: number, end: number, rule: string, again: boolean): void {
    const value = piece.text.slice(start, end);
    if (this.allow.some((r) => r.test(value))) return;
    const same = (h: SecretHit) =>
      h.owner === piece.owner && h.ordinal === piece.ordinal && h.start === start && h.end === end && h.rule === rule;
    if (again && this.hits.some(same)) return;
    this.hits.push({ owner: piece.owner, ordinal: piece.ordinal, text: piece.text, start, end, rule, value });
  }
}

/** The piece whose text holds offset `at` of the batch (binary search on the starts). */
function pieceAt(pieces: readonly Piece[], at: number): Piece | undefined {
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((pieces[mid] as Piece).start <= at) lo = mid;
    else hi = mid - 1;
  }
  const p = pieces[lo];
  return p !== undefined && p.start <= at && at <= p.start + p.text.length ? p : undefined;
}

/**
 * secretlint's profiler puts two performance marks per rule and source in Node's timeline, keeps every one it sees
 * and searches them all at each: over a long scan (a thousand sources of a 1 GB file, 50 marks each) that is
 * quadratic and never freed. pisess reads no profile, so it makes no marks.
 */
function silenceProfiler(): void {
  (secretLintProfiler as unknown as { mark: () => void }).mark = () => {};
}

/** Within one value: in walk order, then by offset and rule (what order the engine reported in does not matter). */
function comparePlace(a: SecretHit, b: SecretHit): number {
  return a.ordinal - b.ordinal || a.start - b.start || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}

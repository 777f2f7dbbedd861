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
  /**
   * Lints batches in another thread (reports/secrets-pool.ts), built with the same `patterns`; without one, or when
   * it has no room, the scanner lints them itself.
   */
  remote?: BatchLinter;
}

/** What secretlint reported in a source: the range and the rule's full id. */
export interface LintMessage {
  start: number;
  end: number;
  ruleId: string;
}

/** A linter of batches elsewhere: `offer` takes a batch, or answers undefined when it is full (the scanner lints it). */
export interface BatchLinter {
  offer(text: string): Promise<LintMessage[]> | undefined;
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
/**
 * The GCP rule looks only at a source named *.json (a service-account key file: JSON.parse of the whole source, with
 * `private_key_id` and a `private_key` holding a PEM header) or *.p12 (which it reads from disk by the source's path).
 * A batch is neither; a string that is a JSON object is linted alone as a .json source by this rule only
 * (mayBeServiceAccount). A .p12 key is a binary file read by path, never a session's string: it cannot be found here.
 */
const GCP_RULE = `${PRESET_PREFIX}gcp`;

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

/** The engine's configuration for the preset (comment filter left out, AWS ids on) and the user's patterns. */
export function secretlintConfig(patterns: readonly SecretPattern[] = []): SecretLintCoreConfig {
  silenceProfiler();
  const rules = presetRules
    .filter((r) => r.meta.id !== FILTER_RULE && r.meta.id !== GCP_RULE)
    .map((rule) => ({ id: rule.meta.id, rule, ...(rule.meta.id === AWS_RULE ? { options: { enableIDScanRule: true } } : {}) }));
  const own = patterns.map((p) => ({ id: `${PATTERN_PREFIX}${p.name}`, rule: patternRule(p) }));
  return { rules: [...rules, ...own] };
}

/** Lints one text as a source; the engine's work is done before this returns (its rules are synchronous). */
export async function lintText(config: SecretLintCoreConfig, content: string, ext = ""): Promise<LintMessage[]> {
  const result = await lintSource({
    source: { filePath: `session${ext}`, content, contentType: "text", ext },
    options: { config, noPhysicFilePath: true },
  });
  return result.messages.map((m) => ({ start: m.range[0], end: m.range[1], ruleId: m.ruleId }));
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
 * Whether the GCP rule could report `text` as a .json source. It needs JSON.parse(text) to give an object (after a
 * BOM, which the engine strips, and JSON's whitespace, the first character is "{") with a key `private_key_id`, and
 * a `private_key` matching `-----BEGIN…PRIVATE KEY`: in JSON text those are written as themselves or with \u
 * escapes (JSON has no other escape for a letter, "_" or a space).
 */
export function mayBeServiceAccount(text: string): boolean {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  if (text.charCodeAt(i) !== 0x7b) return false;
  return text.includes("\\u") || (text.includes("private_key_id") && text.includes("PRIVATE KEY"));
}

/**
 * The secrets scan: every string of every value added, batched into secretlint sources (the strings of many
 * entries, one per line), each match mapped back to its string. A match that runs across two strings (a rule's
 * pattern spanning the line between them) is not one: those strings are linted again one by one. A full batch
 * goes to the `remote` linter (another thread) while this one goes on reading, or is linted here when it is full.
 */
export class SecretScanner {
  private readonly config: SecretLintCoreConfig;
  private readonly gcp: SecretLintCoreConfig;
  private readonly allow: readonly RegExp[];
  private readonly minChars: number;
  private readonly remote: BatchLinter | undefined;
  /** Whether a batch went to `remote`: the last, partial batch then goes there too. */
  private offered = false;
  private pieces: Piece[] = [];
  private parts: string[] = [];
  private chars = 0;
  private readonly pending: Promise<void>[] = [];
  private readonly hits: SecretHit[] = [];

  constructor(opts: SecretScanOptions = {}) {
    const patterns = opts.patterns ?? [];
    this.config = secretlintConfig(patterns);
    const gcp = presetRules.find((r) => r.meta.id === GCP_RULE);
    this.gcp = { rules: gcp === undefined ? [] : [{ id: GCP_RULE, rule: gcp }] };
    this.allow = (opts.allow ?? []).map((r) => new RegExp(r.source, r.flags.replace(/[gy]/g, "")));
    this.minChars = patterns.length > 0 ? 1 : PRESET_MIN_CHARS;
    this.remote = opts.remote;
  }

  /** Scans every string of `value` (an entry, a header); `owner` comes back on its hits. */
  add(owner: number, value: unknown): void {
    entryStrings(value, this.minChars, (ordinal, text) => {
      const piece = { owner, ordinal, text, start: this.chars };
      this.pieces.push(piece);
      this.parts.push(text);
      this.chars += text.length + 1;
      if (mayBeServiceAccount(text)) this.pending.push(this.lintAlone(piece, this.gcp, ".json"));
    });
    if (this.chars >= BATCH_CHARS) this.flush(true);
  }

  /** Every hit, in the order the values were added. */
  async finish(): Promise<SecretHit[]> {
    this.flush(this.offered);
    await Promise.all(this.pending);
    return this.hits.sort((a, b) => a.owner - b.owner || comparePlace(a, b));
  }

  /** `full`: a whole batch (worth another thread); the last of a small file is linted here. */
  private flush(full: boolean): void {
    if (this.pieces.length === 0) return;
    const pieces = this.pieces;
    const text = this.parts.join("\n");
    this.pieces = [];
    this.parts = [];
    this.chars = 0;
    const away = full ? this.remote?.offer(text) : undefined;
    if (away !== undefined) this.offered = true;
    const done = (away ?? lintText(this.config, text)).then((messages) => this.mapBack(pieces, messages));
    // finish awaits it; until then (or when a failed load means finish is never called) its failure is not unhandled.
    done.catch(() => {});
    this.pending.push(done);
  }

  private async mapBack(pieces: Piece[], messages: readonly LintMessage[]): Promise<void> {
    const again = new Set<Piece>();
    for (const m of messages) {
      const piece = pieceAt(pieces, m.start);
      if (piece === undefined) continue;
      if (m.end - piece.start > piece.text.length) {
        for (let i = pieces.indexOf(piece); i < pieces.length && (pieces[i] as Piece).start < m.end; i++) again.add(pieces[i] as Piece);
        continue;
      }
      this.keep(piece, m.start - piece.start, m.end - piece.start, shortRule(m.ruleId), false);
    }
    for (const piece of again) await this.lintAlone(piece, this.config, "");
  }

  /** Lints one string as a source of its own (after a match across strings; a .json source for the GCP rule). */
  private async lintAlone(piece: Piece, config: SecretLintCoreConfig, ext: string): Promise<void> {
    for (const m of await lintText(config, piece.text, ext)) this.keep(piece, m.start, m.end, shortRule(m.ruleId), ext === "");
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

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

/** A match in a batch: which of its strings (`piece`, an index into the batch's strings), where in it, which rule. */
export interface BatchHit {
  piece: number;
  start: number;
  end: number;
  ruleId: string;
  /** The string (a hit needs it; the batch's other strings need not come back from another thread). */
  text: string;
}

/**
 * A linter of batches elsewhere: `offer` takes a batch (its strings, for lintBatch), or answers undefined when it
 * is full (the scanner then lints it).
 */
export interface BatchLinter {
  offer(parts: readonly string[]): Promise<BatchHit[]> | undefined;
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
/**
 * The npm rule finds npm_ tokens in any source, but `_authToken=` values only in a source named .npmrc and GitHub
 * `x-oauth-basic` URLs only in a package.json: a batch is neither. A string holding one of those markers (an agent
 * that printed ~/.npmrc or a package.json) is linted alone under that name by this rule only (npmFileNames); its
 * npm_ tokens are then found by the batch too, and kept once (finish).
 */
const NPM_RULE = `${PRESET_PREFIX}npm`;

/** The file names (and extensions) under which the npm rule reads more of `text` than in a batch. */
export function npmFileNames(text: string): { name: string; ext: string }[] {
  const out: { name: string; ext: string }[] = [];
  if (text.includes("_authToken=")) out.push({ name: "session/.npmrc", ext: ".npmrc" });
  if (text.includes(":x-oauth-basic@github.com/")) out.push({ name: "session/package.json", ext: ".json" });
  return out;
}

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

/**
 * The engine's configurations of a scan: `all`, every rule of the preset but the comment filter, GCP (see GCP_RULE)
 * and AWS, and the user's patterns; `aws`, the AWS rule (access key ids on), run only on the strings that hold one
 * of its words (AWS_WORDS).
 */
export interface ScanConfig {
  all: SecretLintCoreConfig;
  aws: SecretLintCoreConfig;
}

/**
 * The words one of which each of the AWS rule's patterns holds (access key id: A3T… or AKIA, AGPA, …; secret access
 * key: SECRET, secret or Secret; account id: ACCOUNT, account or Account): a string without any has no AWS match.
 * The account id pattern, which begins with optional groups, tries every position of every string; it was a fifth
 * of the engine's time on a session's strings. These words are the rule's (preset 12.0.0, like the proofs beside
 * CLEAN_CHARS and mayBeServiceAccount): test/unit/secrets.test.ts fails when the preset's version changes.
 */
const AWS_WORDS = /A3T|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|SECRET|[Ss]ecret|ACCOUNT|[Aa]ccount/;

export function secretlintConfig(patterns: readonly SecretPattern[] = []): ScanConfig {
  silenceProfiler();
  const preset = presetRules.filter((r) => r.meta.id !== FILTER_RULE && r.meta.id !== GCP_RULE && r.meta.id !== AWS_RULE);
  const own = patterns.map((p) => ({ id: `${PATTERN_PREFIX}${p.name}`, rule: patternRule(p) }));
  const aws = presetRules
    .filter((r) => r.meta.id === AWS_RULE)
    .map((rule) => ({ id: rule.meta.id, rule, options: { enableIDScanRule: true } }));
  return { all: { rules: [...preset.map((rule) => ({ id: rule.meta.id, rule })), ...own] }, aws: { rules: aws } };
}

/** Lints one text as a source; the engine's work is done before this returns (its rules are synchronous). */
export async function lintText(config: SecretLintCoreConfig, content: string, ext = "", name = `session${ext}`): Promise<LintMessage[]> {
  const result = await lintSource({
    source: { filePath: name, content, contentType: "text", ext },
    options: { config, noPhysicFilePath: true },
  });
  return result.messages.map((m) => {
    const [start, end] = secretRange(content, m.messageId, m.range, m.data);
    return { start, end, ruleId: m.ruleId };
  });
}

/**
 * The messages whose range is not their secret's, and the data field holding the secret (preset 12.0.0). The AWS
 * rule reports a secret access key with the range of its whole match's start and the key's length
 * (`AWS_SECRET_ACCESS_KEY="wJal…` cut at 40 characters), and the npm rule an .npmrc `_authToken=` value or a
 * package.json `x-oauth-basic` user the same way: a redacted copy would mask the name before the secret and leave
 * the secret's end.
 */
const SECRET_FIELD: Readonly<Record<string, string>> = {
  AWSSecretAccessKey: "KEY",
  Npmrc_authToken: "TOKEN",
  PackageJSON_xOauthToken: "TOKEN",
};

/**
 * Where the secret of a message is: for SECRET_FIELD's messages, the secret the rule matched (in its data), which
 * begins within the match after the name (at most ~40 characters of name, quotes and spaces; 300 bounds the search).
 */
function secretRange(content: string, messageId: string | undefined, range: readonly [number, number], data: unknown): [number, number] {
  const field = messageId === undefined ? undefined : SECRET_FIELD[messageId];
  const key = field !== undefined && isRecord(data) ? data[field] : undefined;
  if (typeof key !== "string" || key.length === 0) return [range[0], range[1]];
  const at = content.indexOf(key, range[0]);
  return at >= 0 && at <= range[0] + 300 ? [at, at + key.length] : [range[0], range[1]];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

/** Lints the strings of a batch (lintJoined) with every rule; the AWS rule sees only those that hold its words. */
export async function lintBatch(config: ScanConfig, parts: readonly string[]): Promise<BatchHit[]> {
  const hits = await lintJoined(config.all, parts);
  const worded: number[] = [];
  for (let i = 0; i < parts.length; i++) if (AWS_WORDS.test(parts[i] as string)) worded.push(i);
  if (worded.length === 0) return hits;
  const aws = await lintJoined(
    config.aws,
    worded.map((i) => parts[i] as string),
  );
  for (const h of aws) hits.push({ ...h, piece: worded[h.piece] as number });
  return hits;
}

/**
 * Lints strings as one source, one string per line, and maps each match back to its string. A match that runs
 * across two strings (a rule's pattern spanning the line between them) is not one: those strings are linted again
 * one by one. Run by the scanning thread or a worker (reports/secrets-worker.ts), the same way.
 */
async function lintJoined(config: SecretLintCoreConfig, parts: readonly string[]): Promise<BatchHit[]> {
  const starts = new Array<number>(parts.length);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    starts[i] = at;
    at += (parts[i] as string).length + 1;
  }
  const hits: BatchHit[] = [];
  const again = new Set<number>();
  for (const m of await lintText(config, parts.join("\n"))) {
    const i = pieceAt(starts, parts, m.start);
    if (i < 0) continue;
    const from = starts[i] as number;
    const text = parts[i] as string;
    if (m.end - from > text.length) {
      for (let j = i; j < parts.length && (starts[j] as number) < m.end; j++) again.add(j);
      continue;
    }
    hits.push({ piece: i, start: m.start - from, end: m.end - from, ruleId: m.ruleId, text });
  }
  for (const i of again) {
    const text = parts[i] as string;
    for (const m of await lintText(config, text)) {
      // What the batch found in it is there already.
      const same = (h: BatchHit) => h.piece === i && h.start === m.start && h.end === m.end && h.ruleId === m.ruleId;
      if (!hits.some(same)) hits.push({ piece: i, start: m.start, end: m.end, ruleId: m.ruleId, text });
    }
  }
  return hits;
}

/** The string whose text holds offset `at` of the batch (binary search on the starts), or -1. */
function pieceAt(starts: readonly number[], parts: readonly string[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= at) lo = mid;
    else hi = mid - 1;
  }
  const start = starts[lo];
  return start !== undefined && start <= at && at <= start + (parts[lo] as string).length ? lo : -1;
}

function shortRule(ruleId: string): string {
  if (ruleId.startsWith(PATTERN_PREFIX)) return ruleId.slice(PATTERN_PREFIX.length);
  return ruleId.startsWith(PRESET_PREFIX) ? ruleId.slice(PRESET_PREFIX.length) : ruleId;
}

/** Characters of strings batched into one secretlint source: the engine's set-up per call costs as much as ~20 KB. */
const BATCH_CHARS = 1 << 20;
/** No preset rule matches fewer characters (basic auth in a URL, the shortest, takes 15). */
const PRESET_MIN_CHARS = 8;
/**
 * Strings this short that a batch found nothing in are remembered (up to CLEAN_MAX of them) and not batched again:
 * most strings of a session are the same few keys and values (timestamp, parentId, toolCallId, assistant, a model's
 * name: 90% of the strings of a generated session, 18% of its characters), and each is a line of the engine's line
 * index. Why a string found clean once is clean everywhere: see `clean` below.
 */
const CLEAN_CHARS = 64;
const CLEAN_MAX = 1 << 14;

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

/** A file a string is linted as (SecretScanner.filesOf). */
interface AsFile {
  name: string;
  ext: string;
  config: SecretLintCoreConfig;
}

/** The engine's configuration of one preset rule alone. */
function presetRuleAlone(id: string): SecretLintCoreConfig {
  const rule = presetRules.find((r) => r.meta.id === id);
  return { rules: rule === undefined ? [] : [{ id, rule }] };
}

/**
 * The secrets scan: every string of every value added, batched into secretlint sources (the strings of many
 * entries, lintBatch), each hit given back its value and string. A full batch goes to the `remote` linter (another
 * thread) while this one goes on reading; what stays here of it is the owner and ordinal of each string.
 */
export class SecretScanner {
  private readonly config: ScanConfig;
  private readonly gcp: SecretLintCoreConfig;
  private readonly npm: SecretLintCoreConfig;
  private readonly allow: readonly RegExp[];
  private readonly minChars: number;
  private readonly remote: BatchLinter | undefined;
  /** Whether a batch went to `remote`: the last, partial batch then goes there too. */
  private offered = false;
  /** The batch being filled: per string, its owner and ordinal (SecretHit's), and the string. */
  private owners: number[] = [];
  private ordinals: number[] = [];
  private parts: string[] = [];
  /** Which of the batch's strings are short enough to be remembered as clean. */
  private short: number[] = [];
  private chars = 0;
  /**
   * Short strings a batch found nothing in. Each preset rule's match is a function of the matched text and of at
   * most one character on either side (their lookarounds: (?<!\p{L}), (?![A-Za-z0-9_]), \b), and a string's
   * neighbours are always a line break or the source's edge, which those read alike: so a string in which a batch
   * found no match has none in any batch (a match that ran into a neighbour had the string linted alone, and
   * found nothing there either, or it would be a hit). Not with --pattern: a user's regex may read further.
   */
  private readonly clean: Set<string> | undefined;
  private readonly pending: Promise<void>[] = [];
  private readonly hits: SecretHit[] = [];

  constructor(opts: SecretScanOptions = {}) {
    const patterns = opts.patterns ?? [];
    this.config = secretlintConfig(patterns);
    this.gcp = presetRuleAlone(GCP_RULE);
    this.npm = presetRuleAlone(NPM_RULE);
    this.allow = (opts.allow ?? []).map((r) => new RegExp(r.source, r.flags.replace(/[gy]/g, "")));
    this.minChars = patterns.length > 0 ? 1 : PRESET_MIN_CHARS;
    this.clean = patterns.length > 0 ? undefined : new Set();
    this.remote = opts.remote;
  }

  /** Scans every string of `value` (an entry, a header); `owner` comes back on its hits. */
  add(owner: number, value: unknown): void {
    entryStrings(value, this.minChars, (ordinal, text) => {
      for (const file of this.filesOf(text)) this.watch(this.lintAsFile(owner, ordinal, text, file));
      if (text.length <= CLEAN_CHARS) {
        if (this.clean?.has(text)) return;
        this.short.push(this.parts.length);
      }
      this.owners.push(owner);
      this.ordinals.push(ordinal);
      this.parts.push(text);
      this.chars += text.length + 1;
    });
    if (this.chars >= BATCH_CHARS) this.flush(true);
  }

  /** Every hit, in the order the values were added. */
  async finish(): Promise<SecretHit[]> {
    this.flush(this.offered);
    await Promise.all(this.pending);
    this.hits.sort((a, b) => a.owner - b.owner || comparePlace(a, b));
    // A string linted alone as a file as well as in its batch gives some hits twice (npmFileNames): kept once.
    return this.hits.filter((h, i) => {
      const p = this.hits[i - 1];
      return !(p && p.owner === h.owner && p.ordinal === h.ordinal && p.start === h.start && p.end === h.end && p.rule === h.rule);
    });
  }

  /** `full`: a whole batch (worth another thread); the last of a small file is linted here. */
  private flush(full: boolean): void {
    if (this.parts.length === 0) return;
    const { owners, ordinals, parts } = this;
    const short = this.short.map((i) => parts[i] as string);
    const shortAt = this.short;
    this.owners = [];
    this.ordinals = [];
    this.parts = [];
    this.short = [];
    this.chars = 0;
    const away = full ? this.remote?.offer(parts) : undefined;
    if (away !== undefined) this.offered = true;
    this.watch(
      (away ?? lintBatch(this.config, parts)).then((hits) => {
        for (const h of hits) this.keep(owners[h.piece] as number, ordinals[h.piece] as number, h.text, h.start, h.end, h.ruleId);
        this.remember(short, shortAt, hits);
      }),
    );
  }

  /** The batch's short strings without a hit, as clean (while there is room). */
  private remember(short: readonly string[], at: readonly number[], hits: readonly BatchHit[]): void {
    const clean = this.clean;
    if (clean === undefined) return;
    const hit = new Set(hits.map((h) => h.piece));
    for (let i = 0; i < short.length && clean.size < CLEAN_MAX; i++) if (!hit.has(at[i] as number)) clean.add(short[i] as string);
  }

  /** finish awaits it; until then (or when a failed load means finish is never called) its failure is not unhandled. */
  private watch(p: Promise<void>): void {
    p.catch(() => {});
    this.pending.push(p);
  }

  /**
   * The files a string may be whose rules read them only by their name: a service-account key file (.json, the GCP
   * rule) and an .npmrc or a package.json (the npm rule).
   */
  private filesOf(text: string): AsFile[] {
    const out: AsFile[] = npmFileNames(text).map((f) => ({ ...f, config: this.npm }));
    if (mayBeServiceAccount(text)) out.push({ name: "session.json", ext: ".json", config: this.gcp });
    return out;
  }

  /** Lints a string as the file it may be, by the rule that reads such a file alone. */
  private async lintAsFile(owner: number, ordinal: number, text: string, file: AsFile): Promise<void> {
    for (const m of await lintText(file.config, text, file.ext, file.name)) this.keep(owner, ordinal, text, m.start, m.end, m.ruleId);
  }

  private keep(owner: number, ordinal: number, text: string, start: number, end: number, ruleId: string): void {
    const value = text.slice(start, end);
    if (this.allow.some((r) => r.test(value))) return;
    this.hits.push({ owner, ordinal, text, start, end, rule: shortRule(ruleId), value });
  }
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
  return a.ordinal - b.ordinal || a.start - b.start || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) || a.end - b.end;
}

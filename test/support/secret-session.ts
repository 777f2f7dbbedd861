/**
 * A session with secret-shaped values planted in every kind of place, and what `pisess secrets` must say of each.
 * The values are made here, from a seeded generator, in the formats of secretlint's preset rules: none is a real
 * credential, and the prefixes are split so that this file itself holds no value a scanner would report.
 */

import { rng } from "./fuzz/rng.js";
import { jsonl, turnUsage } from "./small-session.js";

// mulberry32 (the fuzz harness's): the same values on every run.
const next = rng(30);
function chars(set: string, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += set[Math.floor(next() * set.length)];
  return s;
}
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const B64 = `${ALNUM}+/`;
const BEGIN_KEY = ["-----BEGIN ", "PRIVATE KEY-----"].join("");
const END_KEY = ["-----END ", "PRIVATE KEY-----"].join("");

/**
 * A GCP service-account key file as `read` prints it: the gcp rule reports a source that parses as JSON with
 * `private_key_id` and a `private_key` holding a PEM header, and it only looks at a source named *.json; pisess
 * lints such a string alone as one (check/secrets.ts, mayBeServiceAccount). Its value is the whole text. The key
 * inside is a PEM block as JSON writes it (\n escapes), which the privatekey rule reports as well.
 */
function gcpServiceAccount(): string {
  // "MI": the ASN.1 sequence every PKCS#8 key starts with, which privatekey checks for.
  const lines = [`MI${chars(B64, 62)}`, chars(B64, 64), chars(B64, 64), `${chars(B64, 40)}==`];
  const pem = `${BEGIN_KEY}\n${lines.join("\n")}\n${END_KEY}\n`;
  const project = `pisess-test-${chars(DIGITS, 6)}`;
  const account = {
    type: "service_account",
    project_id: project,
    private_key_id: chars(HEX, 40),
    private_key: pem,
    client_email: `scanner@${project}.iam.gserviceaccount.com`,
    client_id: chars(DIGITS, 21),
    auth_uri: "https://accounts.google.com/o/oauth2/auth",
    token_uri: "https://oauth2.googleapis.com/token",
  };
  return `${JSON.stringify(account, null, 2)}\n`;
}

/**
 * A 1Password service-account token: "ops_" and the base64 of a JSON object (the rule decodes it and wants an
 * object), "ey" first and "fQ" last: the object's byte length is padded to leave one byte, "}", in the last group.
 */
function onePasswordToken(): string {
  const fields = {
    email: `${chars(LOWER + DIGITS, 13)}@1passwordserviceaccounts.lcl`,
    muk: { alg: "A256GCM", ext: true, k: chars(`${ALNUM}_-`, 43), key_ops: ["encrypt", "decrypt"], kty: "oct", kid: "mp" },
    secretKey: `A3-${chars(UPPER + DIGITS, 6)}-${chars(UPPER + DIGITS, 6)}-${chars(UPPER + DIGITS, 5)}`,
    srpX: chars(HEX, 64),
    signInAddress: "my.1password.com",
    pad: "",
  };
  while (Buffer.byteLength(JSON.stringify(fields)) % 3 !== 1) fields.pad += "x";
  return ["op", "s_", Buffer.from(JSON.stringify(fields)).toString("base64")].join("");
}

/** One value per preset rule the session plants, keyed by the rule's short id. */
export const VALUES = {
  aws: ["AK", "IA", chars(UPPER + DIGITS, 16)].join(""),
  openai: ["sk", "-", chars(ALNUM, 20), "T3Blbk", "FJ", chars(ALNUM, 20)].join(""),
  anthropic: ["sk", "-ant-", "api03-", chars(`${ALNUM}_-`, 93), "AA"].join(""),
  groq: ["gs", "k_", chars(ALNUM, 52)].join(""),
  gitlab: ["gl", "pat-", chars(ALNUM, 20)].join(""),
  github: ["gh", "p_", chars(ALNUM, 36)].join(""),
  slack: ["xo", "xb-", chars(DIGITS, 12), "-", chars(DIGITS, 13), "-", chars(ALNUM, 24)].join(""),
  huggingface: ["h", "f_", chars(UPPER + LOWER, 34)].join(""),
  linear: ["lin", "_api_", chars(ALNUM, 40)].join(""),
  notion: ["nt", "n_", chars(DIGITS, 11), chars(ALNUM, 35)].join(""),
  sendgrid: ["S", "G.", chars(ALNUM, 22), ".", chars(ALNUM, 43)].join(""),
  shopify: ["shp", "at_", chars(HEX, 32)].join(""),
  figma: ["fi", "gd_", chars(`${ALNUM}_-`, 40)].join(""),
  vercel: ["vc", "p_", chars(ALNUM, 30)].join(""),
  databricks: ["da", "pi", chars(HEX, 32)].join(""),
  docker: ["dckr", "_pat_", chars(`${ALNUM}_-`, 27)].join(""),
  npm: ["np", "m_", chars(ALNUM, 36)].join(""),
  privatekey: [
    "-----BEGIN RSA ",
    "PRIVATE KEY-----\n",
    "MI",
    chars(B64, 62),
    "\n",
    chars(B64, 64),
    "\n",
    chars(B64, 40),
    "==\n-----END RSA ",
    "PRIVATE KEY-----",
  ].join(""),
  "hashicorp-vault": ["hv", "s.", chars(`${ALNUM}_-`, 95)].join(""),
  "database-connection-string": ["postgres", "://app:", chars(ALNUM, 16), "@db.internal:5432/app"].join(""),
  grafana: ["gl", "sa_", chars(ALNUM, 32), "_", chars(HEX, 8)].join(""),
  basicauth: ["https", "://deploy:", chars(ALNUM, 14), "@git.internal.net"].join(""),
  gcp: gcpServiceAccount(),
  "1password": onePasswordToken(),
} as const;

export type PlantedRule = keyof typeof VALUES;

/**
 * The AWS rule's two other formats (with access key ids on, as pisess runs it): a secret access key and an account
 * id, each after its variable's name; the findings are the key itself and the whole assignment (the rule's ranges).
 */
// Its last character a letter or digit: the rule wants a word boundary after the key.
export const AWS_SECRET = chars(`${ALNUM}/+`, 39) + chars(ALNUM, 1);
export const AWS_ACCOUNT = `aws_account_id = ${chars(DIGITS, 4)}-${chars(DIGITS, 4)}-${chars(DIGITS, 4)}`;

/** The service account's key as its file's text holds it (backslash-n escapes), header to footer: privatekey's match. */
export const GCP_KEY = (() => {
  const escaped = JSON.stringify((JSON.parse(VALUES.gcp) as { private_key: string }).private_key).slice(1, -1);
  return escaped.slice(0, escaped.length - "\\n".length);
})();

/** Where a value was planted and what the scan must report for it (lines of the assistant turns for "sent"). */
export interface Planted {
  rule: PlantedRule;
  line: number;
  pointer: string;
  place: string;
  from?: string;
  /** Lines of the assistant entries whose request carried it (worked out by hand; the equivalence test asks pi). */
  sentIn: number[];
  /** Lines of later summaries that repeat it. */
  repeatedIn?: number[];
  /** The value found, when it is not VALUES[rule] (a value found inside another rule's). */
  value?: string;
}

const T0 = Date.parse("2026-11-30T10:00:00.000Z");
const usage = turnUsage({ total: 0 });

/** The session's lines (header first) and what was planted where. */
export function secretSession(): { text: string; planted: Planted[] } {
  const V = VALUES;
  let n = 0;
  const at = () => new Date(T0 + ++n * 1000).toISOString();
  const entry = (id: string, parentId: string | null, type: string, fields: Record<string, unknown>) => ({
    type,
    id,
    parentId,
    timestamp: at(),
    ...fields,
  });
  const message = (id: string, parentId: string | null, m: Record<string, unknown>) =>
    entry(id, parentId, "message", { message: { ...m, timestamp: T0 + n * 1000 } });
  const assistant = (id: string, parentId: string, content: unknown[], stopReason = "stop") =>
    message(id, parentId, {
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-test",
      usage,
      stopReason,
    });
  const lines = [
    /* 1 */ { type: "session", version: 3, id: "0198a7c0-0000-7000-8000-00000000a030", timestamp: at(), cwd: `/w/${V.npm}` },
    /* 2 */ message("u1", null, { role: "user", content: `here is my key ${V.aws}` }),
    /* 3 */ assistant(
      "a1",
      "u1",
      [
        { type: "thinking", thinking: `the user pasted ${V.openai}` },
        { type: "text", text: `I will not repeat ${V.anthropic}` },
        { type: "toolCall", id: "c1", name: "read", arguments: { path: ".env" } },
        {
          type: "toolCall",
          id: "c2",
          name: "bash",
          arguments: { command: `curl -H 'x: ${V.groq}' https://api.test`, opts: { env: [V.gitlab] } },
        },
      ],
      "toolUse",
    ),
    /* 4 */ message("r1", "a1", {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "read",
      content: [{ type: "text", text: `GITHUB_TOKEN=${V.github}\nSLACK_TOKEN=${V.slack}\n` }],
      isError: false,
    }),
    /* 5 */ message("r2", "r1", {
      role: "toolResult",
      toolCallId: "c2",
      toolName: "bash",
      content: [{ type: "text", text: `token ${V.huggingface}` }],
      details: { raw: V.linear },
      isError: false,
    }),
    /* 6 */ assistant("a2", "r2", [{ type: "text", text: "done" }]),
    /* 7 */ message("m1", "a2", {
      role: "bashExecution",
      command: `echo ${V.notion}`,
      output: `${V.sendgrid}\n`,
      exitCode: 0,
      cancelled: false,
      truncated: false,
    }),
    /* 8 */ entry("cm", "m1", "custom_message", {
      customType: "note",
      content: `note ${V.shopify}`,
      display: true,
      details: { x: V.figma },
    }),
    /* 9 */ entry("ce", "cm", "custom", { customType: "state", data: { token: V.vercel } }),
    /* 10 */ entry("lb", "ce", "label", { targetId: "u1", label: V.databricks }),
    /* 11 */ entry("si", "lb", "session_info", { name: V.docker }),
    /* 12 */ assistant("a3", "si", [{ type: "text", text: "ok" }]),
    /* 13 */ message("u2", "u1", { role: "user", content: `a branch never sent: ${V.privatekey}` }),
    /* 14 */ entry("bs", "u1", "branch_summary", { fromId: "a1", summary: `The branch read ${V.github}` }),
    /* 15 */ assistant("a4", "bs", [{ type: "text", text: "summarised" }]),
    /* 16 */ entry("cp", "a3", "compaction", {
      summary: `Vault ${V["hashicorp-vault"]}; ${V.github}`,
      firstKeptEntryId: "a2",
      tokensBefore: 500,
    }),
    /* 17 */ message("u3", "cp", { role: "user", content: `db is ${V["database-connection-string"]} and ${V.basicauth}/repo.git` }),
    /* 18 */ assistant("a5", "u3", [{ type: "text", text: "noted" }]),
    /* 19 */ entry("ed", "a5", "context_edit", { targetId: "cm", replacement: { content: `[gone] ${V.grafana}` } }),
    /* 20 */ assistant("a6", "ed", [{ type: "text", text: "edited" }]),
    /* 21 */ assistant(
      "a7",
      "u1",
      [
        { type: "toolCall", id: "c3", name: "read", arguments: { path: "gcp-sa.json" } },
        { type: "toolCall", id: "c4", name: "bash", arguments: { command: "op whoami" } },
      ],
      "toolUse",
    ),
    /* 22 */ message("r3", "a7", {
      role: "toolResult",
      toolCallId: "c3",
      toolName: "read",
      content: [{ type: "text", text: V.gcp }],
      isError: false,
    }),
    /* 23 */ message("r4", "r3", {
      role: "toolResult",
      toolCallId: "c4",
      toolName: "bash",
      content: [
        {
          type: "text",
          text: `OP_SERVICE_ACCOUNT_TOKEN=${V["1password"]}\nAWS_SECRET_ACCESS_KEY="${AWS_SECRET}"\n${AWS_ACCOUNT}\n`,
        },
      ],
      isError: false,
    }),
    /* 24 */ assistant("a8", "r4", [{ type: "text", text: "read the key" }]),
  ];
  // The AWS key as a JSON escape: found after decoding, as pi reads it.
  const text = jsonl(lines).replace(V.aws, `\\u0041${V.aws.slice(1)}`);
  const planted: Planted[] = [
    { rule: "npm", line: 1, pointer: "/cwd", place: "header", sentIn: [] },
    { rule: "aws", line: 2, pointer: "/message/content", place: "user-text", sentIn: [3, 6, 12, 15, 21, 24] },
    { rule: "openai", line: 3, pointer: "/message/content/0/thinking", place: "thinking", sentIn: [6, 12] },
    { rule: "anthropic", line: 3, pointer: "/message/content/1/text", place: "assistant-text", sentIn: [6, 12] },
    { rule: "groq", line: 3, pointer: "/message/content/3/arguments/command", place: "tool-call", sentIn: [6, 12] },
    { rule: "gitlab", line: 3, pointer: "/message/content/3/arguments/opts/env/0", place: "tool-call", sentIn: [6, 12] },
    {
      rule: "github",
      line: 4,
      pointer: "/message/content/0/text",
      place: "tool-result",
      from: "read .env",
      sentIn: [6, 12],
      repeatedIn: [14, 16],
    },
    { rule: "slack", line: 4, pointer: "/message/content/0/text", place: "tool-result", from: "read .env", sentIn: [6, 12] },
    {
      rule: "huggingface",
      line: 5,
      pointer: "/message/content/0/text",
      place: "tool-result",
      from: "bash curl -H 'x: gsk_…' https://api.test",
      sentIn: [6, 12],
    },
    {
      rule: "linear",
      line: 5,
      pointer: "/message/details/raw",
      place: "field",
      from: "bash curl -H 'x: gsk_…' https://api.test",
      sentIn: [],
    },
    { rule: "notion", line: 7, pointer: "/message/command", place: "bash-command", sentIn: [12, 18, 20] },
    { rule: "sendgrid", line: 7, pointer: "/message/output", place: "bash-output", from: "bash echo ntn_…", sentIn: [12, 18, 20] },
    { rule: "shopify", line: 8, pointer: "/content", place: "custom-message", sentIn: [12, 18] },
    { rule: "figma", line: 8, pointer: "/details/x", place: "custom-data", sentIn: [] },
    { rule: "vercel", line: 9, pointer: "/data/token", place: "custom-data", sentIn: [] },
    { rule: "databricks", line: 10, pointer: "/label", place: "label", sentIn: [] },
    { rule: "docker", line: 11, pointer: "/name", place: "session-name", sentIn: [] },
    { rule: "privatekey", line: 13, pointer: "/message/content", place: "user-text", sentIn: [] },
    { rule: "github", line: 14, pointer: "/summary", place: "branch-summary", sentIn: [15], repeatedIn: [16] },
    { rule: "hashicorp-vault", line: 16, pointer: "/summary", place: "compaction-summary", sentIn: [18, 20] },
    { rule: "github", line: 16, pointer: "/summary", place: "compaction-summary", sentIn: [18, 20] },
    { rule: "database-connection-string", line: 17, pointer: "/message/content", place: "user-text", sentIn: [18, 20] },
    { rule: "basicauth", line: 17, pointer: "/message/content", place: "user-text", sentIn: [18, 20] },
    { rule: "grafana", line: 19, pointer: "/replacement/content", place: "context-edit", sentIn: [20] },
    { rule: "gcp", line: 22, pointer: "/message/content/0/text", place: "tool-result", from: "read gcp-sa.json", sentIn: [24] },
    {
      rule: "privatekey",
      line: 22,
      pointer: "/message/content/0/text",
      place: "tool-result",
      from: "read gcp-sa.json",
      sentIn: [24],
      value: GCP_KEY,
    },
    { rule: "1password", line: 23, pointer: "/message/content/0/text", place: "tool-result", from: "bash op whoami", sentIn: [24] },
    ...[AWS_SECRET, AWS_ACCOUNT].map((value) => ({
      rule: "aws" as const,
      line: 23,
      pointer: "/message/content/0/text",
      place: "tool-result",
      from: "bash op whoami",
      sentIn: [24],
      value,
    })),
  ];
  return { text, planted };
}

/**
 * The planted session followed by `fillers` user messages of 600 characters (a chain from its last entry, with no
 * assistant turn after it, so no request carries them and the planted values' requests stay the same): enough
 * strings for several of the scanner's batches (1 MiB of characters each), which then go to a worker thread.
 * Every 1000th filler holds the npm token: found on its line, sent in no request.
 */
export function bigSecretSession(fillers: number): { text: string; planted: Planted[] } {
  const { text, planted } = secretSession();
  const first = text.split("\n").length; // the line of the first filler (text ends with a newline)
  const out = [text];
  const all = [...planted];
  let parent = "a8";
  for (let i = 0; i < fillers; i++) {
    const id = `f${i}`;
    const secret = i % 1000 === 999;
    const words = `filler ${i} ${"lorem ipsum dolor sit amet ".repeat(22)}`;
    const content = secret ? `${words} token ${VALUES.npm} end` : words;
    const timestamp = new Date(T0 + (100 + i) * 1000).toISOString();
    out.push(`${JSON.stringify({ type: "message", id, parentId: parent, timestamp, message: { role: "user", content, timestamp: 1 } })}\n`);
    if (secret) all.push({ rule: "npm", line: first + i, pointer: "/message/content", place: "user-text", sentIn: [] });
    parent = id;
  }
  return { text: out.join(""), planted: all };
}

/** What a test compares of a finding (of the report's data, or of `--json --show-secret`), sorted by place. */
export interface FindingFacts {
  rule: string;
  line: number;
  pointer: string;
  place: string;
  from?: string;
  value: string | undefined;
  requests: number;
  first: number | null;
  last: number | null;
  repeatedIn?: number[];
}

interface FoundLike {
  rule: string;
  line: number;
  pointer: string;
  place: string;
  from: string | null;
  value?: string;
  requests: number;
  first: { line: number } | null;
  last: { line: number } | null;
  repeatedIn: { line: number }[];
}

const byPlace = (a: FindingFacts, b: FindingFacts) => {
  const key = (x: FindingFacts) => `${String(x.line).padStart(6)} ${x.pointer} ${x.rule}`;
  return key(a).localeCompare(key(b));
};

/** The facts of the findings a scan reported. */
export function foundFacts(findings: readonly FoundLike[]): FindingFacts[] {
  return findings
    .map((f) => ({
      rule: f.rule,
      line: f.line,
      pointer: f.pointer,
      place: f.place,
      ...(f.from !== null ? { from: f.from } : {}),
      value: f.value,
      requests: f.requests,
      first: f.first?.line ?? null,
      last: f.last?.line ?? null,
      ...(f.repeatedIn.length > 0 ? { repeatedIn: f.repeatedIn.map((x) => x.line) } : {}),
    }))
    .sort(byPlace);
}

/** The facts a scan must report for what was planted (worked out by hand). */
export function plantedFacts(planted: readonly Planted[]): FindingFacts[] {
  return planted
    .map((p) => ({
      rule: p.rule,
      line: p.line,
      pointer: p.pointer,
      place: p.place,
      ...(p.from !== undefined ? { from: p.from } : {}),
      value: p.value ?? VALUES[p.rule],
      requests: p.sentIn.length,
      first: p.sentIn[0] ?? null,
      last: p.sentIn.at(-1) ?? null,
      ...(p.repeatedIn ? { repeatedIn: p.repeatedIn } : {}),
    }))
    .sort(byPlace);
}

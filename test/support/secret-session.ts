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
} as const;

export type PlantedRule = keyof typeof VALUES;

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
  ];
  // The AWS key as a JSON escape: found after decoding, as pi reads it.
  const text = jsonl(lines).replace(V.aws, `\\u0041${V.aws.slice(1)}`);
  const planted: Planted[] = [
    { rule: "npm", line: 1, pointer: "/cwd", place: "header", sentIn: [] },
    { rule: "aws", line: 2, pointer: "/message/content", place: "user-text", sentIn: [3, 6, 12, 15] },
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
  ];
  return { text, planted };
}

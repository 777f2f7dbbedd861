import type { SecretFinding, SecretGroup, SecretRequest, SecretsData } from "../reports/secrets.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";

/** `secrets --format json`: every finding, every secret (places by index into findings), per-file and total counts. */
export interface SecretsJson {
  findings: SecretFinding[];
  secrets: SecretGroup[];
  files: SecretsData["files"];
  summary: { files: number; findings: number; secrets: number; sent: number; byRule: Record<string, number> };
}

export function secretsJson(data: SecretsData): string {
  const byRule: Record<string, number> = {};
  for (const f of data.findings) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
  const doc: SecretsJson = {
    findings: data.findings,
    secrets: data.secrets,
    files: data.files,
    summary: {
      files: data.files.length,
      findings: data.findings.length,
      secrets: data.secrets.length,
      sent: data.secrets.filter((s) => s.requests > 0).length,
      byRule,
    },
  };
  return `${JSON.stringify(doc)}\n`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function requestWords(r: SecretRequest): string {
  const about = [[r.provider, r.model].filter((x) => x !== null).join("/"), r.time ?? ""].filter(Boolean).join(", ");
  return about === "" ? `line ${r.line}` : `line ${r.line} (${sanitizeLine(about)})`;
}

function valueWords(s: { rule: string; masked: string; length: number; value?: string }): string {
  return s.value !== undefined ? sanitizeLine(s.value) : `${sanitizeLine(s.masked)}… (${s.length} chars)`;
}

/** One place: where, what kind of place, then what reached the model and what repeated it. */
function* placeLines(f: SecretFinding, style: Style): Generator<string> {
  const what = f.from === null ? f.place : `${f.place} (${sanitizeLine(f.from)})`;
  yield `  ${sanitizeLine(f.file)}:${f.line}  ${what}  ${sanitizeLine(f.pointer || "/")}`;
  if (f.requests === 0 || f.first === null || f.last === null) yield `      ${style.dim("in no request to the model")}`;
  else if (f.requests === 1) yield `      ${style.warning(`sent in 1 request: ${requestWords(f.first)}`)}`;
  else yield `      ${style.warning(`sent in ${f.requests} requests: first ${requestWords(f.first)}, last ${requestWords(f.last)}`)}`;
  for (const r of f.repeatedIn)
    yield `      repeated by the ${r.type.replace("_", " ")} on line ${r.line}${r.sent ? "" : " (in no request)"}`;
}

/** The text view: one block per secret (a value found in ten places is one secret with ten places), then totals. */
export function secretsText(data: SecretsData, style: Style): string {
  const out: string[] = [];
  for (const s of data.secrets) {
    const sent = s.requests > 0 ? style.error("sent to the model") : style.dim("never sent to the model");
    out.push(`${style.bold(s.rule)}  ${valueWords(s)}  ${sent}, ${plural(s.places.length, "place")}`);
    for (const i of s.places) for (const line of placeLines(data.findings[i] as SecretFinding, style)) out.push(line);
    out.push("");
  }
  const read = data.files.filter((f) => f.error === undefined).length;
  const withFindings = data.files.filter((f) => f.findings > 0).length;
  const sentCount = data.secrets.filter((s) => s.requests > 0).length;
  if (data.secrets.length === 0) out.push(`${plural(read, "file")} scanned: no secrets found`);
  else
    out.push(
      `${plural(data.secrets.length, "secret")} in ${plural(data.findings.length, "place")}, in ${withFindings} of ${plural(read, "file")}; ${sentCount} sent to the model`,
    );
  return `${out.join("\n")}\n`;
}
